// int16 LOGISTIC and TANH (NNAPI has no int16 form; the other types are lowered, float TANH and
// LOGISTIC run in Activation.cpp). TFLite 2.21: input and output zero points 0, the output scale 2^-15.
// - An input scale 2^(e - 12) with e = 0 (TANH also e = 1) is its power-of-two path: gemmlowp's
//   16-bit fixed-point function on the value as Q3.12 (doubled, saturating, for e = 1).
// - Otherwise its lookup path: the value times an integer multiplier (scale * 4096 * 3, doubled
//   with the shift until above 32767 / 2, truncated), shifted back with rounding; the magnitude
//   interpolated in the 256-entry table of sigmoid(i / 24) in 0.16 (LOGISTIC over steps of 2^9,
//   TANH over steps of 2^8 as 2 * sigmoid(2x) - 1), mirrored for negative values, then rounded
//   to 16 bits with TFLite's offsets.
#include <cmath>
#include <cstdlib>

#include "CpuKernelList.h"
#include "Elementwise.h"
#include "nnemu/kernels/FixedPoint16.h"

namespace nnemu::tflite::kernels::activation16 {
namespace {

// sigmoid(i / 24) in 0.16 fixed point, the values TFLite tabulates (each within one step of
// 2^16 * sigmoid(i / 24), the last capped at 65535): its results depend on these exact values.
constexpr uint16_t kSigmoid[256] = {
        32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
        43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
        51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
        57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
        61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
        63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
        64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
        64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
        65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
        65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
        65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
        65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
        65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
        65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
        65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
        65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

// What TFLite's Prepare derives: multiplier 0 for the power-of-two path.
struct Plan {
    int32_t multiplier = 0;
    int leftShift = 0;
};

bool plan(const CpuKernelCall& call, bool tanh, Plan* p) {
    if (!prepareSameShape(call, {ElementType::INT16})) return false;
    const Tensor &in = *call.in(0).tensor, &out = *call.out(0).tensor;
    if (in.zeroPoint != 0 || out.zeroPoint != 0) return call.fail("int16 input and output need zero point 0");
    if (!(in.scale > 0)) return call.fail("the input needs a positive scale");
    int outLog2 = 0;
    if (!(out.scale > 0) || !checkedLog2(out.scale, &outLog2) || outLog2 != -15) {
        return call.fail("the int16 output's scale must be 2^-15");
    }
    int inLog2 = 0;
    const bool pot = checkedLog2(in.scale, &inLog2);
    p->leftShift = 12 + inLog2;
    if (pot && (p->leftShift == 0 || (tanh && p->leftShift == 1))) {
        p->multiplier = 0;
        return true;
    }
    double multiplier = static_cast<double>(in.scale) * 4096.0 * 3.0;
    p->leftShift = 0;
    while (multiplier <= 32767.0 / 2.0 && p->leftShift <= 30) {
        ++p->leftShift;
        multiplier *= 2.0;
    }
    p->multiplier = truncateLikeX86<int32_t>(multiplier);  // past int32 (a huge input scale): as cvttsd2si
    return true;
}

// The lookup path's scaled input.
int32_t scaled(int16_t x, const Plan& p) {
    const int32_t round = p.leftShift > 0 ? int32_t{1} << (p.leftShift - 1) : 0;
    return static_cast<int32_t>((int64_t{x} * p.multiplier + round) >> p.leftShift);
}

// The table interpolated at a magnitude with `fractionBits` bits below each entry's step (in
// 0.16 + fractionBits), `saturated` from entry 255 on.
uint32_t interpolated(uint32_t magnitude, int fractionBits, uint32_t saturated) {
    const uint32_t step = magnitude >> fractionBits;
    if (step >= 255) return saturated;
    const uint32_t low = kSigmoid[step], high = kSigmoid[step + 1];
    return (low << fractionBits) + (magnitude & ((1U << fractionBits) - 1)) * (high - low);
}

// |value| as x86's abs gives it (INT32_MIN stays 2^31).
uint32_t magnitude(int32_t value) { return value < 0 ? 0U - static_cast<uint32_t>(value) : static_cast<uint32_t>(value); }

int16_t logisticByTable(int16_t x, const Plan& p) {
    const int32_t value = scaled(x, p);
    uint32_t result = interpolated(magnitude(value), 9, uint32_t{0x7FFF} << 10);
    result = value >= 0 ? result + (1U << 9) : (1U << 25) - result + (1U << 9) - 1;
    return static_cast<int16_t>(result >> 10);
}

// tanh(x) = 2 * sigmoid(2x) - 1: the same table over steps of 2^8.
int16_t tanhByTable(int16_t x, const Plan& p) {
    const int32_t value = scaled(x, p);
    auto result = static_cast<int32_t>(interpolated(magnitude(value), 8, uint32_t{0xFFFF} << 8));
    result = value >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
    return static_cast<int16_t>(result >> 8);
}

template <bool kTanh>
bool run(const CpuKernelCall& call) {
    Plan p;
    if (!plan(call, kTanh, &p)) return false;
    if (p.multiplier > 0) {
        mapElements<int16_t>(call, [p](int16_t x) { return kTanh ? tanhByTable(x, p) : logisticByTable(x, p); });
        return true;
    }
    // The power-of-two path: the value as Q3.12 (doubled for a shift of 1), gemmlowp's function.
    const int shift = p.leftShift;
    mapElements<int16_t>(call, [shift](int16_t x) {
        const int16_t q3 = shift == 1 ? quant::fixed16::multiplyByPOT(x, 1) : x;
        return kTanh ? quant::fixed16::tanh(q3, 3) : quant::fixed16::logistic(q3, 3);
    });
    return true;
}

}  // namespace

bool prepareLogistic(const CpuKernelCall& call) {
    if (call.inputs.size() == 1 && call.in(0).present() && call.in(0).type() == ElementType::FLOAT32) {
        return activation::prepareLogistic(call);
    }
    Plan p;
    return plan(call, false, &p);
}
bool runLogistic(const CpuKernelCall& call) {
    if (call.inputs.size() == 1 && call.in(0).present() && call.in(0).type() == ElementType::FLOAT32) {
        return activation::runLogistic(call);
    }
    return run<false>(call);
}

bool prepareTanh(const CpuKernelCall& call) {
    if (call.inputs.size() == 1 && call.in(0).present() && call.in(0).type() == ElementType::FLOAT32) {
        return activation::prepareTanh(call);
    }
    Plan p;
    return plan(call, true, &p);
}
bool runTanh(const CpuKernelCall& call) {
    if (call.inputs.size() == 1 && call.in(0).present() && call.in(0).type() == ElementType::FLOAT32) {
        return activation::runTanh(call);
    }
    return run<true>(call);
}

}  // namespace nnemu::tflite::kernels::activation16
