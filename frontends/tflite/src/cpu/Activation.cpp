// Activations NNAPI at feature level 29 has no operation for, with TFLite's kernels' semantics:
// - RELU, RELU6, RELU_N1_TO_1 (uint8/int8): (x - in_zp) requantized by in_scale / out_scale and
//   clamped to the bounds on the output's scale (NNAPI has them, keeping the input's
//   quantization; a rescaling one runs here off the delegate, TfliteKernelForms.cpp); RELU and
//   RELU_N1_TO_1 float32: TFLite's way with a denormal input (a signed zero out of RELU, the input
//   itself out of RELU_N1_TO_1; NNAPI's reference does each the other way under the flags that
//   TFLite's invoke sets), run here off the delegate;
// - RELU_0_TO_1: float32 clamps to [0, 1] (-0 and NaN pass unchanged, as in TFLite's kernel);
//   uint8/int8 requantize (x - in_zp) by in_scale / out_scale and clamp to the quantized [0, 1].
// - GELU: float32 0.5 x erfc(-x / sqrt 2), or with approximate 0.5 x (1 + tanh(sqrt(2/pi) (x +
//   0.044715 x^3))), with Eigen's erfc and tanh as TFLite (EigenFloatMath.h); uint8/int8
//   through a 256-entry table built as TFLite builds its lookup tables (dequantize, transform
//   with the C library's functions in float, round half away from zero, clamp).
// - TANH (float32 only; the 8-bit forms stay NNAPI's, which equal TFLite's): Eigen's rational
//   approximation, as TFLite's float kernel evaluates it (TfliteKernelForms.cpp moves a float
//   TANH that is not delegated here; NNAPI's is the C library's tanh, a few ULP apart).
// - LOGISTIC (float32 only; the 8-bit forms stay NNAPI's, int16 in Activation16.cpp): Eigen's
//   logistic as TFLite's float kernel evaluates it, exp(x / 2)^2 / (1 + exp(x / 2)^2) on whole
//   packets and the C library's expf on the last 0-3 elements, denormal results flushed by the
//   invoke's flags (DenormalFlush.h) (TfliteKernelForms.cpp moves a float LOGISTIC that is not
//   delegated here; NNAPI's reference is 1 / (1 + exp(-x)) with the C library's exp, up to 3 ULP
//   apart).
// - HARD_SWISH (float32 only; the 8-bit forms stay NNAPI's): (in * min(6, max(0, in + 3))) * (1 / 6)
//   in float, as TFLite's optimized kernel computes it (its reference divides by 6: other bits) (NNAPI's reference evaluates it in double: an ULP
//   apart on some values, and slower; TfliteKernelForms.cpp moves a float HARD_SWISH that is not
//   delegated here).
// - FAKE_QUANT (float32): quantize to num_bits over the [min, max] range nudged so that 0 is
//   exact, and dequantize again; narrow_range is refused as TFLite refuses it at run time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "nnemu/base/Clones.h"
#include "CpuKernelList.h"
#include "EigenFloatMath.h"
#include "Elementwise.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::activation {

bool quantizedScales(const CpuKernelCall& call) {
    for (const CpuOperand* operand : {&call.in(0), &call.out(0)}) {
        if (!(operand->tensor->scale > 0) || !std::isfinite(operand->tensor->scale) || operand->tensor->isPerChannel()) {
            return call.fail("quantized tensors need one positive scale");
        }
    }
    return true;
}

// ---- RELU_0_TO_1 ----

bool prepareRelu0To1(const CpuKernelCall& call) {
    if (!prepareSameShape(call, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8})) return false;
    return call.in(0).type() == ElementType::FLOAT32 || quantizedScales(call);
}

// (x - in_zp) requantized by in_scale / out_scale onto the output's zero point, clamped to
// [low, high] and the type's range, as TFLite's quantized ReluX.
template <typename T>
void requantizedClamp(const CpuKernelCall& call, int32_t low, int32_t high) {
    const Tensor &in = *call.in(0).tensor, &out = *call.out(0).tensor;
    int32_t multiplier;
    int shift;
    quant::quantizeMultiplier(static_cast<double>(in.scale / out.scale), &multiplier, &shift);
    low = std::max<int32_t>(std::numeric_limits<T>::min(), low);
    high = std::min<int32_t>(std::numeric_limits<T>::max(), high);
    const int32_t inZero = in.zeroPoint, outZero = out.zeroPoint;
    mapElements<T>(call, [=](T x) {
        const int32_t value = outZero + quant::multiplyByQuantizedMultiplier(int32_t{x} - inZero, multiplier, shift);
        return static_cast<T>(std::min(high, std::max(low, value)));
    });
}

// The output's zero point plus `bound` on its scale, converted as x86 converts (a huge quotient
// gives INT32_MIN), the sum wrapping as int32 arithmetic does there.
int32_t quantizedBound(const Tensor& out, float bound) {
    const int32_t steps = truncateLikeX86<int32_t>(std::round(bound / out.scale));
    return static_cast<int32_t>(static_cast<uint32_t>(out.zeroPoint) + static_cast<uint32_t>(steps));
}

template <typename T>
void relu0To1Quantized(const CpuKernelCall& call) {
    const Tensor& out = *call.out(0).tensor;
    requantizedClamp<T>(call, out.zeroPoint, quantizedBound(out, 1.0f));
}

bool runRelu0To1(const CpuKernelCall& call) {
    if (!prepareRelu0To1(call)) return false;
    switch (call.in(0).type()) {
        case ElementType::UINT8: relu0To1Quantized<uint8_t>(call); break;
        case ElementType::INT8: relu0To1Quantized<int8_t>(call); break;
        default:
            mapElements<float>(call, [](float x) {
                const float atLeastZero = x < 0.0f ? 0.0f : x;   // -0 and NaN pass, as in TFLite
                return atLeastZero > 1.0f ? 1.0f : atLeastZero;
            });
    }
    return true;
}

// ---- RELU, RELU6, RELU_N1_TO_1, quantized: TFLite requantizes to the output's quantization
// (NNAPI's keep the input's; TfliteKernelForms.cpp runs a rescaling one here off the delegate) ----

bool prepareReluX(const CpuKernelCall& call) {
    if (!prepareSameShape(call, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8, ElementType::INT16})) {
        return false;
    }
    return call.in(0).type() == ElementType::FLOAT32 || quantizedScales(call);
}

// ---- RELU and RELU_N1_TO_1, float: TFLite's kernels run with denormals read as zero (its invoke
// sets the flags, and so does the tools' invoke), and then differ in how a denormal input leaves.
// RELU is Eigen's max(0, x): on every whole 4-float packet a max instruction, which returns the
// operand it read as zero, a signed zero; on the last 0-3 elements a comparison and a select,
// which pass it as it is. RELU_N1_TO_1 compares and selects throughout. NNAPI's reference kernel
// gives other bits for some of them (TfliteKernelForms.cpp moves a float RELU or RELU_N1_TO_1 that
// is not delegated here). RELU6 computes NNAPI's values and stays there. The bits are tested, not
// compared with zero: under the flags a comparison reads a denormal as zero. ----

inline bool isDenormal(float x) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0;
}

void reluFloat(const CpuKernelCall& call) {
    const size_t count = call.in(0).count(), packets = count - count % 4;
    const uint8_t* in = call.in(0).data;
    uint8_t* out = call.out(0).out;
    for (size_t i = 0; i < count; ++i) {
        float x;
        std::memcpy(&x, in + i * sizeof(float), sizeof(float));
        float y = x < 0.0f ? 0.0f : x;   // -0 and NaN pass
        if (isDenormal(x)) y = i < packets ? std::copysign(0.0f, x) : x;
        std::memcpy(out + i * sizeof(float), &y, sizeof(float));
    }
}

void reluN1To1Float(const CpuKernelCall& call) {
    mapElements<float>(call, [](float x) {
        if (isDenormal(x)) return x;
        return x > 1.0f ? 1.0f : (x < -1.0f ? -1.0f : x);   // -0 and NaN pass
    });
}

template <typename T>
void reluXQuantized(const CpuKernelCall& call, float low, float high) {
    const Tensor& out = *call.out(0).tensor;
    requantizedClamp<T>(call, quantizedBound(out, low),
                        std::isinf(high) ? std::numeric_limits<int32_t>::max() : quantizedBound(out, high));
}

bool runReluX(const CpuKernelCall& call, float low, float high, void (*floatForm)(const CpuKernelCall&)) {
    if (!prepareReluX(call)) return false;
    if (call.in(0).type() == ElementType::FLOAT32) {
        if (floatForm == nullptr) return call.fail("the float form runs on NNAPI's kernel");
        floatForm(call);
    } else if (call.in(0).type() == ElementType::UINT8) {
        reluXQuantized<uint8_t>(call, low, high);
    } else if (call.in(0).type() == ElementType::INT8) {
        reluXQuantized<int8_t>(call, low, high);
    } else {
        reluXQuantized<int16_t>(call, low, high);
    }
    return true;
}

bool runRelu(const CpuKernelCall& call) {
    return runReluX(call, 0.0f, std::numeric_limits<float>::infinity(), reluFloat);
}
bool runRelu6(const CpuKernelCall& call) { return runReluX(call, 0.0f, 6.0f, nullptr); }
bool runReluN1To1(const CpuKernelCall& call) { return runReluX(call, -1.0f, 1.0f, reluN1To1Float); }

// ---- GELU ----

float gelu(float x) { return 0.5f * x * std::erfc(x * static_cast<float>(-M_SQRT1_2)); }

float geluApproximate(float x) {
    constexpr float kSqrt2OverPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
    return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

// The float kernel evaluates the same formulas with Eigen's approximations, in Eigen's order
// (the cube first), as TFLite's float kernel does; its lookup tables use the C library's.
// Inlined into the element loops (too large for the compiler to choose it), so that they vectorize.
[[gnu::always_inline]] inline float geluEigen(float x) { return 0.5f * x * eigen::erfc(x * static_cast<float>(-M_SQRT1_2)); }

[[gnu::always_inline]] inline float geluApproximateEigen(float x) {
    constexpr float kSqrt2OverPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
    const float cube = x * x * x;
    return 0.5f * x * (1.0f + eigen::tanh(kSqrt2OverPi * (x + 0.044715f * cube)));
}

// The float loops (GELU, TANH), one build per vector unit (target_clones; the file is compiled without FMA
// contraction, so every build rounds as Eigen does without FMA, and without jump threading,
// which would turn the clamps into branches the AVX builds cannot vectorize).
#define NNEMU_FLOAT_LOOP_CLONES NNEMU_CLONES

// y = f(x) over the floats [begin, end) of `in` into `out` (inlined into each clone's loop, so
// that it vectorizes there).
template <typename F>
[[gnu::always_inline]] inline void mapFloats(const uint8_t* in, uint8_t* out, size_t begin, size_t end, F f) {
    for (size_t i = begin; i < end; ++i) {
        float x;
        std::memcpy(&x, in + i * sizeof(float), sizeof(float));
        const float y = f(x);
        std::memcpy(out + i * sizeof(float), &y, sizeof(float));
    }
}

[[gnu::always_inline]] inline float geluSmallEigen(float x) {
    return 0.5f * x * eigen::erfcSmall(x * static_cast<float>(-M_SQRT1_2));
}

// Eigen's erfc returns early with its small-argument polynomial for a packet whose arguments all
// have x^2 <= 1 (GELU's common inputs). Here: that polynomial over each run of 64, then the whole
// formula again over the run if it holds a larger argument, straight away after such a run (the
// same bits either way: erfc selects the polynomial for those lanes). Inputs spread as N(0, 1)
// take about the whole formula's time; the benchmark's [-0.5, 0.5] a third of it.
NNEMU_FLOAT_LOOP_CLONES void geluLoop(const uint8_t* in, uint8_t* out, size_t count) {
    const auto* x = reinterpret_cast<const float*>(in);
    auto* y = reinterpret_cast<float*>(out);
    constexpr size_t kRun = 64;
    bool lastLarge = false;
    for (size_t begin = 0; begin < count; begin += kRun) {
        const size_t end = std::min(count, begin + kRun);
        int large = 0;
        if (lastLarge) {   // the previous run needed the whole formula: likely this one too
            for (size_t i = begin; i < end; ++i) {
                y[i] = geluEigen(x[i]);
                large |= eigen::erfcNeedsLarge(x[i] * static_cast<float>(-M_SQRT1_2)) ? 1 : 0;
            }
            lastLarge = large != 0;
            continue;
        }
        for (size_t i = begin; i < end; ++i) {
            y[i] = geluSmallEigen(x[i]);
            large |= eigen::erfcNeedsLarge(x[i] * static_cast<float>(-M_SQRT1_2)) ? 1 : 0;
        }
        if (large == 0) continue;
        for (size_t i = begin; i < end; ++i) y[i] = geluEigen(x[i]);
        lastLarge = true;
    }
}

NNEMU_FLOAT_LOOP_CLONES void geluApproximateLoop(const uint8_t* in, uint8_t* out, size_t count) {
    mapFloats(in, out, 0, count, [](float x) { return geluApproximateEigen(x); });
}

bool prepareGelu(const CpuKernelCall& call) {
    if (!prepareSameShape(call, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8})) return false;
    return call.in(0).type() == ElementType::FLOAT32 || quantizedScales(call);
}

// TFLite's 8-bit lookup table for `transform`, indexed by the stored byte.
template <typename T>
void buildTable(const Tensor& in, const Tensor& out, float (*transform)(float), T* table) {
    const float inverseScale = 1.0f / out.scale;
    const int32_t low = std::numeric_limits<T>::min(), high = std::numeric_limits<T>::max();
    for (int32_t value = low; value <= high; ++value) {
        const float real = in.scale * static_cast<float>(value - in.zeroPoint);
        const float rescaled = std::round(transform(real) * inverseScale);
        const int32_t quantized = truncateLikeX86<int32_t>(rescaled + static_cast<float>(out.zeroPoint));
        table[static_cast<uint8_t>(static_cast<T>(value))] = static_cast<T>(std::clamp(quantized, low, high));
    }
}

template <typename T>
void mapThroughTable(const CpuKernelCall& call, float (*transform)(float)) {
    T table[256];
    buildTable<T>(*call.in(0).tensor, *call.out(0).tensor, transform, table);
    mapElements<T>(call, [&](T x) { return table[static_cast<uint8_t>(x)]; });
}

bool runGelu(const CpuKernelCall& call) {
    if (!prepareGelu(call)) return false;
    const auto* options = call.params<TfLiteGeluParams>();
    const bool approximate = options != nullptr && options->approximate;
    float (*transform)(float) = approximate ? geluApproximate : gelu;
    switch (call.in(0).type()) {
        case ElementType::UINT8: mapThroughTable<uint8_t>(call, transform); break;
        case ElementType::INT8: mapThroughTable<int8_t>(call, transform); break;
        default:
            (approximate ? geluApproximateLoop : geluLoop)(call.in(0).data, call.out(0).out, call.in(0).count());
    }
    return true;
}

// ---- LEAKY_RELU (int16: NNAPI has no form; the 8-bit and float ones are lowered to PRELU).
// TFLite's quantized kernel: the offset value times in_scale / out_scale where it is not
// negative, times in_scale * alpha / out_scale below (two Q31 multipliers from float quotients),
// plus the output's zero point, clamped.

//
// Under TFLite's default delegate (call.xnnpack(), uint8 and int8 only): XNNPACK's arithmetic. Its
// two multipliers are in_scale / out_scale and that times alpha (float products) in units of
// 2^-8, rounded to nearest even; the offset value times the one for its sign, plus 128, shifted
// right by 8 (rounding half up), plus the output's zero point, clamped. The delegate leaves the
// node (prepare fails) for a positive ratio outside [2^-8, 2^7] or a negative one whose magnitude
// is below 2^-8 or which leaves [-0x1.FFFCp+6, 2^7].

struct XnnpackLeakyMultipliers {
    int32_t positive = 0, negative = 0;
};

bool xnnpackLeakyMultipliers(const CpuKernelCall& call, XnnpackLeakyMultipliers* m) {
    const float alpha = call.params<TfLiteLeakyReluParams>()->alpha;
    const float positiveScale = call.in(0).tensor->scale / call.out(0).tensor->scale;
    const float negativeScale = positiveScale * alpha;
    if (!(positiveScale >= 0x1.0p-8f && positiveScale <= 0x1.0p+7f && negativeScale <= 0x1.0p+7f &&
          negativeScale >= -0x1.FFFC00p+6f && std::fabs(negativeScale) >= 0x1.0p-8f)) {
        return call.fail("scale ratio outside XNNPACK's range for LEAKY_RELU");
    }
    m->positive = static_cast<int32_t>(std::nearbyint(256.0f * positiveScale));
    m->negative = static_cast<int32_t>(std::nearbyint(256.0f * negativeScale));
    return true;
}

template <typename T>
void runXnnpackLeakyRelu(const CpuKernelCall& call, const XnnpackLeakyMultipliers& m) {
    const auto inZero = static_cast<int32_t>(call.in(0).tensor->zeroPoint);
    const auto outZero = static_cast<int32_t>(call.out(0).tensor->zeroPoint);
    mapElements<T>(call, [=](T x) {
        const int32_t value = int32_t{x} - inZero;
        const int32_t scaled = (value * (value >= 0 ? m.positive : m.negative) + 128) >> 8;
        return static_cast<T>(std::clamp<int32_t>(outZero + scaled, std::numeric_limits<T>::min(),
                                                  std::numeric_limits<T>::max()));
    });
}

bool prepareLeakyRelu(const CpuKernelCall& call) {
    const bool eightBit = call.xnnpack() && (call.in(0).type() == ElementType::UINT8 || call.in(0).type() == ElementType::INT8);
    if (eightBit) {
        if (!prepareSameShape(call, {ElementType::UINT8, ElementType::INT8})) return false;
    } else if (!prepareSameShape(call, {ElementType::INT16})) {
        return false;
    }
    if (!quantizedScales(call)) return false;
    if (call.params<TfLiteLeakyReluParams>() == nullptr) return call.fail("missing LeakyReluOptions");
    XnnpackLeakyMultipliers m;
    return !eightBit || xnnpackLeakyMultipliers(call, &m);
}

bool runLeakyRelu(const CpuKernelCall& call) {
    if (!prepareLeakyRelu(call)) return false;
    if (call.in(0).type() != ElementType::INT16) {
        XnnpackLeakyMultipliers m;
        xnnpackLeakyMultipliers(call, &m);
        if (call.in(0).type() == ElementType::UINT8) {
            runXnnpackLeakyRelu<uint8_t>(call, m);
        } else {
            runXnnpackLeakyRelu<int8_t>(call, m);
        }
        return true;
    }
    const Tensor &in = *call.in(0).tensor, &out = *call.out(0).tensor;
    const float alpha = call.params<TfLiteLeakyReluParams>()->alpha;
    int32_t identity = 0, scaled = 0;
    int identityShift = 0, scaledShift = 0;
    // TFLite evaluates both quotients in float, then widens them.
    quant::quantizeMultiplier(static_cast<double>(in.scale / out.scale), &identity, &identityShift);
    quant::quantizeMultiplier(static_cast<double>(in.scale * alpha / out.scale), &scaled, &scaledShift);
    const auto inZero = static_cast<int32_t>(in.zeroPoint), outZero = static_cast<int32_t>(out.zeroPoint);
    mapElements<int16_t>(call, [=](int16_t x) {
        const int32_t value = int32_t{x} - inZero;
        const int32_t result = outZero + (value >= 0 ? quant::multiplyByQuantizedMultiplier(value, identity, identityShift)
                                                     : quant::multiplyByQuantizedMultiplier(value, scaled, scaledShift));
        return static_cast<int16_t>(std::clamp<int32_t>(result, std::numeric_limits<int16_t>::min(),
                                                        std::numeric_limits<int16_t>::max()));
    });
    return true;
}

// ---- ELU (int8: TFLite's lookup table of exp(x) - 1 below zero, x above; the float form is
// lowered to NNAPI's ELU)

float elu(float x) { return x < 0.0f ? std::exp(x) - 1.0f : x; }

bool prepareElu(const CpuKernelCall& call) {
    return prepareSameShape(call, {ElementType::INT8}) && quantizedScales(call);
}

bool runElu(const CpuKernelCall& call) {
    if (!prepareElu(call)) return false;
    mapThroughTable<int8_t>(call, elu);
    return true;
}

// ---- HARD_SWISH (float) ----

// TFLite's optimized expression, operands in its order (a NaN input stays NaN: max(0, NaN) is 0).
// Found against tflite_run --xnnpack=0 on 401,408 values: x * g / 6, x * (g / 6) and the double
// evaluation each differ on about a third of them.
[[gnu::always_inline]] inline float hardSwishTflite(float x) {
    return x * std::min(6.0f, std::max(0.0f, x + 3.0f)) * (1.0f / 6.0f);
}

NNEMU_FLOAT_LOOP_CLONES void hardSwishLoop(const uint8_t* in, uint8_t* out, size_t count) {
    mapFloats(in, out, 0, count, [](float x) { return hardSwishTflite(x); });
}

bool prepareHardSwish(const CpuKernelCall& call) { return prepareSameShape(call, {ElementType::FLOAT32}); }

bool runHardSwish(const CpuKernelCall& call) {
    if (!prepareHardSwish(call)) return false;
    hardSwishLoop(call.in(0).data, call.out(0).out, call.in(0).count());
    return true;
}

// ---- TANH (float) ----

NNEMU_FLOAT_LOOP_CLONES void tanhLoop(const uint8_t* in, uint8_t* out, size_t count) {
    mapFloats(in, out, 0, count, [](float x) { return eigen::tanh(x); });
}

bool prepareTanh(const CpuKernelCall& call) { return prepareSameShape(call, {ElementType::FLOAT32}); }

bool runTanh(const CpuKernelCall& call) {
    if (!prepareTanh(call)) return false;
    tanhLoop(call.in(0).data, call.out(0).out, call.in(0).count());
    return true;
}

// ---- LOGISTIC (float) ----

// Eigen's assignment evaluates every whole 4-float packet of the flat tensor (TFLite's SSE
// build; its arena aligns each tensor, so the packets start at the first element) and the last
// 0-3 elements one at a time, by another formula.
NNEMU_FLOAT_LOOP_CLONES void logisticLoop(const uint8_t* in, uint8_t* out, size_t count) {
    const size_t packets = count - count % 4;
    mapFloats(in, out, 0, packets, [](float x) { return eigen::logistic(x); });
    mapFloats(in, out, packets, count, [](float x) { return eigen::logisticScalar(x); });
}

bool prepareLogistic(const CpuKernelCall& call) { return prepareSameShape(call, {ElementType::FLOAT32}); }

bool runLogistic(const CpuKernelCall& call) {
    if (!prepareLogistic(call)) return false;
    logisticLoop(call.in(0).data, call.out(0).out, call.in(0).count());
    return true;
}

// ---- FAKE_QUANT ----

struct NudgedRange {
    float min, max, scale;
};

// The range [min, max] over 0 .. 2^bits - 1, moved so that the zero point is an integer.
NudgedRange nudge(float min, float max, int bits) {
    const float quantMin = 0.0f, quantMax = static_cast<float>((1 << bits) - 1);
    NudgedRange r;
    r.scale = (max - min) / (quantMax - quantMin);
    const float zeroFromMin = quantMin - min / r.scale;
    uint16_t zero;
    if (zeroFromMin < quantMin) {
        zero = 0;
    } else if (zeroFromMin > quantMax) {
        zero = static_cast<uint16_t>(quantMax);
    } else {
        zero = static_cast<uint16_t>(std::round(zeroFromMin));
    }
    r.min = (quantMin - zero) * r.scale;
    r.max = (quantMax - zero) * r.scale;
    return r;
}

bool prepareFakeQuant(const CpuKernelCall& call) {
    if (!prepareSameShape(call, {ElementType::FLOAT32})) return false;
    const auto* options = call.params<TfLiteFakeQuantParams>();
    if (options == nullptr) return call.fail("FAKE_QUANT needs its options (min, max, num_bits)");
    if (options->narrow_range) {
        return call.fail("narrow_range FAKE_QUANT is not supported at run time (as in TFLite: it is meant for weights)");
    }
    if (options->num_bits < 2 || options->num_bits > 16) {
        return call.fail("num_bits " + std::to_string(options->num_bits) + " is outside [2, 16]");
    }
    if (!(options->min < options->max) || !std::isfinite(options->min) || !std::isfinite(options->max)) {
        return call.fail("min " + std::to_string(options->min) + " must be below max " + std::to_string(options->max));
    }
    return true;
}

bool runFakeQuant(const CpuKernelCall& call) {
    if (!prepareFakeQuant(call)) return false;
    const auto* options = call.params<TfLiteFakeQuantParams>();
    const NudgedRange r = nudge(options->min, options->max, options->num_bits);
    const float inverseScale = 1.0f / r.scale;
    mapElements<float>(call, [=](float x) {
        const float clamped = std::min(r.max, std::max(r.min, x));
        return std::round((clamped - r.min) * inverseScale) * r.scale + r.min;
    });
    return true;
}

}  // namespace kernels::activation

}  // namespace nnemu::tflite
