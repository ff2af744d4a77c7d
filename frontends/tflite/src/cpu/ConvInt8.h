// What Conv.cpp, ConvInt8.cpp and FloatConv.cpp share: the geometry of a CONV_2D and its window
// walk, and the int8 form that runs with ruy's requantization (TFLite's x86 build), see ConvInt8.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "CpuKernel.h"

namespace nnemu::tflite::kernels::conv {

struct ConvGeometry {
    int32_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1, padTop = 0, padLeft = 0;
};

// The taps of output pixel `pixel`'s window (x: NHWC input shape, w: the filter's, y: the
// output's), row by row as im2col lays them out: tap(i) with the input pixel's flat index i, or
// tap(-1) for a tap in the padding.
template <typename Tap>
void forEachWindowTap(const std::vector<int32_t>& x, const std::vector<int32_t>& w, const std::vector<int32_t>& y,
                      const ConvGeometry& g, size_t pixel, Tap&& tap) {
    const auto ox = static_cast<int32_t>(pixel % y[2]), oy = static_cast<int32_t>(pixel / y[2] % y[1]);
    const auto b = static_cast<int64_t>(pixel / (static_cast<size_t>(y[2]) * y[1]));
    for (int32_t ky = 0; ky < w[1]; ++ky) {
        const int32_t iy = oy * g.strideH - g.padTop + ky * g.dilationH;
        for (int32_t kx = 0; kx < w[2]; ++kx) {
            const int32_t ix = ox * g.strideW - g.padLeft + kx * g.dilationW;
            const bool inside = iy >= 0 && iy < x[1] && ix >= 0 && ix < x[2];
            tap(inside ? (b * x[1] + iy) * x[2] + ix : int64_t{-1});
        }
    }
}

// Per output channel the Q31 multiplier and shift of input scale x weight scale / output scale;
// the weights packed for the GEMM (ConvInt8Gemm.h): `blocks` of 16 channels, `pairs` depth pairs.
struct Int8ConvPlan {
    std::vector<int32_t> multipliers;
    std::vector<int> shifts;
    std::vector<int32_t> leftShifts, rightShifts;
    std::vector<float> scales;   // XNNPACK's arithmetic: per output channel (xnnpackScale)
    std::vector<int16_t> packed;
    size_t blocks = 0, pairs = 0, depth = 0;
    // With AVX-512 VNNI, int8 weights on an int8 input: the weights as quads
    // (gemmUint8Int8Vnni), the rows offset by input zero point + 128 (each value then the input
    // plus 128), and what that offset adds to each channel's sums, (zero point + 128) x the
    // channel's weight sum, to take off (wrapping).
    std::vector<int8_t> packedQuads;
    size_t quads = 0;
    int32_t rowOffset = 0;
    std::vector<uint32_t> offsetSums;
    // runInt8Gemm's scratch, one per share of its tiles (CpuThreads.h).
    struct Scratch {
        std::vector<int16_t> rows;
        std::vector<uint8_t> rowBytes;
        std::vector<int32_t> sums;
    };
    std::vector<Scratch> scratch;
};

// Where TFLite 2.21 takes a multiplier input scale x weight scale / output scale from:
// - DoubleProduct: double(input) * double(weight) / double(output), per output channel
//   (PopulateConvolutionQuantizationParams): every int8 CONV_2D and DEPTHWISE_CONV_2D (a
//   per-tensor weight scale repeated), and an int8 FULLY_CONNECTED with per-channel weights;
// - FloatProduct: the product rounded to float first, double(input * weight) / double(output)
//   (GetQuantizedConvolutionMultipler), as NNAPI derives every multiplier: an int8
//   FULLY_CONNECTED with one weight scale (and every uint8 form, which nnapi-reference runs).
// The two differ in the low bits of most multipliers, which now and then moves an output by one.
enum class MultiplierFrom { DoubleProduct, FloatProduct };
// The Q31 multiplier and shift for weight scale `weightScale` (quant::quantizeMultiplier).
void channelMultiplier(MultiplierFrom from, float inputScale, float weightScale, float outputScale, int32_t* multiplier,
                       int* shift);

// x * multiplier * 2^shift as ruy's x86 kernels requantize: the left shift, then
// (x * m + 2^30) >> 31, then (x + 2^(e-1)) >> e for a right shift e (ties rounded up).
int32_t ruyRequantize(int32_t acc, int32_t multiplier, int shift);
// TFLite's 64-bit requantization (its int16 kernels' int64 sums, Conv.cpp): the Q31 multiplier
// rounded to Q15, then one rounding shift.
int32_t requantize64(int64_t acc, int32_t multiplier, int shift);

// int8 input, weights and output; under XNNPACK's arithmetic (call.xnnpack()) uint8 ones too.
bool isInt8Conv(const CpuKernelCall& call);
// Values [first, first + count) of an 8-bit input minus its zero point.
void widenInput(const CpuOperand& in, size_t first, size_t count, int16_t* to);
// The checks of the int8 form beyond the geometry; fills *plan when it is not nullptr.
bool prepareInt8Conv(const CpuKernelCall& call, Int8ConvPlan* plan);
bool runInt8Conv(const CpuKernelCall& call, const ConvGeometry& g);

// What the int8 CONV_2D and FULLY_CONNECTED share: input 0, weights 1 ([channels, depth] once
// flattened, constant, zero point 0, per tensor or per channel along dimension 0; uint8 weights,
// under XNNPACK's arithmetic, per tensor with any zero point), optional int32 bias 2, output 0
// [pixels, channels]. planInt8Gemm checks them and, with a plan, fills it (the multipliers
// derived `from`, or XNNPACK's float scales).
bool planInt8Gemm(const CpuKernelCall& call, size_t channels, size_t depth, MultiplierFrom from, Int8ConvPlan* plan);
// Runs the GEMM on `pixels` rows that fillRows writes, `count` of them from row `first` on at a
// time, each rowLength (2 x pairs) values apart: the depth minus the input's zero point, an odd
// depth's last value left 0. The plan is made by `prepare` at the first invoke and kept in the
// unit's state. `direct`: the input's bytes when row r is its values [r x depth, (r + 1) x depth)
// (a 1x1 convolution at stride 1 without padding, a fully connected layer); where the byte GEMM
// (VNNI) runs and the depth is a multiple of 4, it takes its rows from them, the sign bits
// flipped, and fillRows is not called. fillBytes (may be empty): where the byte GEMM runs, writes
// its rows instead of fillRows, rowLength (4 x quads) bytes apart: each value plus 128 (the
// padding the zero point's), the bytes past the depth left as they are.
using FillRows = std::function<void(size_t first, size_t count, int16_t* rows, size_t rowLength)>;
using FillBytes = std::function<void(size_t first, size_t count, uint8_t* rows, size_t rowLength)>;
bool runInt8Gemm(const CpuKernelCall& call, bool (*prepare)(const CpuKernelCall&, Int8ConvPlan*), size_t pixels,
                 int32_t activation, const FillRows& fillRows, const uint8_t* direct = nullptr,
                 const FillBytes& fillBytes = {});

}  // namespace nnemu::tflite::kernels::conv
