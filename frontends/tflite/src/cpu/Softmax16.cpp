// int16 SOFTMAX (NNAPI has no int16 form) as TFLite 2.21's SoftmaxInt16: input and output zero
// points 0, the output scale 1/32768. Per row: each difference to the row's maximum scaled by
// the multiplier for scale * beta / (10 / 65535) (so [-10, 0] spans the int16 range), recentred
// and looked up in a 513-entry table of exp over [-10, 0]; the row's sum normalized by its
// leading zeros, its reciprocal from a table of 1 / (1 + x) over [0, 1); each exp times the
// reciprocal, shifted back with rounding, clamped to [0, 32767]. Both tables are built as
// TFLite's softmax builds them (gen_lut in double; its float LUTPopulate differs in a few entries,
// a step off on rare values): samples scaled by 65536 / 2, each lowered by half the error of
// interpolating at the midpoint.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "CpuKernelList.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite::kernels::softmax {
namespace {

constexpr int kSteps = 512;   // table entries: kSteps + 1

using Table = std::array<int16_t, kSteps + 1>;

// TFLite's gen_lut<double, int16_t, int16_t>: `transform` sampled over [inputMin, inputMax] in
// double, the output range [-1, 1] scaled to 65536 / 2.
template <typename F>
Table populate(double inputMin, double inputMax, F transform) {
    const double step = (inputMax - inputMin) / kSteps, halfStep = step / 2;
    const double scaling = 65536.0 / 2.0;
    const auto clampToTable = [](double v) { return static_cast<int16_t>(std::min(std::max(v, -32768.0), 32767.0)); };
    Table table{};
    for (int i = 0; i < kSteps; ++i) {
        const double value = transform(inputMin + i * step);
        const double midpoint = transform(inputMin + i * step + halfStep);
        const double next = transform(inputMin + (i + 1) * step);
        const double sample = std::round(value * scaling);
        const double interpolated = std::round((next * scaling + std::round(value * scaling)) / 2);
        const double error = interpolated - std::round(midpoint * scaling);
        table[static_cast<size_t>(i)] = clampToTable(sample - std::round(error / 2));
    }
    table[kSteps] = clampToTable(std::round(transform(inputMax) * scaling));
    return table;
}

// TFLite's generic_int16_table_lookup: the entry of the top 9 bits, interpolated over the low 7.
int16_t lookup(int16_t value, const Table& table) {
    const auto index = static_cast<size_t>(256 + (value >> 7));
    const int32_t offset = value & 0x7F;
    const int32_t base = table[index], slope = table[index + 1] - table[index];
    return static_cast<int16_t>(base + ((slope * offset + 64) >> 7));
}

struct Tables {
    Table exp, oneOverOnePlusX;
};

const Tables& tables() {
    static const Tables built = [] {
        Tables t;
        t.exp = populate(-10.0, 0.0, [](double v) { return std::exp(v); });
        t.oneOverOnePlusX = populate(0.0, 1.0, [](double v) { return 1.0 / (1.0 + v); });
        return t;
    }();
    return built;
}

}  // namespace

bool prepareInt16(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (call.out(0).type() != ElementType::INT16) return call.fail("output type differs from the input's");
    if (call.in(0).rank() < 1) return call.fail("the input needs at least one dimension");
    if (call.params<TfLiteSoftmaxParams>() == nullptr) return call.fail("missing SoftmaxOptions");
    const Tensor &in = *call.in(0).tensor, &out = *call.out(0).tensor;
    if (in.zeroPoint != 0 || out.zeroPoint != 0) return call.fail("int16 input and output need zero point 0");
    if (!(in.scale > 0)) return call.fail("the input needs a positive scale");
    if (!(std::abs(out.scale - 1.0f / 32768) <= 0.001f / 32768)) return call.fail("the int16 output's scale must be 1/32768");
    return call.expectOutputShape(0, call.in(0).shape());
}

bool runInt16(const CpuKernelCall& call) {
    if (!prepareInt16(call)) return false;
    const Tables& t = tables();
    // scale * beta in float, as TFLite multiplies them, then divided in double.
    const float scaleBeta = call.in(0).tensor->scale * call.params<TfLiteSoftmaxParams>()->beta;
    const double rescale = static_cast<double>(scaleBeta) / (10.0 / 65535.0);
    int32_t multiplier = 0;
    int shift = 0;
    quant::quantizeMultiplier(rescale, &multiplier, &shift);
    const auto* in = reinterpret_cast<const int16_t*>(call.in(0).data);
    auto* out = reinterpret_cast<int16_t*>(call.out(0).out);
    const size_t count = call.in(0).count(), depth = static_cast<size_t>(call.in(0).shape().back());
    if (count == 0 || depth == 0) return true;
    for (size_t r = 0; r < count / depth; ++r) {
        const int16_t* x = in + r * depth;
        int16_t* y = out + r * depth;
        const int32_t largest = *std::max_element(x, x + depth);
        int32_t sum = 0;
        for (size_t i = 0; i < depth; ++i) {   // the exps kept in the output, as TFLite does
            const int32_t scaled = quant::multiplyByQuantizedMultiplier(x[i] - largest, multiplier, shift) + 32767;
            y[i] = lookup(static_cast<int16_t>(std::clamp(scaled, -32768, 32767)), t.exp);
            sum += y[i];
        }
        const int headroomPlusOne = sum == 0 ? 32 : __builtin_clz(static_cast<uint32_t>(sum));
        const auto shiftedSum = static_cast<int32_t>(((static_cast<int64_t>(sum) << (headroomPlusOne - 1)) + (1 << 13)) >> 14);
        const int32_t centred = shiftedSum - ((1 << 15) + (1 << 16));
        const int32_t reciprocal = lookup(static_cast<int16_t>(std::clamp(centred, -32768, 32767)), t.oneOverOnePlusX);
        const int rightShift = 31 - headroomPlusOne;
        const int64_t round = rightShift > 0 ? int64_t{1} << (rightShift - 1) : 0;
        for (size_t i = 0; i < depth; ++i) {
            const auto result = static_cast<int32_t>((int64_t{y[i]} * reciprocal + round) >> rightShift);
            y[i] = static_cast<int16_t>(std::clamp(result, 0, 32767));
        }
    }
    return true;
}

}  // namespace nnemu::tflite::kernels::softmax
