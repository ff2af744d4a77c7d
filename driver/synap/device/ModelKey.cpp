#include "ModelKey.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

#include "nnemu/base/Digest.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::synap {
namespace {

// Every field goes in with its length first, so no two different models serialize alike. Small
// fields are gathered and given to the digest in blocks (a call of libmd's per 4-byte field was
// most of the key's cost on a per-channel network: 17 000 scales); the bytes hashed are the same.
class CanonicalWriter {
public:
    explicit CanonicalWriter(base::Digest& digest) : digest_(digest) {}
    ~CanonicalWriter() { flush(); }
    CanonicalWriter(const CanonicalWriter&) = delete;
    CanonicalWriter& operator=(const CanonicalWriter&) = delete;

    void u32(uint32_t value) { put(&value, sizeof value); }
    void i32(int32_t value) { put(&value, sizeof value); }
    void f32(float value) { u32(std::bit_cast<uint32_t>(value)); }
    void u32s(const std::vector<uint32_t>& values) {
        u64(values.size());
        put(values.data(), values.size() * sizeof(uint32_t));
    }
    void bytes(const uint8_t* data, uint64_t size) {
        u64(size);
        if (data != nullptr) put(data, size);
    }
    void u64(uint64_t value) { put(&value, sizeof value); }
    // Everything written so far, given to the digest (before it finishes).
    void flush() {
        if (used_ > 0) digest_.update(buffer_, used_);
        used_ = 0;
    }

private:
    void put(const void* data, size_t size) {
        if (size == 0) return;   // an empty vector's data() may be null, which memcpy must not get
        if (size > sizeof buffer_ - used_) {
            flush();
            if (size >= sizeof buffer_) return digest_.update(data, size);
        }
        std::memcpy(buffer_ + used_, data, size);
        used_ += size;
    }

    base::Digest& digest_;
    uint8_t buffer_[4096];
    size_t used_ = 0;
};

bool isConstant(hal::OperandLifeTime lifetime) {
    return lifetime == hal::OperandLifeTime::CONSTANT_COPY || lifetime == hal::OperandLifeTime::CONSTANT_REFERENCE;
}

// Whatever its size: a MobileNet's biases and small filters (1-4 KiB each, ~110 KiB in all for
// the tf2 v2) hashed by value took 0.4 ms of every prepare, before the warm start's prefetch.
bool fileReference(const hal::Model& model, const hal::Operand& operand) {
    const hal::DataLocation& at = operand.location;
    return operand.lifetime == hal::OperandLifeTime::CONSTANT_REFERENCE && at.length > 0 &&
           at.poolIndex < model.pools.size() && model.pools[at.poolIndex] != nullptr;
}

// The canonical serialization of what a program is compiled from; `constant` writes one
// constant operand's value (its bytes, or what stands for them).
template <typename WriteConstant>
void serializeModel(CanonicalWriter& out, const hal::Model& model, uint32_t compilerVersion, WriteConstant constant) {
    out.u32(compilerVersion);
    out.u32(model.relaxComputationFloat32toFloat16 ? 1 : 0);
    out.u64(model.operands.size());
    for (const auto& operand : model.operands) {
        out.i32(static_cast<int32_t>(operand.type));
        out.u32s(operand.dimensions);
        out.f32(operand.scale);
        out.i32(operand.zeroPoint);
        // Constants count by value: a copy and a reference to the same bytes compile alike.
        const bool isConst = isConstant(operand.lifetime);
        out.i32(isConst ? -1 : static_cast<int32_t>(operand.lifetime));
        if (isConst) constant(operand);
        out.u32(operand.channelQuant.has_value() ? 1 : 0);
        if (operand.channelQuant) {
            out.u32(operand.channelQuant->channelDim);
            out.u64(operand.channelQuant->scales.size());
            for (float scale : operand.channelQuant->scales) out.f32(scale);
        }
    }
    out.u64(model.operations.size());
    for (const auto& operation : model.operations) {
        out.i32(static_cast<int32_t>(operation.type));
        out.u32s(operation.inputs);
        out.u32s(operation.outputs);
    }
    out.u32s(model.inputIndexes);
    out.u32s(model.outputIndexes);
}

// A regular file's identity, or nullopt when its bytes could change without it changing: a
// memory that can be written, shared memory (tmpfs, hugetlbfs: writes through a mapping leave
// its times alone), or a file changed in the last kSettledSeconds (a change within the same
// clock tick would keep its times).
struct FileIdentity {
    uint64_t device, inode, size;
    int64_t mtimeNs, ctimeNs;
};
constexpr int64_t kSettledSeconds = 2;

std::optional<FileIdentity> settledFile(const hal::MemoryPool& pool) {
    struct stat info {};
    struct statfs system {};
    if (pool.fd() < 0 || pool.writable() || fstat(pool.fd(), &info) != 0 || !S_ISREG(info.st_mode) ||
        fstatfs(pool.fd(), &system) != 0 || system.f_type == TMPFS_MAGIC || system.f_type == HUGETLBFS_MAGIC) {
        return std::nullopt;
    }
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count();
    if (now - info.st_mtim.tv_sec < kSettledSeconds || now - info.st_ctim.tv_sec < kSettledSeconds) return std::nullopt;
    const auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; };
    return FileIdentity{info.st_dev, info.st_ino, static_cast<uint64_t>(info.st_size), ns(info.st_mtim), ns(info.st_ctim)};
}

// The settled files of the pools holding constants.
using PoolFiles = std::map<uint32_t, std::optional<FileIdentity>>;
PoolFiles settledPoolFiles(const hal::Model& model) {
    PoolFiles files;
    for (const auto& operand : model.operands) {
        const hal::DataLocation& at = operand.location;
        if (fileReference(model, operand) && files.count(at.poolIndex) == 0) {
            files.emplace(at.poolIndex, settledFile(*model.pools[at.poolIndex]));
        }
    }
    return files;
}

bool anySettled(const PoolFiles& files) {
    return std::any_of(files.begin(), files.end(), [](const auto& file) { return file.second.has_value(); });
}

}  // namespace

std::vector<uint8_t> modelDigest(const hal::Model& model, uint32_t compilerVersion) {
    static constexpr char kFormat[] = "nnemu compiled network key 2";
    base::Digest digest(base::DigestAlgorithm::MD5);
    digest.update(kFormat, sizeof kFormat);
    CanonicalWriter out(digest);
    serializeModel(out, model, compilerVersion, [&](const hal::Operand& operand) {
        out.bytes(hal::constantData(model, operand), operand.location.length);
    });
    out.flush();
    return digest.finish();
}

std::vector<bool> constantsGivenByFile(const hal::Model& model) {
    const PoolFiles files = settledPoolFiles(model);
    std::vector<bool> byFile(model.operands.size(), false);
    if (!anySettled(files)) return byFile;
    for (size_t i = 0; i < model.operands.size(); ++i) {
        const hal::Operand& operand = model.operands[i];
        const auto found = fileReference(model, operand) ? files.find(operand.location.poolIndex) : files.end();
        byFile[i] = found != files.end() && found->second.has_value();
    }
    return byFile;
}

std::vector<uint8_t> fileIdentityDigest(const hal::Model& model, uint32_t compilerVersion) {
    static constexpr char kFormat[] = "nnemu file identity key 1";
    base::Digest digest(base::DigestAlgorithm::MD5);
    digest.update(kFormat, sizeof kFormat);
    CanonicalWriter out(digest);
    // Without a settled file holding constants, nothing stands in.
    const PoolFiles files = settledPoolFiles(model);
    if (!anySettled(files)) return {};
    serializeModel(out, model, compilerVersion, [&](const hal::Operand& operand) {
        const hal::DataLocation& at = operand.location;
        const auto found = fileReference(model, operand) ? files.find(at.poolIndex) : files.end();
        if (found == files.end() || !found->second) {
            out.u32(0);  // by value
            out.bytes(hal::constantData(model, operand), at.length);
            return;
        }
        const hal::MemoryPool& pool = *model.pools[at.poolIndex];
        const FileIdentity& file = *found->second;
        out.u32(1);
        out.u64(file.device);
        out.u64(file.inode);
        out.u64(file.size);
        out.u64(static_cast<uint64_t>(file.mtimeNs));
        out.u64(static_cast<uint64_t>(file.ctimeNs));
        out.u64(pool.fileOffset() + at.offset);
        out.u64(at.length);
    });
    out.flush();
    return digest.finish();
}

std::string compiledNetworkKey(const std::vector<uint8_t>& modelDigest,
                               const std::vector<std::vector<uint32_t>>& inputDims) {
    if (modelDigest.empty()) return "";
    base::Digest digest(base::DigestAlgorithm::MD5);
    CanonicalWriter out(digest);
    out.bytes(modelDigest.data(), modelDigest.size());
    out.u64(inputDims.size());
    for (const auto& dims : inputDims) out.u32s(dims);
    out.flush();
    return base::toHex(digest.finish());
}

std::string compiledNetworkKey(const hal::Model& model, const std::vector<std::vector<uint32_t>>& inputDims,
                               uint32_t compilerVersion) {
    return compiledNetworkKey(modelDigest(model, compilerVersion), inputDims);
}

}  // namespace nnemu::synap
