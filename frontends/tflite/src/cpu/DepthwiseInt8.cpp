// The int8 DEPTHWISE_CONV_2D as TFLite 2.21's x86 build computes it (depthwise_conv.cc with its
// generic optimized per-channel kernel; x86 builds have none of the NEON 3x3 or dot-product paths):
// - each output starts at its bias and adds, over the window's taps inside the input, the
//   products (input - input zero point) x weight in int32 (exact);
// - the sum is requantized per output channel as gemmlowp rounds (MultiplyByQuantizedMultiplier:
//   a left shift, the doubling high multiply rounded to nearest, then a right shift rounding half
//   away from zero), plus the output's zero point, clamped to the fused activation's range;
// - the multiplier of each channel comes from the double product of the input and weight scales
//   divided by the output scale (a per-tensor weight scale repeated; conv::MultiplierFrom).
// NNAPI (nnapi-reference) rounds the same way but derives the multipliers from the float product
// of the scales, which moves the low bits of most of them and now and then an output by one step:
// this kernel runs such a node on the CPU path instead (TfliteKernelForms.cpp).
// Output channel ic x multiplier + m reads input channel ic. Each input row is widened once to
// int16 (minus its zero point, each channel repeated `multiplier` times) when a window first
// reaches it, into a ring of the rows one window spans; every output row
// adds tap after tap over its pixels, channels innermost (one vectorized loop per tap and row; a
// 3-wide window row's three taps in one loop where all three lie inside).
#include "DepthwiseInt8.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "ConvInt8.h"
#include "ConvInt8Gemm.h"
#include "CpuThreads.h"
#include "DepthwiseInt8Lanes.h"
#include "Elementwise.h"
#include "nnemu/base/Clones.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite::kernels::depthwise_int8 {
namespace {

struct Plan {
    std::vector<int16_t> filter;   // [taps][channels]
    std::vector<int32_t> bias;     // [channels], 0 without a bias
    std::vector<int32_t> multipliers, leftShifts, rightShifts;
    std::vector<float> scales;     // XNNPACK's arithmetic: per channel (conv::xnnpackScale)
    std::vector<int32_t> wideFilter;   // the register path's filter, [taps][channels] (made at its first run)
    // Per share of the output rows (CpuThreads.h):
    struct Scratch {
        std::vector<int16_t> image;    // the input rows a window reaches, widened, channels repeated
        std::vector<int32_t> slotRows; // which input row each row of `image` holds (-1: none)
        std::vector<int32_t> sums;     // one output row
        std::vector<const uint8_t*> taps;   // the register path: one output row's taps
    };
    std::vector<Scratch> scratch;
};

// The checks, and with a plan its contents.
bool makePlan(const CpuKernelCall& call, Plan* plan) {
    const CpuOperand &in = call.in(0), &filter = call.in(1), &out = call.out(0);
    const auto channels = static_cast<size_t>(filter.shape()[3]);
    if (!filter.known()) return call.fail("int8 depthwise weights must be constant");
    const Tensor& weights = *filter.tensor;
    if (weights.isPerChannel() && (weights.quantizedDimension != 3 || weights.channelScales.size() != channels)) {
        return call.fail("per-channel depthwise weights need one scale per output channel, along dimension 3");
    }
    const bool unsignedForm = weights.type == ElementType::UINT8;
    bool zeroPointsZero = weights.zeroPoint == 0;
    for (size_t c = 0; c < weights.channelScales.size(); ++c) zeroPointsZero = zeroPointsZero && weights.channelZeroPoint(c) == 0;
    if (unsignedForm && weights.isPerChannel()) return call.fail("uint8 weights must be quantized per tensor");
    if (!unsignedForm && !zeroPointsZero) return call.fail("int8 weights must have zero point 0");
    if (!(in.tensor->scale > 0 && out.tensor->scale > 0)) return call.fail("quantized tensors need positive scales");
    if (!zeroPointFits(in.type(), in.tensor->zeroPoint) || !zeroPointFits(out.type(), out.tensor->zeroPoint) ||
        !zeroPointFits(weights.type, weights.zeroPoint)) {
        return call.fail(unsignedForm ? "zero points must lie in [0, 255]" : "zero points must lie in [-128, 127]");
    }
    const bool hasBias = call.inputs.size() == 3 && call.in(2).present();
    if (hasBias) {
        if (!call.expectType(call.in(2), {ElementType::INT32}, "bias")) return false;
        if (call.in(2).count() != channels) return call.fail("bias must have one value per output channel");
    }
    if (plan == nullptr) return true;
    plan->multipliers.resize(channels);
    plan->leftShifts.resize(channels);
    plan->rightShifts.resize(channels);
    plan->bias.assign(channels, 0);
    plan->scales.resize(call.xnnpack() ? channels : 0);
    for (size_t c = 0; c < channels; ++c) {
        int shift = 0;
        const float scale = weights.isPerChannel() ? weights.channelScales[c] : weights.scale;
        if (hasBias) plan->bias[c] = call.in(2).at<int32_t>(c);
        if (call.xnnpack()) {
            plan->scales[c] = conv::xnnpackScale(in.tensor->scale, scale, out.tensor->scale);
            continue;
        }
        conv::channelMultiplier(conv::MultiplierFrom::DoubleProduct, in.tensor->scale, scale, out.tensor->scale,
                                &plan->multipliers[c], &shift);
        if (shift > 30 || shift < -31) return call.fail("requantization multiplier out of range");
        plan->leftShifts[c] = std::max(shift, 0);
        plan->rightShifts[c] = std::max(-shift, 0);
    }
    plan->filter.resize(static_cast<size_t>(filter.shape()[1]) * filter.shape()[2] * channels);
    for (size_t i = 0; i < plan->filter.size(); ++i) {
        plan->filter[i] = static_cast<int16_t>(unsignedForm ? filter.data[i] - weights.zeroPoint
                                                            : static_cast<int8_t>(filter.data[i]));
    }
    return true;
}

// to[p * depth * multiplier + ic * multiplier + m] = from[p * depth + ic] - zero point.
template <typename T>
void widenImage(const T* from, size_t pixels, size_t depth, size_t multiplier, int32_t zeroPoint, int16_t* to) {
    if (multiplier == 1) return conv::widenMinusZeroPoint(from, pixels * depth, zeroPoint, to);  // vectorized
    for (size_t p = 0; p < pixels; ++p) {
        for (size_t ic = 0; ic < depth; ++ic) {
            const auto value = static_cast<int16_t>(from[p * depth + ic] - zeroPoint);
            for (size_t m = 0; m < multiplier; ++m) *to++ = value;
        }
    }
}

// sums[p * channels + c] += in[p * step + c] * weights[c] for `pixels` output pixels: one tap.
NNEMU_CLONES
void addTap(int32_t* sums, const int16_t* in, size_t step, const int16_t* weights, size_t pixels, size_t channels) {
    for (size_t p = 0; p < pixels; ++p, in += step, sums += channels) {
        // Wrapping, as TFLite's int32 sums do on x86 (only a bias near the int32 limits reaches it).
        for (size_t c = 0; c < channels; ++c) {
            sums[c] = static_cast<int32_t>(static_cast<uint32_t>(sums[c]) + static_cast<uint32_t>(int32_t{in[c]} * weights[c]));
        }
    }
}

// sums[p * channels + c] += the three taps of a 3-wide window row, in[p * step + t * tapStep + c] x
// weights[t * channels + c], for `pixels` output pixels whose three taps all lie inside the
// input: one pass over the sums for three taps (addTap's passes over them took most of this
// kernel's time).
NNEMU_CLONES
void addThreeTaps(int32_t* sums, const int16_t* in, size_t step, size_t tapStep, const int16_t* weights, size_t pixels,
                  size_t channels) {
    const int16_t *w0 = weights, *w1 = weights + channels, *w2 = weights + 2 * channels;
    for (size_t p = 0; p < pixels; ++p, in += step, sums += channels) {
        const int16_t *a = in, *b = in + tapStep, *c2 = in + 2 * tapStep;
        for (size_t c = 0; c < channels; ++c) {
            const uint32_t products = static_cast<uint32_t>(int32_t{a[c]} * w0[c] + int32_t{b[c]} * w1[c] + int32_t{c2[c]} * w2[c]);
            sums[c] = static_cast<int32_t>(static_cast<uint32_t>(sums[c]) + products);
        }
    }
}

// gemmlowp's MultiplyByQuantizedMultiplier on each sum (the left shift wraps as TFLite's int32
// multiply does; the multipliers are never negative, so the doubling high multiply never
// saturates), plus the zero point, clamped to [low, high].
NNEMU_CLONES
void requantize(const int32_t* __restrict sums, size_t pixels, size_t channels, const Plan& plan, int32_t zeroPoint,
                int32_t low, int32_t high, int8_t* __restrict out) {
    // In restrict locals: read through `plan` at every channel, an int8 store (which may alias
    // anything) made GCC reload them and keep the loop scalar.
    const int32_t* __restrict leftShifts = plan.leftShifts.data();
    const int32_t* __restrict rightShifts = plan.rightShifts.data();
    const int32_t* __restrict multipliers = plan.multipliers.data();
    for (size_t p = 0; p < pixels; ++p, sums += channels, out += channels) {
        for (size_t c = 0; c < channels; ++c) {
            const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(sums[c]) << leftShifts[c]);
            const int64_t product = int64_t{shifted} * multipliers[c];
            const int64_t nudged = product + (product >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30));
            // nudged / 2^31, truncated toward zero.
            const auto doubled = static_cast<int32_t>((nudged + (nudged < 0 ? (int64_t{1} << 31) - 1 : 0)) >> 31);
            const int32_t exponent = rightShifts[c];
            const auto mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
            const int32_t remainder = doubled & mask, threshold = (mask >> 1) + (doubled < 0 ? 1 : 0);
            const int64_t value = int64_t{doubled >> exponent} + (remainder > threshold ? 1 : 0) + zeroPoint;
            out[c] = static_cast<int8_t>(std::clamp<int64_t>(value, low, high));
        }
    }
}

// The output columns whose tap at input column (column x stride + first) lies inside [0, width):
// from firstInside to endInside.
int32_t firstInside(int32_t first, int32_t stride) { return first >= 0 ? 0 : (-first + stride - 1) / stride; }
int32_t endInside(int32_t first, int32_t width, int32_t stride) {
    return width - first <= 0 ? 0 : (width - first + stride - 1) / stride;
}

std::atomic<bool> registerPathAllowed{true};

// With AVX-512BW (and VL) and a depth multiplier of 1, the sums of each output row come from
// rowSumsAvx512 (DepthwiseInt8Lanes.h); what it is given is made here.
bool registerPath() { return registerPathAllowed.load(std::memory_order_relaxed) && registerPathAvailable(); }

// Output rows [begin, end) of the images (row r: image r / height, row r % height).
template <typename RequantizeRow>
// fp32: XNNPACK's arithmetic, requantized in registers; null: requantizeRow(sums, row) instead.
void runInRegisters(const CpuKernelCall& call, const Plan& plan, const std::vector<int32_t>& bias, Plan::Scratch& scratch,
                    int32_t padTop, int32_t padLeft, size_t begin, size_t end, const conv::Fp32Requantization* fp32,
                    const RequantizeRow& requantizeRow) {
    const CpuOperand &in = call.in(0), &filter = call.in(1), &out = call.out(0);
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape(), &y = out.shape();
    const auto* o = call.params<TfLiteDepthwiseConvParams>();
    const auto channels = static_cast<size_t>(y[3]);
    const size_t count = static_cast<size_t>(w[1]) * w[2];
    const int32_t zeroPoint = in.tensor->zeroPoint;
    const std::vector<uint8_t> padding(channels, static_cast<uint8_t>(zeroPoint));   // a padded tap reads it
    scratch.taps.resize(static_cast<size_t>(y[2]) * count);
    const int32_t sh = o->stride_height, sw = o->stride_width, dh = o->dilation_height_factor, dw = o->dilation_width_factor;
    auto* output = reinterpret_cast<int8_t*>(out.out);
    // A window inside the image reads each tap at a fixed distance from its first.
    std::vector<size_t> inside(count);
    for (int32_t ky = 0; ky < w[1]; ++ky) {
        for (int32_t kx = 0; kx < w[2]; ++kx) {
            inside[static_cast<size_t>(ky) * w[2] + kx] = (static_cast<size_t>(ky) * dh * x[2] + kx * dw) * channels;
        }
    }
    const int32_t spanX = (w[2] - 1) * dw, spanY = (w[1] - 1) * dh;
    for (size_t r = begin; r < end; ++r) {
        const auto b = static_cast<int32_t>(r / static_cast<size_t>(y[1])), oy = static_cast<int32_t>(r % static_cast<size_t>(y[1]));
        const uint8_t** to = scratch.taps.data();
        const int32_t y0 = oy * sh - padTop;
        const bool rowsInside = y0 >= 0 && y0 + spanY < x[1];
        for (int32_t ox = 0; ox < y[2]; ++ox) {
            const int32_t x0 = ox * sw - padLeft;
            if (rowsInside && x0 >= 0 && x0 + spanX < x[2]) {
                const uint8_t* first = in.data + ((static_cast<size_t>(b) * x[1] + y0) * x[2] + x0) * channels;
                for (size_t t = 0; t < count; ++t) *to++ = first + inside[t];
                continue;
            }
            for (int32_t ky = 0; ky < w[1]; ++ky) {
                const int32_t iy = oy * sh - padTop + ky * dh;
                for (int32_t kx = 0; kx < w[2]; ++kx) {
                    const int32_t ix = ox * sw - padLeft + kx * dw;
                    const bool inside = iy >= 0 && iy < x[1] && ix >= 0 && ix < x[2];
                    *to++ = inside ? in.data + ((static_cast<size_t>(b) * x[1] + iy) * x[2] + ix) * channels
                                   : padding.data();
                }
            }
        }
        int8_t* row = output + r * static_cast<size_t>(y[2]) * channels;
        if (fp32 != nullptr) {
            // XNNPACK's requantization in registers, as its depthwise kernels do it.
            rowRequantizedAvx512(scratch.taps.data(), static_cast<size_t>(y[2]), count, plan.wideFilter.data(), bias.data(),
                                 channels, in.type() == ElementType::UINT8, *fp32, reinterpret_cast<uint8_t*>(row));
            continue;
        }
        rowSumsAvx512(scratch.taps.data(), static_cast<size_t>(y[2]), count, plan.wideFilter.data(), bias.data(), channels,
                      in.type() == ElementType::UINT8, scratch.sums.data());
        requantizeRow(scratch.sums.data(), row);
    }
}

}  // namespace

bool registerPathAvailable() {
    static const bool available = conv::hasAvx512bw() && __builtin_cpu_supports("avx512vl");
    return available;
}

void allowRegisterPath(bool allowed) { registerPathAllowed.store(allowed, std::memory_order_relaxed); }

bool prepare(const CpuKernelCall& call) { return makePlan(call, nullptr); }

bool run(const CpuKernelCall& call, int32_t padTop, int32_t padLeft) {
    // The plan depends on constants only: made at the first invoke, kept in the unit's state.
    std::shared_ptr<void> local;
    Plan* kept = keptState<Plan>(call, local, [&](Plan& made) { return makePlan(call, &made); });
    if (kept == nullptr) return false;
    Plan& plan = *kept;
    const CpuOperand &in = call.in(0), &filter = call.in(1), &out = call.out(0);
    const std::vector<int32_t> &x = in.shape(), &w = filter.shape(), &y = out.shape();
    const auto* o = call.params<TfLiteDepthwiseConvParams>();
    const auto channels = static_cast<size_t>(y[3]), depth = static_cast<size_t>(x[3]);
    const size_t imagePixels = static_cast<size_t>(x[1]) * x[2];
    const bool unsignedForm = in.type() == ElementType::UINT8;
    int32_t low, high;
    quant::quantizedActivationRange(static_cast<int32_t>(o->activation), out.tensor->scale, out.tensor->zeroPoint,
                                    unsignedForm ? 0 : -128, unsignedForm ? 255 : 127, &low, &high);
    const conv::Fp32Requantization fp32{nullptr, plan.scales.data(), out.tensor->zeroPoint, low, high};
    const int32_t sh = o->stride_height, sw = o->stride_width, dh = o->dilation_height_factor, dw = o->dilation_width_factor;
    // The rows one output row's window spans, widened when first reached into a ring: each input
    // row is widened once and read from the caches by the output rows that need it (the whole
    // image widened up front, 2.4 MB of int16 for a 112x112x96 layer, went out to memory and back).
    const size_t ring = static_cast<size_t>(w[1] - 1) * dh + 1, rowValues = static_cast<size_t>(x[2]) * channels;
    auto* output = reinterpret_cast<int8_t*>(out.out);
    const auto requantizeRow = [&](const int32_t* sums, int8_t* row) {
        if (call.xnnpack() && unsignedForm) {
            conv::requantizeFp32Rows(sums, static_cast<size_t>(y[2]), channels, channels, fp32,
                                     reinterpret_cast<uint8_t*>(row));
        } else if (call.xnnpack()) {
            conv::requantizeFp32Rows(sums, static_cast<size_t>(y[2]), channels, channels, fp32, row);
        } else {
            requantize(sums, static_cast<size_t>(y[2]), channels, plan, out.tensor->zeroPoint, low, high, row);
        }
    };
    // The output rows are shared among the threads, each share with its own scratch (every sum
    // is exact: the split cannot show).
    const size_t rows = static_cast<size_t>(y[0]) * y[1];
    const size_t shares = cpuShares(call.threads, rows,
                                    static_cast<double>(rows) * static_cast<double>(y[2]) * channels * w[1] * w[2]);
    if (plan.scratch.size() < shares) plan.scratch.resize(shares);
    for (size_t share = 0; share < shares; ++share) plan.scratch[share].sums.resize(static_cast<size_t>(y[2]) * channels);
    if (channels == depth && registerPath()) {
        if (plan.wideFilter.size() != plan.filter.size()) plan.wideFilter.assign(plan.filter.begin(), plan.filter.end());
        // The input's zero point comes off through the bias (modulo 2^32).
        std::vector<int32_t> bias(plan.bias.begin(), plan.bias.end());
        for (size_t t = 0; t < static_cast<size_t>(w[1]) * w[2]; ++t) {
            for (size_t c = 0; c < channels; ++c) {
                bias[c] = static_cast<int32_t>(static_cast<uint32_t>(bias[c]) -
                                               static_cast<uint32_t>(in.tensor->zeroPoint) *
                                                       static_cast<uint32_t>(plan.wideFilter[t * channels + c]));
            }
        }
        forCpuShares(call.threads, shares, rows, [&](size_t share, size_t begin, size_t end) {
            runInRegisters(call, plan, bias, plan.scratch[share], padTop, padLeft, begin, end,
                           call.xnnpack() ? &fp32 : nullptr, requantizeRow);
        });
        return true;
    }
    forCpuShares(call.threads, shares, rows, [&](size_t share, size_t begin, size_t end) {
        Plan::Scratch& scratch = plan.scratch[share];
        scratch.image.resize(ring * rowValues);
        int32_t image = -1;   // the image the ring's rows are of
        for (size_t r = begin; r < end; ++r) {
            const auto b = static_cast<int32_t>(r / static_cast<size_t>(y[1])), oy = static_cast<int32_t>(r % static_cast<size_t>(y[1]));
            if (b != image) {
                scratch.slotRows.assign(ring, -1);
                image = b;
            }
            const auto widenedRow = [&](int32_t iy) {
                const size_t slot = static_cast<size_t>(iy) % ring;
                int16_t* to = scratch.image.data() + slot * rowValues;
                if (scratch.slotRows[slot] != iy) {
                    const size_t at = (b * imagePixels + static_cast<size_t>(iy) * x[2]) * depth;
                    if (unsignedForm) {
                        widenImage(in.data + at, static_cast<size_t>(x[2]), depth, channels / depth, in.tensor->zeroPoint, to);
                    } else {
                        widenImage(reinterpret_cast<const int8_t*>(in.data) + at, static_cast<size_t>(x[2]), depth,
                                   channels / depth, in.tensor->zeroPoint, to);
                    }
                    scratch.slotRows[slot] = iy;
                }
                return static_cast<const int16_t*>(to);
            };
            int32_t* sums = scratch.sums.data();
            for (int32_t ox = 0; ox < y[2]; ++ox) {
                std::copy(plan.bias.begin(), plan.bias.end(), sums + static_cast<size_t>(ox) * channels);
            }
            for (int32_t ky = 0; ky < w[1]; ++ky) {
                const int32_t iy = oy * sh - padTop + ky * dh;
                if (iy < 0 || iy >= x[1]) continue;
                const int16_t* imageRow = widenedRow(iy);
                const int16_t* filterRow = plan.filter.data() + static_cast<size_t>(ky) * w[2] * channels;
                // A 3-wide window: the output columns whose three taps all lie inside, in one pass.
                int32_t allBegin = 0, allEnd = 0;
                if (w[2] == 3) {
                    allBegin = std::max(firstInside(-padLeft, sw), firstInside(2 * dw - padLeft, sw));
                    allEnd = std::min({y[2], endInside(-padLeft, x[2], sw), endInside(2 * dw - padLeft, x[2], sw)});
                    if (allBegin < allEnd) {
                        addThreeTaps(sums + static_cast<size_t>(allBegin) * channels,
                                     imageRow + static_cast<size_t>(allBegin * sw - padLeft) * channels, sw * channels,
                                     dw * channels, filterRow, static_cast<size_t>(allEnd - allBegin), channels);
                    } else {
                        allBegin = allEnd = 0;
                    }
                }
                for (int32_t kx = 0; kx < w[2]; ++kx) {
                    const int32_t first = kx * dw - padLeft;   // the input column of output column 0's tap
                    const int32_t from0 = firstInside(first, sw), end0 = std::min(y[2], endInside(first, x[2], sw));
                    // Each tap alone on its columns outside [allBegin, allEnd).
                    const std::pair<int32_t, int32_t> spans[] = {{from0, std::min(end0, allBegin)}, {std::max(from0, allEnd), end0}};
                    for (const auto& [from, to] : spans) {
                        if (from >= to) continue;
                        addTap(sums + static_cast<size_t>(from) * channels,
                               imageRow + static_cast<size_t>(from * sw + first) * channels, sw * channels,
                               filterRow + static_cast<size_t>(kx) * channels, static_cast<size_t>(to - from), channels);
                    }
                }
            }
            requantizeRow(sums, output + r * static_cast<size_t>(y[2]) * channels);
        }
    });
    return true;
}

}  // namespace nnemu::tflite::kernels::depthwise_int8
