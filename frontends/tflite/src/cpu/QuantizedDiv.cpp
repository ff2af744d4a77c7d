// uint8 DIV (NNAPI's DIV is float and int32 only; those are lowered). TFLite 2.21's quantized
// kernel, per element: the offset dividend and divisor (both negated when the divisor is
// negative), the divisor's reciprocal in Q31 fixed point (gemmlowp's Newton-Raphson for
// 1 / (1 + x)), the dividend normalized by its headroom and multiplied by it, then the output
// multiplier scale_1 / (scale_2 * scale_out) (a float quotient) and one rounding shift, the zero
// point, the activation's clamp. A divisor at its zero point (TFLite's kernel leaves it
// undefined) gives the output's zero point here; the shift's own corner (x86RoundingDivideByPOT)
// is TFLite's on x86.
#include <algorithm>

#include "Broadcast.h"
#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite::kernels::quantized_div {
namespace {

constexpr int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();

// x * 2^exponent (exponent > 0), saturating.
int32_t saturatingShiftLeft(int32_t x, int exponent) {
    const int32_t threshold = (int32_t{1} << (31 - exponent)) - 1;
    if (x > threshold) return kMax;
    if (x < -threshold) return kMin;
    return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

// (a + b) / 2 rounded half away from zero.
int32_t roundingHalfSum(int32_t a, int32_t b) {
    const int64_t sum = int64_t{a} + b;
    return static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

// 1 / (1 + a) for a in [0, 1), Q0 in and out (raw values): three Newton-Raphson steps on
// (1 + a) / 2 in Q2, from 48/17 - 32/17 * d.
int32_t oneOverOnePlus(int32_t a) {
    const int32_t halfDenominator = roundingHalfSum(a, kMax);   // Q0's one saturates
    constexpr int32_t k48Over17 = 1515870810, kMinus32Over17 = -1010580540, kOneQ2 = int32_t{1} << 29;
    int32_t x = static_cast<int32_t>(static_cast<uint32_t>(k48Over17) +
                                     static_cast<uint32_t>(quant::saturatingRoundingDoublingHighMul(halfDenominator, kMinus32Over17)));
    for (int i = 0; i < 3; ++i) {
        const int32_t product = quant::saturatingRoundingDoublingHighMul(halfDenominator, x);   // Q2
        const auto remainder = static_cast<int32_t>(static_cast<uint32_t>(kOneQ2) - static_cast<uint32_t>(product));
        const int32_t step = saturatingShiftLeft(quant::saturatingRoundingDoublingHighMul(x, remainder), 2);   // Q4 to Q2
        x = static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(step));
    }
    return saturatingShiftLeft(x, 1);   // x / 2 as Q1, rescaled to Q0
}

int countLeadingZeros(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }

int countLeadingSignBits(int32_t x) {
    if (x >= 0) return countLeadingZeros(static_cast<uint32_t>(x)) - 1;
    if (x == kMin) return 0;
    return countLeadingZeros(2 * static_cast<uint32_t>(-int64_t{x}) - 1);
}

// 1 / x for x > 0 as a Q31 value times 2^shift.
int32_t reciprocal(int32_t x, int* shift) {
    const int headroomPlusOne = countLeadingZeros(static_cast<uint32_t>(x));
    *shift = 31 - headroomPlusOne;
    const auto shiftedMinusOne = static_cast<int32_t>((static_cast<uint32_t>(x) << headroomPlusOne) - (uint32_t{1} << 31));
    return oneOverOnePlus(shiftedMinusOne);
}

// x / 2^exponent rounded half away from zero, as TFLite's compiled kernel computes it for any
// exponent: small dividends with large divisors reach exponents of 32 and more, where its
// rounding mask is computed in 64 bits ((1 << exponent) - 1, truncated to 32: all ones) and
// x86's 32-bit shift takes the exponent modulo 32, so the quotient comes out far too large (the
// activation's clamp then gives a bound). Within [0, 31] it is the exact rounding division.
int32_t x86RoundingDivideByPOT(int32_t x, int exponent) {
    const auto mask = static_cast<int32_t>((uint64_t{1} << (static_cast<unsigned>(exponent) & 63U)) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> (static_cast<unsigned>(exponent) & 31U)) + (remainder > threshold ? 1 : 0);
}

struct Params {
    int32_t offset1, offset2, outZero, multiplier, low, high;
    int shift;
};

uint8_t divide(const Params& p, uint8_t a, uint8_t b) {
    int32_t dividend = p.offset1 + a, divisor = p.offset2 + b;
    if (divisor == 0) return static_cast<uint8_t>(std::clamp(p.outZero, p.low, p.high));
    if (divisor < 0) {
        dividend = -dividend;
        divisor = -divisor;
    }
    int reciprocalShift = 0;
    const int32_t inverse = reciprocal(divisor, &reciprocalShift);
    const int headroom = countLeadingSignBits(dividend);
    const auto normalized = static_cast<int32_t>(static_cast<uint32_t>(dividend) << headroom);
    const int32_t quotient = quant::saturatingRoundingDoublingHighMul(normalized, inverse);
    const int totalShift = p.shift - reciprocalShift - headroom;
    const int32_t scaled = x86RoundingDivideByPOT(quant::saturatingRoundingDoublingHighMul(quotient, p.multiplier), -totalShift);
    return static_cast<uint8_t>(std::clamp(p.outZero + scaled, p.low, p.high));
}

}  // namespace

bool prepareDiv(const CpuKernelCall& call) {
    if (!prepareBroadcastBinary(call, {ElementType::UINT8})) return false;
    if (call.params<TfLiteDivParams>() == nullptr) return call.fail("missing DivOptions");
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    if (!(a.scale > 0) || !(b.scale > 0) || !(out.scale > 0)) return call.fail("quantized tensors need positive scales");
    int32_t multiplier = 0;
    int shift = 0;
    quant::quantizeMultiplier(static_cast<double>(a.scale / (b.scale * out.scale)), &multiplier, &shift);
    // A dividend's headroom is at least 23 bits: below 2^16 every quotient's final shift is a
    // right shift, as TFLite's kernel needs.
    if (shift > 16) return call.fail("output multiplier " + std::to_string(a.scale / (b.scale * out.scale)) + " out of range");
    return true;
}

bool runDiv(const CpuKernelCall& call) {
    if (!prepareDiv(call)) return false;
    const Tensor &a = *call.in(0).tensor, &b = *call.in(1).tensor, &out = *call.out(0).tensor;
    Params p{};
    p.offset1 = -static_cast<int32_t>(a.zeroPoint);
    p.offset2 = -static_cast<int32_t>(b.zeroPoint);
    p.outZero = static_cast<int32_t>(out.zeroPoint);
    quant::quantizeMultiplier(static_cast<double>(a.scale / (b.scale * out.scale)), &p.multiplier, &p.shift);
    quant::quantizedActivationRange(static_cast<int32_t>(call.params<TfLiteDivParams>()->activation), out.scale,
                                    p.outZero, 0, 255, &p.low, &p.high);
    std::vector<int32_t> shape;
    broadcastShape(call.in(0).shape(), call.in(1).shape(), &shape);
    const auto* x = call.in(0).data;
    const auto* y = call.in(1).data;
    uint8_t* o = call.out(0).out;
    forEachBroadcast(call.in(0).shape(), call.in(1).shape(), shape,
                     [&](size_t i, size_t ia, size_t ib) { o[i] = divide(p, x[ia], y[ib]); });
    return true;
}

}  // namespace nnemu::tflite::kernels::quantized_div
