// libFuzzer target for what synap-npu checks before it trusts a stored NPU program. The first
// byte picks the path the rest of the bytes take:
//   mode 0, 1  an NPU program: NpuCore::load (flatbuffers verifier, version, the core's checks,
//              XNNPACK's) and, when its buffers are small, one run on the core; mode 1 first
//              stamps the current compiler version on it, so that inputs from an older compiler
//              (seeds, regressions) still reach the checks behind the version check
//   mode 2     an NNAPI model cache file: readModelCacheFile (for a fixed token or, bit 3, the
//              one the file names), then PreparedNetwork's rebuild from the program; or (bit 2)
//              a sealed file with one byte changed, cut or added, which must be refused
//   mode 3     the SyNAP cache: the bytes stored as a program, damaged in its database (chunk
//              bytes, sizes, order, links, version), then looked up: a lookup may only succeed
//              with exactly the bytes stored; or its entry index file overwritten in place or
//              replaced, then looked up through the index alone (no SQLite), likewise
// In modes 0 and 1, bit 2 of the first byte loads with profiling on. Nothing may crash, hang or leak; a damaged or
// foreign program must be refused. The same function backs npu_program_fuzz_replay.
#include <sqlite3.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compiler/Compiler.h"
#include "core/NpuCore.h"
#include "device/PreparedNetwork.h"
#include "nnemu/cache/ModelCacheFile.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace {

using nnemu::synap::NpuCore;

// Programs whose tensors need more than this are not loaded (unless their sizes overflow, which
// the core must refuse), like the loader's target skips big models.
constexpr uint64_t kMaxLoadBytes = uint64_t{64} << 20;
constexpr uint64_t kMaxRunBytes = uint64_t{4} << 20;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "npu_program_fuzz: %s\n", what);
    std::abort();
}

// Bytes of every tensor of `program` if it parses, saturating; 0 when it does not verify.
uint64_t declaredBytes(std::span<const uint8_t> bytes) {
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    if (!nnemu::npu::VerifyProgramBuffer(verifier)) return 0;
    const auto* tensors = nnemu::npu::GetProgram(bytes.data())->tensors();
    if (tensors == nullptr) return 0;
    constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();
    uint64_t total = 0;
    for (const auto* tensor : *tensors) {
        if (tensor->dims() == nullptr) continue;
        uint64_t size = 4;
        for (uint32_t d : *tensor->dims()) {
            if (d != 0 && size > kSaturated / d) return kSaturated;
            size *= d;
        }
        if (total > kSaturated - size) return kSaturated;
        total += size;
    }
    return total;
}

void loadAndRun(std::vector<uint8_t> program, bool profiling) {
    const uint64_t declared = declaredBytes(program);
    if (declared > kMaxLoadBytes && declared != std::numeric_limits<uint64_t>::max()) return;
    auto loaded = NpuCore::load(std::move(program), profiling);
    if (!loaded.isOk()) return;
    std::unique_ptr<NpuCore> core = std::move(loaded).value();
    uint64_t ioBytes = 0;
    for (size_t i = 0; i < core->inputCount(); ++i) ioBytes += core->inputBytes(i);
    for (size_t i = 0; i < core->outputCount(); ++i) ioBytes += core->outputBytes(i);
    if (declared > kMaxRunBytes || ioBytes > kMaxRunBytes) return;
    std::vector<std::vector<uint8_t>> inputs, outputs;
    std::vector<const uint8_t*> in;
    std::vector<uint8_t*> out;
    for (size_t i = 0; i < core->inputCount(); ++i) {
        inputs.emplace_back(core->inputBytes(i));
        for (size_t k = 0; k < inputs.back().size(); ++k) inputs.back()[k] = static_cast<uint8_t>(k * 29 + i);
        in.push_back(inputs.back().data());
    }
    for (size_t i = 0; i < core->outputCount(); ++i) {
        outputs.emplace_back(core->outputBytes(i));
        out.push_back(outputs.back().data());
    }
    (void)core->run(in, out);
}

// Mode 1: a verifying program's compiler version, if it has one, becomes the current one.
void stampCurrentVersion(std::vector<uint8_t>& bytes) {
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    if (!nnemu::npu::VerifyProgramBuffer(verifier)) return;
    auto* table = flatbuffers::GetMutableRoot<flatbuffers::Table>(bytes.data());
    if (uint8_t* field = table->GetAddressOf(nnemu::npu::Program::VT_COMPILER_VERSION)) {
        flatbuffers::WriteScalar<uint32_t>(field, nnemu::synap::kCompilerVersion);
    }
}

const nnemu::hal::CacheToken kToken = [] {
    nnemu::hal::CacheToken token{};
    for (size_t i = 0; i < token.size(); ++i) token[i] = static_cast<uint8_t>(i * 7 + 1);
    return token;
}();

// A memfd holding `size` bytes from `data`; -1 on failure.
int memoryFile(const uint8_t* data, size_t size) {
    const int fd = memfd_create("npu-program-fuzz", MFD_CLOEXEC);
    if (fd >= 0 && size > 0 && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) {
        close(fd);
        return -1;
    }
    return fd;
}

void rebuildFromCacheFile(int fd, const nnemu::hal::CacheToken& token) {
    // Mapped, as the driver's prepare-from-cache does.
    auto image = nnemu::cache::mapModelCacheFile(fd, token, nnemu::synap::kCompilerVersion);
    if (!image.isOk()) return;
    if (declaredBytes(image->bytes()) > kMaxLoadBytes) return;
    (void)nnemu::synap::PreparedNetwork::fromCachedProgram(std::move(image).value());
}

// Mode 2: the NNAPI model cache file, for kToken or (ownToken) for the token it names.
void modelCacheFile(const uint8_t* data, size_t size, bool sealed, bool ownToken) {
    if (!sealed) {
        nnemu::hal::CacheToken token = kToken;
        if (ownToken && size >= 16 + token.size()) std::memcpy(token.data(), data + 16, token.size());
        const int fd = memoryFile(data, size);
        if (fd < 0) return;
        rebuildFromCacheFile(fd, token);
        close(fd);
        return;
    }
    // Sealed: [kind, position (2 bytes), value] then the payload.
    if (size < 4) return;
    const uint8_t kind = data[0] % 4;
    const size_t position = data[1] | size_t{data[2]} << 8;
    const uint8_t value = data[3];
    const std::vector<uint8_t> payload(data + 4, data + size);
    const int fd = memfd_create("npu-program-fuzz", MFD_CLOEXEC);
    if (fd < 0) return;
    if (!nnemu::cache::writeModelCacheFile(fd, kToken, nnemu::synap::kCompilerVersion, payload)) {
        fail("cannot write a cache file");
    }
    const size_t fileSize = nnemu::cache::kModelCacheHeaderSize + payload.size();
    bool changed = false;
    if (kind == 1 && value != 0) {  // one byte changed
        uint8_t byte = 0;
        if (pread(fd, &byte, 1, static_cast<off_t>(position % fileSize)) != 1) fail("cannot read back");
        byte ^= value;
        if (pwrite(fd, &byte, 1, static_cast<off_t>(position % fileSize)) != 1) fail("cannot write back");
        changed = true;
    } else if (kind == 2) {  // cut short
        if (ftruncate(fd, static_cast<off_t>(position % fileSize)) != 0) fail("cannot truncate");
        changed = true;
    } else if (kind == 3) {  // a byte appended
        if (pwrite(fd, &value, 1, static_cast<off_t>(fileSize)) != 1) fail("cannot append");
        changed = true;
    }
    auto readBack = nnemu::cache::readModelCacheFile(fd, kToken, nnemu::synap::kCompilerVersion);
    const bool accepted = readBack.isOk();
    const std::vector<uint8_t> read = accepted ? std::move(readBack).value() : std::vector<uint8_t>();
    if (changed && accepted) fail("a changed model cache file was accepted");
    if (!changed && (!accepted || read != payload)) fail("an intact model cache file was refused or read wrong");
    {  // mapping checks the same (an empty program is no program)
        const auto image = nnemu::cache::mapModelCacheFile(fd, kToken, nnemu::synap::kCompilerVersion);
        if (image.isOk() != (accepted && !read.empty())) fail("mapping and reading a model cache file disagree");
        if (image.isOk() && !std::equal(read.begin(), read.end(), image->data(), image->data() + image->size())) {
            fail("a mapped model cache file holds other bytes than it reads");
        }
    }  // the image releases the file's lock before the driver maps it again
    if (!changed) rebuildFromCacheFile(fd, kToken);
    close(fd);
}

// Mode 3: the SyNAP cache, one database for the whole run.
struct SynapCacheFixture {
    std::string file;
    std::unique_ptr<nnemu::cache::SynapCache> cache;
    sqlite3* raw = nullptr;  // a second connection, to damage what the cache stored
};

SynapCacheFixture& synapCache() {
    static SynapCacheFixture fixture = [] {
        SynapCacheFixture made;
        const char* base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
        std::string pattern = std::string(base) + "/npu-program-fuzz-XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) fail("cannot create a directory for the cache");
        const std::string file = made.file = pattern + "/nnhal.cache";
        if (auto opened = nnemu::cache::SynapCache::open(file, true); opened.isOk()) made.cache = std::move(opened).value();
        if (made.cache == nullptr || sqlite3_open(file.c_str(), &made.raw) != SQLITE_OK) fail("cannot open the cache");
        sqlite3_busy_timeout(made.raw, 10000);
        return made;
    }();
    return fixture;
}

// Runs `sql` with ?1 = the program's md5 and ?2, ?3 = numbers or blob from the fuzz bytes.
void damage(sqlite3* db, const char* sql, const std::string& program, int64_t a, int64_t b,
            const std::vector<uint8_t>* blob = nullptr) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK) fail(sqlite3_errmsg(db));
    sqlite3_bind_text(statement, 1, program.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(statement, 2, a);
    if (blob != nullptr) {
        sqlite3_bind_blob64(statement, 3, blob->empty() ? "" : static_cast<const void*>(blob->data()), blob->size(),
                            SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_int64(statement, 3, b);
    }
    while (sqlite3_step(statement) == SQLITE_ROW) {
    }
    sqlite3_finalize(statement);
}

// The entry index of `key` overwritten with `blob` from `offset` (or replaced by it), then the
// lookup that skips SQLite: it may only map exactly `program`, and an untouched index must serve.
void indexRoundTrip(const std::string& file, const std::string& key, const std::vector<uint8_t>& program,
                    bool inPlace, size_t offset, const std::vector<uint8_t>& blob) {
    const std::string index = file + "." + key + ".entry";
    std::vector<uint8_t> bytes;
    if (inPlace) {
        FILE* in = std::fopen(index.c_str(), "rb");
        if (in == nullptr) fail("the store wrote no entry index");
        uint8_t buffer[512];
        for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, in)) > 0;) bytes.insert(bytes.end(), buffer, buffer + n);
        std::fclose(in);
        for (size_t i = 0; i < blob.size(); ++i) {
            if (offset + i < bytes.size()) {
                bytes[offset + i] = blob[i];
            } else {
                bytes.push_back(blob[i]);
            }
        }
    } else {
        bytes = blob;
    }
    FILE* out = std::fopen(index.c_str(), "wb");
    if (out == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) fail("cannot write the index");
    std::fclose(out);
    nnemu::cache::ProgramImage image;
    bool foldDue = false;
    const nnemu::Status status = nnemu::cache::SynapCache::findIndexed(file, {}, key, nnemu::synap::kCompilerVersion,
                                                                       &image, &foldDue);
    if (status.isOk() && (image.size() != program.size() || !std::equal(program.begin(), program.end(), image.data()))) {
        fail("the entry index led to other bytes than stored");
    }
    if (inPlace && blob.empty() && !program.empty() && !status.isOk()) fail("an intact entry index was refused");
}

void synapCacheRoundTrip(const uint8_t* data, size_t size) {
    // [kind, a, b, blob length] then the blob, then the program.
    if (size < 4) return;
    const uint8_t kind = data[0] % 9;
    const int64_t a = data[1], b = data[2];
    const size_t blobSize = std::min<size_t>(data[3], size - 4);
    const std::vector<uint8_t> blob(data + 4, data + 4 + blobSize);
    const std::vector<uint8_t> program(data + 4 + blobSize, data + size);
    SynapCacheFixture& fixture = synapCache();
    const std::string key = "fuzz";
    using Status = nnemu::StatusCode;
    if (fixture.cache->store(key, program, nnemu::synap::kCompilerVersion, 2) != Status::OK) fail("store failed");
    const auto entries = fixture.cache->entries();
    if (entries.empty()) fail("a stored entry is missing");
    const std::string md5 = entries.front().program;
    sqlite3* db = fixture.raw;
    constexpr const char* kChunkAt =
            "(SELECT chunk FROM program_chunks WHERE program = ?1 ORDER BY position LIMIT 1 OFFSET ?2)";
    switch (kind) {
        case 1:
            damage(db, (std::string("UPDATE chunks SET data = ?3 WHERE md5 = ") + kChunkAt).c_str(), md5, a, 0, &blob);
            break;
        case 2: damage(db, "UPDATE programs SET size = size + ?2 - ?3 WHERE md5 = ?1", md5, a, b); break;
        case 3: damage(db, (std::string("DELETE FROM chunks WHERE md5 = ") + kChunkAt).c_str(), md5, a, 0); break;
        case 4:  // two links swap places (through -1: positions are unique)
            damage(db, "UPDATE program_chunks SET position = -1 WHERE program = ?1 AND position = ?2", md5, a % 4, 0);
            damage(db, "UPDATE program_chunks SET position = ?2 WHERE program = ?1 AND position = ?3", md5, a % 4,
                   b % 4);
            damage(db, "UPDATE program_chunks SET position = ?2 WHERE program = ?1 AND position = -1", md5, b % 4, 0);
            break;
        case 5:
            damage(db, "UPDATE programs SET compiler_version = compiler_version + ?2 WHERE md5 = ?1", md5, a, 0);
            break;
        case 6: damage(db, "UPDATE programs SET chunk_count = chunk_count + ?2 - ?3 WHERE md5 = ?1", md5, a, b); break;
        case 7:
        case 8: indexRoundTrip(fixture.file, key, program, kind == 7, static_cast<size_t>(a), blob); return;
        default: break;
    }
    std::vector<uint8_t> found;
    const nnemu::Status status = fixture.cache->find(key, nnemu::synap::kCompilerVersion, &found);
    if (status == Status::OK && found != program) fail("the SyNAP cache returned other bytes than it stored");
    if (kind == 0 && status != Status::OK) fail("an intact SyNAP cache entry was not found");
    if (status == Status::OK) loadAndRun(std::move(found), false);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setenv("NNEMU_LOG", "silent", 1);  // refused programs are expected; keep the output readable
    char pattern[] = "/tmp/npu-program-fuzz-root-XXXXXX";
    if (const char* root = mkdtemp(pattern)) setenv("NNEMU_ROOT", root, 1);
    setenv("NNEMU_NPU_THREADS", "1", 1);  // -jobs=1 fuzzing shares the machine
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const uint8_t mode = data[0] & 3;
    const bool flag = (data[0] & 4) != 0;
    const bool ownToken = (data[0] & 8) != 0;
    ++data;
    --size;
    switch (mode) {
        case 0:
        case 1: {
            std::vector<uint8_t> program(data, data + size);
            if (mode == 1) stampCurrentVersion(program);
            loadAndRun(std::move(program), flag);
            break;
        }
        case 2: modelCacheFile(data, size, flag, ownToken); break;
        case 3: synapCacheRoundTrip(data, size); break;
    }
    return 0;
}
