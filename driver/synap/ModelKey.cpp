#include "ModelKey.h"

#include <bit>

#include "nnemu/base/Digest.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::synap {
namespace {

// Every field goes in with its length first, so no two different models serialize alike.
class CanonicalWriter {
public:
    explicit CanonicalWriter(base::Digest& digest) : digest_(digest) {}
    void u32(uint32_t value) { digest_.updateValue(value); }
    void i32(int32_t value) { digest_.updateValue(value); }
    void f32(float value) { digest_.updateValue(std::bit_cast<uint32_t>(value)); }
    void u32s(const std::vector<uint32_t>& values) {
        u64(values.size());
        digest_.update(values.data(), values.size() * sizeof(uint32_t));
    }
    void bytes(const uint8_t* data, uint64_t size) {
        u64(size);
        if (data != nullptr) digest_.update(data, size);
    }
    void u64(uint64_t value) { digest_.updateValue(value); }

private:
    base::Digest& digest_;
};

bool isConstant(hal::OperandLifeTime lifetime) {
    return lifetime == hal::OperandLifeTime::CONSTANT_COPY || lifetime == hal::OperandLifeTime::CONSTANT_REFERENCE;
}

}  // namespace

std::vector<uint8_t> modelDigest(const hal::Model& model, uint32_t compilerVersion) {
    static constexpr char kFormat[] = "nnemu compiled network key 2";
    base::Digest digest(base::DigestAlgorithm::MD5);
    digest.update(kFormat, sizeof kFormat);
    CanonicalWriter out(digest);
    out.u32(compilerVersion);
    out.u32(model.relaxComputationFloat32toFloat16 ? 1 : 0);
    out.u64(model.operands.size());
    for (const auto& operand : model.operands) {
        out.i32(static_cast<int32_t>(operand.type));
        out.u32s(operand.dimensions);
        out.f32(operand.scale);
        out.i32(operand.zeroPoint);
        // Constants count by value: a copy and a reference to the same bytes compile alike.
        const bool constant = isConstant(operand.lifetime);
        out.i32(constant ? -1 : static_cast<int32_t>(operand.lifetime));
        if (constant) out.bytes(hal::constantData(model, operand), operand.location.length);
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
    return base::toHex(digest.finish());
}

std::string compiledNetworkKey(const hal::Model& model, const std::vector<std::vector<uint32_t>>& inputDims,
                               uint32_t compilerVersion) {
    return compiledNetworkKey(modelDigest(model, compilerVersion), inputDims);
}

}  // namespace nnemu::synap
