// QUANTIZE and DEQUANTIZE as TFLite's builtin kernels (its x86 build) compute them.
// QUANTIZE to uint8, int8 or int16: from a quantized tensor (uint8, int8, int16) it requantizes
// with scale_in / scale_out (in double) as a Q31 multiplier and a shift, applied in fixed point
// to each offset value, plus the output's zero point, clamped (nnemu lowers the form as NNAPI
// DEQUANTIZE + QUANTIZE through float, a step off on some values); from float it rounds
// x / scale with the quotient in double (NNAPI's QUANTIZE divides in float), plus the zero point,
// clamped. DEQUANTIZE of int16 (NNAPI has no int16 form): (q - zero point) * scale, the product in
// double rounded to float once (the same float as NNAPI's 8-bit product).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::quantization {
namespace {

int32_t storedAt(const CpuOperand& operand, size_t i) {
    switch (operand.type()) {
        case ElementType::UINT8: return operand.at<uint8_t>(i);
        case ElementType::INT8: return operand.at<int8_t>(i);
        default: return operand.at<int16_t>(i);
    }
}

template <typename Out>
void quantizeFloatTo(const CpuKernelCall& call) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const auto scale = static_cast<double>(out.tensor->scale);
    const auto zero = static_cast<int32_t>(out.tensor->zeroPoint);
    for (size_t i = 0, n = in.count(); i < n; ++i) {
        out.set<Out>(i, static_cast<Out>(quant::quantizeSaturated(static_cast<double>(in.at<float>(i)) / scale, zero,
                                                                  std::numeric_limits<Out>::min(),
                                                                  std::numeric_limits<Out>::max())));
    }
}

template <typename Out>
void requantizeTo(const CpuKernelCall& call) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    if (in.type() == ElementType::FLOAT32) return quantizeFloatTo<Out>(call);
    int32_t multiplier = 0;
    int shift = 0;
    quant::quantizeMultiplier(static_cast<double>(in.tensor->scale) / static_cast<double>(out.tensor->scale), &multiplier,
                              &shift);
    const auto inZero = static_cast<int32_t>(in.tensor->zeroPoint), outZero = static_cast<int32_t>(out.tensor->zeroPoint);
    const auto requantized = [&](int32_t stored) {
        // The zero point added in int32 wrapping, as TFLite's x86 build does (a saturated product
        // near INT32_MAX; the table reaches every byte value, present in the input or not).
        const auto value = static_cast<int32_t>(
                static_cast<uint32_t>(quant::multiplyByQuantizedMultiplier(stored - inZero, multiplier, shift)) +
                static_cast<uint32_t>(outZero));
        return static_cast<Out>(std::clamp<int32_t>(value, std::numeric_limits<Out>::min(), std::numeric_limits<Out>::max()));
    };
    const size_t n = in.count();
    if (in.type() != ElementType::INT16) {
        // An 8-bit input has 256 values: each one's result looked up (a quantized model's input
        // QUANTIZE from uint8 to int8 took 5 % of a MobileNet v2 on the CPU path value by value;
        // the table costs ~1 us, and every 8-bit requantization takes it, so the sweeps check it).
        Out table[256];
        const bool isSigned = in.type() == ElementType::INT8;
        for (int32_t byte = 0; byte < 256; ++byte) table[byte] = requantized(isSigned ? static_cast<int8_t>(byte) : byte);
        for (size_t i = 0; i < n; ++i) out.set<Out>(i, table[in.data[i]]);
        return;
    }
    for (size_t i = 0; i < n; ++i) out.set<Out>(i, requantized(storedAt(in, i)));
}

}  // namespace

bool prepareRequantize(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    const std::initializer_list<ElementType> quantized = {ElementType::UINT8, ElementType::INT8, ElementType::INT16};
    if (!call.expectType(call.in(0), {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8, ElementType::INT16},
                         "input") ||
        !call.expectType(call.out(0), quantized, "output")) {
        return false;
    }
    const bool fromFloat = call.in(0).type() == ElementType::FLOAT32;
    if ((!fromFloat && !(call.in(0).tensor->scale > 0)) || !(call.out(0).tensor->scale > 0)) {
        return call.fail("quantized tensors need scales");
    }
    return call.expectOutputShape(0, call.in(0).shape());
}

bool runRequantize(const CpuKernelCall& call) {
    if (!prepareRequantize(call)) return false;
    switch (call.out(0).type()) {
        case ElementType::UINT8: requantizeTo<uint8_t>(call); break;
        case ElementType::INT8: requantizeTo<int8_t>(call); break;
        default: requantizeTo<int16_t>(call); break;
    }
    return true;
}

bool prepareDequantize(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::INT16}, "input")) return false;
    if (call.out(0).type() != ElementType::FLOAT32) return call.fail("output must be float32");
    if (!(call.in(0).tensor->scale > 0) || call.in(0).tensor->isPerChannel()) {
        return call.fail("input needs one positive scale");
    }
    return call.expectOutputShape(0, call.in(0).shape());
}

bool runDequantize(const CpuKernelCall& call) {
    if (!prepareDequantize(call)) return false;
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const auto scale = static_cast<double>(in.tensor->scale);
    const auto zero = static_cast<int32_t>(in.tensor->zeroPoint);
    for (size_t i = 0, n = in.count(); i < n; ++i) {
        out.set<float>(i, static_cast<float>(scale * (in.at<int16_t>(i) - zero)));
    }
    return true;
}

}  // namespace kernels::quantization
}  // namespace nnemu::tflite
