// Quantized L2_NORMALIZATION (uint8, int8) over the last dimension as TFLite's builtin kernel
// computes it: the row's sum of squared offsets, its inverse square root as a Q31 multiplier and
// a shift by TFLite's fixed-point Newton-Raphson (five steps from 1, three integer bits), then
// each offset scaled by it: uint8 (TFLite's optimized kernel) 128 + (128 * offset) * inv,
// int8 (its reference integer kernel) offset * inv * 2^7, clamped. TFLite requires the output
// quantization 1/128 with zero point 128 (uint8) or 0 (int8). NNAPI's reference divides in
// double, which differs by one step on some values.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "CpuKernelList.h"
#include "Elementwise.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::l2_norm {
namespace {

constexpr int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();

// x * 2^exponent for exponent > 0, saturating as gemmlowp's SaturatingRoundingMultiplyByPOT.
int32_t shiftLeftSaturating(int32_t x, int exponent) {
    const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
    if (x > threshold) return kMax;
    if (x < -threshold) return kMin;
    return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

// 1/sqrt(sum) as a Q31 multiplier and a (left) shift, as TFLite's GetInvSqrtQuantizedMultiplierExp
// with reverse_shift -1.
void inverseSqrt(int32_t sum, int32_t* multiplier, int* shift) {
    if (sum <= 1) {
        *multiplier = kMax;
        *shift = 0;
        return;
    }
    int rightShift = 11;
    while (sum >= (1 << 29)) {
        sum /= 4;
        ++rightShift;
    }
    const auto pairs = static_cast<unsigned>(__builtin_clz(static_cast<uint32_t>(sum)) - 1) / 2 - 1;
    rightShift -= static_cast<int>(pairs);
    sum <<= 2 * pairs;
    // Three integer bits: raw / 2^28. Products of Fa and Fb have a + b integer bits.
    const auto mul = quant::saturatingRoundingDoublingHighMul;
    const int32_t halfInput = quant::roundingDivideByPOT(sum >> 1, 1);
    const int32_t threeHalves = (1 << 28) + (1 << 27);
    int32_t x = 1 << 28;
    for (int i = 0; i < 5; ++i) {
        const int32_t cube = shiftLeftSaturating(mul(mul(x, x), x), 6);
        const auto difference = static_cast<int32_t>(static_cast<uint32_t>(mul(threeHalves, x)) -
                                                     static_cast<uint32_t>(mul(halfInput, cube)));
        x = shiftLeftSaturating(difference, 3);
    }
    x = mul(x, 1518500250);   // sqrt(2) / 2 in Q31
    if (rightShift < 0) {
        x = static_cast<int32_t>(static_cast<uint32_t>(x) << -rightShift);
        rightShift = 0;
    }
    *multiplier = x;
    *shift = -rightShift;
}

template <typename T>
void normalize(const CpuKernelCall& call) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const auto zero = static_cast<int32_t>(in.tensor->zeroPoint);
    const size_t depth = static_cast<size_t>(in.shape().back()), rows = depth == 0 ? 0 : in.count() / depth;
    for (size_t r = 0; r < rows; ++r) {
        const size_t base = r * depth;
        int32_t sum = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t offset = in.at<T>(base + c) - zero;
            sum += offset * offset;
        }
        int32_t multiplier = 0;
        int shift = 0;
        inverseSqrt(sum, &multiplier, &shift);
        for (size_t c = 0; c < depth; ++c) {
            const int32_t offset = in.at<T>(base + c) - zero;
            int32_t value = 0;
            if constexpr (std::is_same_v<T, uint8_t>) {
                value = 128 + quant::roundingDivideByPOT(quant::saturatingRoundingDoublingHighMul(128 * offset, multiplier),
                                                         -shift);
            } else {
                value = quant::multiplyByQuantizedMultiplier(offset, multiplier, shift + 7);
            }
            out.set<T>(base + c, static_cast<T>(std::clamp<int32_t>(value, std::numeric_limits<T>::min(),
                                                                    std::numeric_limits<T>::max())));
        }
    }
}

}  // namespace

bool prepareQuantized(const CpuKernelCall& call) {
    const auto* options = call.params<TfLiteL2NormParams>();
    if (options != nullptr && options->activation != kTfLiteActNone) return call.fail("fused activations are not supported");
    return prepareFixedOutput8(call, 1.0f / 128, "1/128", 128, 0);
}

bool runQuantized(const CpuKernelCall& call) {
    if (!prepareQuantized(call)) return false;
    if (call.in(0).type() == ElementType::UINT8) {
        normalize<uint8_t>(call);
    } else {
        normalize<int8_t>(call);
    }
    return true;
}

}  // namespace kernels::l2_norm
}  // namespace nnemu::tflite
