// int8 CONV_2D (per-channel or per-tensor int8 weights, not grouped) as TFLite's x86 build runs
// it: its optimized kernel hands the GEMM to ruy, whose requantization rounds both fixed-point
// steps half up, (acc * m + 2^30) >> 31 and then (x + 2^(e-1)) >> e, where NNAPI (and TFLite's
// reference kernel) round ties away from zero. The sums are exact integers either way, so only
// the requantization decides: this kernel runs on the CPU path in place of nnapi-reference
// (TfliteKernelForms.h), so that the tools give TFLite's bytes there.
//
// The GEMM (ConvInt8Gemm.h): each output pixel's window minus the input's zero point copied into
// an int16 row (0 for the padding), times the weights packed as int16 pairs per 16 channels.
#include <algorithm>
#include <limits>
#include <functional>
#include <memory>

#include "ConvInt8.h"
#include "ConvInt8Gemm.h"
#include "CpuThreads.h"
#include "Elementwise.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite::kernels::conv {

int32_t ruyRequantize(int32_t acc, int32_t multiplier, int shift) {
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(acc) << left);
    const auto high = static_cast<int32_t>((int64_t{shifted} * multiplier + (int64_t{1} << 30)) >> 31);
    if (right == 0) return high;
    const int32_t nudge = int32_t{1} << (right - 1);
    // ruy's kernels give 2^(31 - e) where high + nudge would overflow.
    if (high > std::numeric_limits<int32_t>::max() - nudge) return int32_t{1} << (31 - right);
    return (high + nudge) >> right;
}

void channelMultiplier(MultiplierFrom from, float inputScale, float weightScale, float outputScale, int32_t* multiplier,
                       int* shift) {
    const double product = from == MultiplierFrom::DoubleProduct
                                   ? static_cast<double>(inputScale) * static_cast<double>(weightScale)
                                   : static_cast<double>(inputScale * weightScale);
    quant::quantizeMultiplier(product / static_cast<double>(outputScale), multiplier, shift);
}

bool isInt8Conv(const CpuKernelCall& call) {
    if (call.inputs.size() < 2 || !call.in(0).present() || !call.in(1).present() || call.outputs.empty() ||
        !call.out(0).present()) {
        return false;
    }
    const ElementType type = call.in(0).type();
    const bool eightBit = type == ElementType::INT8 || (type == ElementType::UINT8 && call.xnnpack());
    return eightBit && call.in(1).type() == type && call.out(0).type() == type;
}

void widenInput(const CpuOperand& in, size_t first, size_t count, int16_t* to) {
    if (in.type() == ElementType::UINT8) {
        widenMinusZeroPoint(in.data + first, count, in.tensor->zeroPoint, to);
    } else {
        widenMinusZeroPoint(reinterpret_cast<const int8_t*>(in.data) + first, count, in.tensor->zeroPoint, to);
    }
}

bool prepareInt8Conv(const CpuKernelCall& call, Int8ConvPlan* plan) {
    const std::vector<int32_t> &x = call.in(0).shape(), &w = call.in(1).shape();
    if (w[3] != x[3]) return call.fail("a grouped int8 convolution runs on nnapi-reference");
    return planInt8Gemm(call, static_cast<size_t>(w[0]), static_cast<size_t>(w[1]) * w[2] * w[3],
                        MultiplierFrom::DoubleProduct, plan);
}

bool planInt8Gemm(const CpuKernelCall& call, size_t channels, size_t depth, MultiplierFrom from, Int8ConvPlan* plan) {
    const CpuOperand &in = call.in(0), &filter = call.in(1), &out = call.out(0);
    if (!filter.known()) return call.fail("int8 weights must be constant");
    const Tensor& weights = *filter.tensor;
    const bool unsignedForm = weights.type == ElementType::UINT8;
    bool zeroPointsZero = weights.zeroPoint == 0;
    for (size_t c = 0; c < weights.channelScales.size(); ++c) zeroPointsZero = zeroPointsZero && weights.channelZeroPoint(c) == 0;
    if (unsignedForm && weights.isPerChannel()) return call.fail("uint8 weights must be quantized per tensor");
    if (!unsignedForm && !zeroPointsZero) return call.fail("int8 weights must have zero point 0");
    if (!zeroPointFits(in.type(), in.tensor->zeroPoint) || !zeroPointFits(weights.type, weights.zeroPoint) ||
        !zeroPointFits(out.type(), out.tensor->zeroPoint)) {
        return call.fail("zero points must lie in their type's range");
    }
    if (weights.isPerChannel() && (weights.quantizedDimension != 0 || weights.channelScales.size() != channels)) {
        return call.fail("per-channel weights must have one scale per output channel, along dimension 0");
    }
    if (!(in.tensor->scale > 0 && out.tensor->scale > 0)) return call.fail("quantized tensors need positive scales");
    if (call.inputs.size() == 3 && call.in(2).present()) {
        if (!call.expectType(call.in(2), {ElementType::INT32}, "bias")) return false;
        if (call.in(2).count() != channels) return call.fail("bias must have one value per output channel");
    }
    if (plan == nullptr) return true;
    const size_t pairs = (depth + 1) / 2, blocks = (channels + kGemmLanes - 1) / kGemmLanes;
    plan->depth = depth;
    // Padded to whole blocks (requantizeRuy reads 8 channels at a time).
    plan->multipliers.assign(blocks * kGemmLanes, 0);
    plan->shifts.assign(blocks * kGemmLanes, 0);
    plan->leftShifts.assign(blocks * kGemmLanes, 0);
    plan->rightShifts.assign(blocks * kGemmLanes, 0);
    plan->pairs = pairs;
    plan->blocks = blocks;
    plan->scales.assign(call.xnnpack() ? blocks * kGemmLanes : 0, 0.0f);
    plan->packed.assign(blocks * pairs * 2 * kGemmLanes, 0);
    for (size_t c = 0; c < channels; ++c) {
        const float filterScale = weights.isPerChannel() ? weights.channelScales[c] : weights.scale;
        if (call.xnnpack()) {
            plan->scales[c] = xnnpackScale(in.tensor->scale, filterScale, out.tensor->scale);
        } else {
            channelMultiplier(from, in.tensor->scale, filterScale, out.tensor->scale, &plan->multipliers[c],
                              &plan->shifts[c]);
            if (plan->shifts[c] < -31 || plan->shifts[c] > 30) return call.fail("requantization multiplier out of range");
            plan->leftShifts[c] = std::max(plan->shifts[c], 0);
            plan->rightShifts[c] = std::max(-plan->shifts[c], 0);
        }
        int16_t* block = plan->packed.data() + (c / kGemmLanes) * pairs * 2 * kGemmLanes + (c % kGemmLanes) * 2;
        for (size_t k = 0; k < depth; ++k) {
            const uint8_t stored = filter.data[c * depth + k];
            const int32_t value = unsignedForm ? stored - weights.zeroPoint : static_cast<int8_t>(stored);
            block[(k / 2) * 2 * kGemmLanes + k % 2] = static_cast<int16_t>(value);
        }
    }
    if (!unsignedForm && in.type() == ElementType::INT8 && hasAvx512Vnni()) {
        // Twice the int16 GEMM's products per instruction (MobileNet v2 int8 on the CPU path: 11.4 -> 9.1 ms).
        const size_t quads = (depth + 3) / 4;
        plan->quads = quads;
        plan->rowOffset = in.tensor->zeroPoint + 128;
        plan->packedQuads.assign(blocks * quads * 4 * kGemmLanes, 0);
        plan->offsetSums.assign(blocks * kGemmLanes, 0);
        for (size_t c = 0; c < channels; ++c) {
            int8_t* block = plan->packedQuads.data() + (c / kGemmLanes) * quads * 4 * kGemmLanes + (c % kGemmLanes) * 4;
            uint32_t sum = 0;
            for (size_t k = 0; k < depth; ++k) {
                const auto value = static_cast<int8_t>(filter.data[c * depth + k]);
                block[(k / 4) * 4 * kGemmLanes + k % 4] = value;
                sum += static_cast<uint32_t>(int32_t{value});
            }
            plan->offsetSums[c] = sum * static_cast<uint32_t>(plan->rowOffset);
        }
    }
    return true;
}

bool runInt8Conv(const CpuKernelCall& call, const ConvGeometry& g) {
    const std::vector<int32_t> &x = call.in(0).shape(), &w = call.in(1).shape(), &y = call.out(0).shape();
    const size_t pixels = static_cast<size_t>(y[0]) * y[1] * y[2], inC = static_cast<size_t>(x[3]);
    // Each output pixel's window minus the input's zero point, 0 for the padding.
    const auto fillRow = [&](size_t pixel, int16_t* row) {
        forEachWindowTap(x, w, y, g, pixel, [&](int64_t at) {
            if (at < 0) {
                std::fill(row, row + inC, int16_t{0});
            } else {
                widenInput(call.in(0), static_cast<size_t>(at) * inC, inC, row);
            }
            row += inC;
        });
    };
    // A 1x1 window at stride 1 without padding reads the input as it lies: with an even depth
    // (rows without a padding value) a tile's rows are one run of the input, widened in one call.
    const bool pointwise = w[1] == 1 && w[2] == 1 && g.strideH == 1 && g.strideW == 1 && g.padTop == 0 &&
                           g.padLeft == 0 && y[1] == x[1] && y[2] == x[2] && inC % 2 == 0;
    const auto fillRows = [&](size_t first, size_t count, int16_t* rows, size_t rowLength) {
        if (pointwise) return widenInput(call.in(0), first * inC, count * inC, rows);
        for (size_t p = 0; p < count; ++p) fillRow(first + p, rows + p * rowLength);
    };
    // The byte GEMM's rows straight from an int8 input's bytes (no int16 rows between): a window
    // row inside the image is one run of the input (the first layer of an image model, 3
    // channels: taken tap by tap through fillRows it was most of that layer's time).
    const auto fillBytes = [&](size_t first, size_t count, uint8_t* rows, size_t rowLength) {
        const auto padding = static_cast<uint8_t>(call.in(0).tensor->zeroPoint + 128);
        const auto flip = [](const uint8_t* from, size_t length, uint8_t* to) {
            if (length > 16) return flipSignBits(from, length, to);
            for (size_t i = 0; i < length; ++i) to[i] = static_cast<uint8_t>(from[i] ^ 0x80u);
        };
        const uint8_t* input = call.in(0).data;
        auto ox = static_cast<int32_t>(first % static_cast<size_t>(y[2])),
             oy = static_cast<int32_t>(first / static_cast<size_t>(y[2]) % static_cast<size_t>(y[1]));
        auto b = static_cast<size_t>(first / (static_cast<size_t>(y[2]) * static_cast<size_t>(y[1])));
        for (size_t p = 0; p < count; ++p) {
            uint8_t* row = rows + p * rowLength;
            for (int32_t ky = 0; ky < w[1]; ++ky) {
                const int32_t iy = oy * g.strideH - g.padTop + ky * g.dilationH;
                const bool rowInside = iy >= 0 && iy < x[1];
                const uint8_t* line = input + (b * static_cast<size_t>(x[1]) + static_cast<size_t>(rowInside ? iy : 0)) *
                                                      static_cast<size_t>(x[2]) * inC;
                const int32_t left = ox * g.strideW - g.padLeft;
                if (rowInside && g.dilationW == 1 && left >= 0 && left + w[2] <= x[2]) {
                    const size_t span = static_cast<size_t>(w[2]) * inC;
                    flip(line + static_cast<size_t>(left) * inC, span, row);
                    row += span;
                    continue;
                }
                for (int32_t kx = 0; kx < w[2]; ++kx, row += inC) {
                    const int32_t ix = left + kx * g.dilationW;
                    if (rowInside && ix >= 0 && ix < x[2]) {
                        flip(line + static_cast<size_t>(ix) * inC, inC, row);
                    } else {
                        std::fill(row, row + inC, padding);
                    }
                }
            }
            if (++ox == y[2]) {
                ox = 0;
                if (++oy == y[1]) {
                    oy = 0;
                    ++b;
                }
            }
        }
    };
    const bool signedInput = call.in(0).type() == ElementType::INT8;
    return runInt8Gemm(call, prepareInt8Conv, pixels, static_cast<int32_t>(call.params<TfLiteConvParams>()->activation),
                       fillRows, pointwise ? call.in(0).data : nullptr, signedInput ? FillBytes(fillBytes) : FillBytes());
}

bool runInt8Gemm(const CpuKernelCall& call, bool (*prepare)(const CpuKernelCall&, Int8ConvPlan*), size_t pixels,
                 int32_t activation, const FillRows& fillRows, const uint8_t* direct, const FillBytes& fillBytes) {
    // The plan depends on constants only: made at the first invoke, kept in the unit's state.
    std::shared_ptr<void> local;
    Int8ConvPlan* kept = keptState<Int8ConvPlan>(call, local, [&](Int8ConvPlan& made) { return prepare(call, &made); });
    if (kept == nullptr) return false;
    Int8ConvPlan& plan = *kept;
    const CpuOperand& out = call.out(0);
    auto* output = reinterpret_cast<int8_t*>(out.out);
    const bool hasBias = call.inputs.size() == 3 && call.in(2).present();
    const int32_t outZero = out.tensor->zeroPoint;
    const bool unsignedForm = out.type() == ElementType::UINT8;
    int32_t low, high;
    quant::quantizedActivationRange(activation, out.tensor->scale, outZero, unsignedForm ? 0 : -128,
                                    unsignedForm ? 255 : 127, &low, &high);
    const size_t channels = static_cast<size_t>(call.in(1).shape()[0]), depth = 2 * plan.pairs,
                 stride = plan.blocks * kGemmLanes;
    if (pixels == 0) return true;
    // The tiles are shared among the threads (every sum is exact: the split cannot show), as many
    // per share, sized alike: up to kTile output pixels per GEMM call.
    constexpr size_t kTile = 48;
    const size_t shares = cpuShares(call.threads, pixels, static_cast<double>(pixels) * channels * plan.depth);
    const size_t perShare = (pixels + shares * kTile - 1) / (shares * kTile);
    const size_t tile = (pixels + shares * perShare - 1) / (shares * perShare);
    const size_t tiles = (pixels + tile - 1) / tile;
    const bool quads = plan.quads != 0;
    const size_t quadDepth = 4 * plan.quads;
    std::vector<int32_t> bias(stride, 0);
    for (size_t c = 0; c < channels && hasBias; ++c) bias[c] = call.in(2).at<int32_t>(c);
    // The rows' offset taken off with the bias; the bytes past the depth stay 0 (their weights are 0).
    for (size_t c = 0; c < channels && quads; ++c) {
        bias[c] = static_cast<int32_t>(static_cast<uint32_t>(bias[c]) - plan.offsetSums[c]);
    }
    const Int16Gemm gemm = bestInt16Gemm();
    const RuyRequantization requant{bias.data(), plan.multipliers.data(), plan.leftShifts.data(), plan.rightShifts.data(),
                                    outZero, low, high};
    const Fp32Requantization fp32{bias.data(), plan.scales.data(), outZero, low, high};
    if (plan.scratch.size() < shares) plan.scratch.resize(shares);
    for (size_t share = 0; share < shares; ++share) {
        // Kept with the plan: allocated (the rows' padding zeroed) once, not at every invoke.
        Int8ConvPlan::Scratch& scratch = plan.scratch[share];
        if (scratch.rows.size() < tile * depth) scratch.rows.assign(tile * depth, 0);
        if (scratch.sums.size() < tile * stride) scratch.sums.resize(tile * stride);
        if (quads && scratch.rowBytes.size() < tile * quadDepth) scratch.rowBytes.assign(tile * quadDepth, 0);
    }
    forCpuShares(call.threads, shares, tiles, [&](size_t share, size_t begin, size_t end) {
        Int8ConvPlan::Scratch& scratch = plan.scratch[share];
        int16_t* rows = scratch.rows.data();
        int32_t* sums = scratch.sums.data();
        for (size_t first = begin * tile; first < std::min(pixels, end * tile); first += tile) {
            const size_t count = std::min(tile, pixels - first);
            int8_t* to = output + first * channels;
            const uint8_t* bytes = nullptr;   // the byte GEMM's rows
            if (quads && direct != nullptr && quadDepth == plan.depth) {
                // The input's int8 values plus 128: its bytes with the top bit flipped.
                flipSignBits(direct + first * quadDepth, count * quadDepth, scratch.rowBytes.data());
                bytes = scratch.rowBytes.data();
            } else if (quads && fillBytes) {
                fillBytes(first, count, scratch.rowBytes.data(), quadDepth);
                bytes = scratch.rowBytes.data();
            } else if (quads) {
                fillRows(first, count, rows, depth);
                narrowRows(rows, count, depth, plan.rowOffset, scratch.rowBytes.data(), quadDepth);
                bytes = scratch.rowBytes.data();
            } else {
                fillRows(first, count, rows, depth);
                gemm(rows, count, plan.packed.data(), plan.blocks, plan.pairs, sums);
            }
            if (bytes != nullptr && call.xnnpack() && !unsignedForm) {
                // XNNPACK's requantization in the GEMM's registers, as its kernels do it.
                gemmUint8Int8VnniFp32(bytes, count, plan.packedQuads.data(), plan.blocks, plan.quads, fp32, channels, to);
                continue;
            }
            if (bytes != nullptr) gemmUint8Int8Vnni(bytes, count, plan.packedQuads.data(), plan.blocks, plan.quads, sums);
            if (!call.xnnpack()) {
                for (size_t p = 0; p < count; ++p) requantizeRuy(sums + p * stride, channels, requant, to + p * channels);
            } else if (unsignedForm) {
                requantizeFp32Rows(sums, count, stride, channels, fp32, reinterpret_cast<uint8_t*>(to));
            } else {
                requantizeFp32Rows(sums, count, stride, channels, fp32, to);
            }
        }
    });
    return true;
}

}  // namespace nnemu::tflite::kernels::conv
