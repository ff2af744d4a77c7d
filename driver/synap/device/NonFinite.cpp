#include "NonFinite.h"

#include <algorithm>
#include <cstring>

#include "nnemu/hal/Validation.h"

namespace nnemu::synap {
namespace {

// An all-ones exponent is an infinity or a NaN. One pass without branches, so it vectorizes.
template <typename Bits>
bool anyExponentAllOnes(const uint8_t* bytes, size_t length, Bits exponent) {
    const size_t count = length / sizeof(Bits);
    Bits found = 0;
    for (size_t i = 0; i < count; ++i) {
        Bits value;
        std::memcpy(&value, bytes + i * sizeof(Bits), sizeof(Bits));
        found |= static_cast<Bits>((value & exponent) == exponent);
    }
    return found != 0;
}

}  // namespace

bool holdsNonFinite(hal::OperandType type, const uint8_t* bytes, size_t length) {
    if (bytes == nullptr) return false;
    switch (type) {
        case hal::OperandType::FLOAT32:
        case hal::OperandType::TENSOR_FLOAT32:
            return anyExponentAllOnes<uint32_t>(bytes, length, 0x7F800000u);
        case hal::OperandType::FLOAT16:
        case hal::OperandType::TENSOR_FLOAT16:
            return anyExponentAllOnes<uint16_t>(bytes, length, 0x7C00u);
        default:
            return false;
    }
}

bool readsNonFiniteConstant(const hal::Model& model, const hal::Operation& operation,
                            const std::vector<bool>& unread) {
    for (uint32_t index : operation.inputs) {
        if (index < unread.size() && unread[index]) continue;
        const hal::Operand& operand = model.operands[index];
        if (holdsNonFinite(operand.type, hal::constantData(model, operand), operand.location.length)) return true;
    }
    return false;
}

bool anyNonFiniteConstant(const hal::Model& model) {
    return std::any_of(model.operations.begin(), model.operations.end(),
                       [&](const hal::Operation& operation) { return readsNonFiniteConstant(model, operation); });
}

}  // namespace nnemu::synap
