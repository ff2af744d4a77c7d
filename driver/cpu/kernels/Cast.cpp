// Reference kernel for CAST between TENSOR_FLOAT16, FLOAT32, INT32 and QUANT8_ASYMM.
//
// As NNAPI defines it, CAST ignores scale and zero point: a quant8 tensor is read and written
// as plain uint8 values (quant8 -> float of stored 3 is 3.0, not its real value). Conversions
// are C++ value conversions, as in NNAPI's and TFLite's reference kernels: float -> integer
// truncates toward zero (2.7 -> 2, -2.7 -> -2); a quant8 output first saturates to [0, 255]
// (-1.0 -> 0, 256.0 -> 255). Where C++ leaves the result undefined, this kernel chooses:
// float -> int32 saturates to the int32 range, and NaN becomes 0 for either integer type.
// Identity casts of the other types (BOOL8, QUANT16_*, QUANT8_ASYMM_SIGNED, QUANT8_SYMM): a copy.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "Broadcast.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Every source element (half, float, int32, uint8) is exact in double.
double readElement(const OperandView& v, uint64_t i) {
    switch (v.type) {
        case OperandType::TENSOR_FLOAT16:
            return base::halfToFloat(v.as<uint16_t>()[i]);
        case OperandType::TENSOR_FLOAT32:
            return v.as<float>()[i];
        case OperandType::TENSOR_INT32:
            return v.as<int32_t>()[i];
        default:  // TENSOR_QUANT8_ASYMM
            return v.as<uint8_t>()[i];
    }
}

// Truncates toward zero into [low, high]; NaN gives 0.
double truncateInto(double value, double low, double high) {
    if (std::isnan(value)) return 0.0;
    return std::trunc(std::clamp(value, low, high));
}

// The source value is a half, a float, or an int32 whose float rounding is only inexact beyond
// 2^24, where a half is infinite anyway, so double -> float -> half rounds like a direct cast.
void writeElement(OperandView& v, uint64_t i, double value) {
    switch (v.type) {
        case OperandType::TENSOR_FLOAT16:
            v.as<uint16_t>()[i] = base::floatToHalf(static_cast<float>(value));
            break;
        case OperandType::TENSOR_FLOAT32:
            v.as<float>()[i] = static_cast<float>(value);
            break;
        case OperandType::TENSOR_INT32:
            v.as<int32_t>()[i] = static_cast<int32_t>(truncateInto(
                    value, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
            break;
        default:  // TENSOR_QUANT8_ASYMM
            v.as<uint8_t>()[i] = static_cast<uint8_t>(truncateInto(value, 0.0, 255.0));
            break;
    }
}

bool castable(OperandType type) {
    return type == OperandType::TENSOR_FLOAT16 || type == OperandType::TENSOR_FLOAT32 ||
           type == OperandType::TENSOR_INT32 || type == OperandType::TENSOR_QUANT8_ASYMM;
}

}  // namespace

bool kernels::castKernel(hal::OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    if (input.dims != output.dims || !holdsElements(input) || !holdsElements(output)) return false;
    if (!castable(input.type) && output.type == input.type) {
        const uint64_t bytes = output.elements() * hal::elementSize(output.type);
        if (bytes > 0) std::memcpy(output.data, input.data, bytes);
        return true;
    }
    if (!castable(input.type) || !castable(output.type)) return false;
    for (uint64_t i = 0; i < output.elements(); ++i) writeElement(output, i, readElement(input, i));
    return true;
}

}  // namespace nnemu::cpu
