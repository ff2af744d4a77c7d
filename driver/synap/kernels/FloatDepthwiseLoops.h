// The float 3x3 depthwise's loop over one output row, for each ISA file to instantiate with its
// vector operations (Ops: a block of 16 channels as V; load, masked load of the first `count`
// channels, fused multiply-add, clamp, store). Internal to FloatDepthwise*.cpp.
#pragma once

#include <cstddef>

#include "FloatDepthwise.h"

namespace nnemu::synap::kernels::depthwise_loops {

// What a tap outside the image reads: a block of zeros.
alignas(64) inline constexpr float kFloatZeros[kFloatGemmBlock] = {};

// The block's columns [0, r.width); Partial: only the first ops.count channels are read and
// written (the block past the last channel).
template <bool Partial, typename Ops>
void blockColumns(const Ops& ops, const FloatDepthwiseRow& r, const float* w, size_t c) {
    using V = typename Ops::V;
    const V bias = ops.load(w);
    V wk[9];
#pragma GCC unroll 9
    for (size_t t = 0; t < 9; ++t) wk[t] = ops.load(w + kFloatGemmBlock * (t + 1));
    const V low = ops.set1(r.low), high = ops.set1(r.high);
    const auto in = [&](const float* p) { return Partial ? ops.loadPart(p) : ops.load(p); };
    const size_t C = r.channels;
    const auto finish = [&](size_t ox, V acc) {
        acc = ops.clamp(acc, low, high);
        float* out = r.output + ox * C + c;
        if (Partial) {
            ops.storePart(out, acc);
        } else {
            ops.store(out, acc);
        }
    };
    const ptrdiff_t step = static_cast<ptrdiff_t>(r.stride * C);
    for (size_t ox = 0; ox < r.width; ++ox) {
        const ptrdiff_t x0 = static_cast<ptrdiff_t>(ox * r.stride) - static_cast<ptrdiff_t>(r.padLeft);
        V acc = bias;
        if (ox >= r.insideBegin && ox + 1 < r.insideEnd) {
            // Two columns at once: two chains of dependent multiply-adds in flight, each output's
            // own order unchanged.
            V acc2 = bias;
#pragma GCC unroll 3
            for (size_t ky = 0; ky < 3; ++ky) {
                const float* p = r.rows[ky] + x0 * static_cast<ptrdiff_t>(C) + c;
#pragma GCC unroll 3
                for (size_t kx = 0; kx < 3; ++kx) {
                    acc = ops.fma(in(p + kx * C), wk[3 * ky + kx], acc);
                    acc2 = ops.fma(in(p + step + kx * C), wk[3 * ky + kx], acc2);
                }
            }
            finish(ox, acc);
            finish(++ox, acc2);
            continue;
        }
        if (ox >= r.insideBegin && ox < r.insideEnd) {
#pragma GCC unroll 3
            for (size_t ky = 0; ky < 3; ++ky) {
                const float* p = r.rows[ky] + x0 * static_cast<ptrdiff_t>(C) + c;
#pragma GCC unroll 3
                for (size_t kx = 0; kx < 3; ++kx) acc = ops.fma(in(p + kx * C), wk[3 * ky + kx], acc);
            }
        } else {
            // Taps outside the image read zeros (as XNNPACK's padding does): the same nine
            // multiply-adds, each adding zero where the reference skips the tap.
            const float* p[9];
#pragma GCC unroll 3
            for (size_t ky = 0; ky < 3; ++ky) {
#pragma GCC unroll 3
                for (size_t kx = 0; kx < 3; ++kx) {
                    const ptrdiff_t x = x0 + static_cast<ptrdiff_t>(kx);
                    const bool in = r.rows[ky] != nullptr && x >= 0 && x < static_cast<ptrdiff_t>(r.inWidth);
                    p[3 * ky + kx] = in ? r.rows[ky] + x * static_cast<ptrdiff_t>(C) + c : kFloatZeros;
                }
            }
#pragma GCC unroll 9
            for (size_t t = 0; t < 9; ++t) acc = ops.fma(in(p[t]), wk[t], acc);
        }
        finish(ox, acc);
    }
}

// Every block of channels of the row's columns, each block along the whole row (its weights
// held in registers).
template <typename Ops>
void row(const FloatDepthwiseRow& r) {
    for (size_t c = 0; c < r.channels; c += kFloatGemmBlock) {
        const float* w = r.weights + (c / kFloatGemmBlock) * kFloatGemmBlock * 10;
        const Ops ops(r.channels - c < kFloatGemmBlock ? r.channels - c : kFloatGemmBlock);
        if (ops.count == kFloatGemmBlock) {
            blockColumns<false>(ops, r, w, c);
        } else {
            blockColumns<true>(ops, r, w, c);
        }
    }
}

}  // namespace nnemu::synap::kernels::depthwise_loops
