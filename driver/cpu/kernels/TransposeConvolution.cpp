// Reference kernel of TRANSPOSE_CONV_2D (F32, F16, Q8 with Q8 or per-channel filters; types
// handled by ConvKernel.h). Written as a gather: output element o of an axis sums input
// element i through filter tap k wherever i * stride - padHead + k = o, so each output is one
// accumulator and quantized outputs requantize once, like the forward convolutions.
#include <cstdint>

#include "ConvKernel.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "nnemu/hal/TransposeWindow.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;

struct TransposeShape {
    hal::TransposeWindow window;
    Image4 in, out;
    uint32_t filterHeight = 0, filterWidth = 0;
};

bool resolveShape(const OperationContext& context, TransposeShape* s) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& output = context.output(0);
    NN_RET_CHECK(input.rank() == 4 && filter.rank() == 4 && output.rank() == 4);
    s->filterHeight = filter.dim(1);
    s->filterWidth = filter.dim(2);
    NN_RET_CHECK(hal::readTransposeWindow(context, s->filterHeight, s->filterWidth, &s->window));
    const hal::TransposeWindow& w = s->window;
    s->in = hal::makeImage4(input.dims, w.nchw);
    s->out = hal::makeImage4(output.dims, w.nchw);
    NN_RET_CHECK(s->out.batches == s->in.batches);
    NN_RET_CHECK(filter.dim(0) == s->out.channels && filter.dim(3) == s->in.channels);
    uint32_t height = 0, width = 0;
    NN_RET_CHECK(hal::transposeOutputSize(s->in.height, s->filterHeight, w.strideH, w.padTop,
                                          w.padBottom, &height));
    NN_RET_CHECK(hal::transposeOutputSize(s->in.width, s->filterWidth, w.strideW, w.padLeft,
                                          w.padRight, &width));
    NN_RET_CHECK(height == s->out.height && width == s->out.width);
    return true;
}

// The input index feeding output `o` through tap `k` along one axis, or -1 when none does.
int64_t sourceIndex(uint32_t o, uint32_t k, int32_t stride, int32_t padHead, uint32_t inSize) {
    const int64_t t = static_cast<int64_t>(o) + padHead - k;
    if (t < 0 || t % stride != 0 || t / stride >= inSize) return -1;
    return t / stride;
}

struct TransposeLoop {
    const TransposeShape& s;

    // Taps run from the last to the first so that inputs are summed in increasing order.
    template <typename Acc, typename Tap, typename Store>
    void run(Tap tap, Store store) const {
        const hal::TransposeWindow& w = s.window;
        const uint32_t inChannels = s.in.channels;
        for (uint32_t b = 0; b < s.out.batches; ++b) {
            for (uint32_t oy = 0; oy < s.out.height; ++oy) {
                for (uint32_t ox = 0; ox < s.out.width; ++ox) {
                    for (uint32_t oc = 0; oc < s.out.channels; ++oc) {
                        Acc acc{};
                        for (uint32_t ky = s.filterHeight; ky-- > 0;) {
                            const int64_t iy = sourceIndex(oy, ky, w.strideH, w.padTop, s.in.height);
                            if (iy < 0) continue;
                            for (uint32_t kx = s.filterWidth; kx-- > 0;) {
                                const int64_t ix = sourceIndex(ox, kx, w.strideW, w.padLeft, s.in.width);
                                if (ix < 0) continue;
                                // filter [Cout, kH, kW, Cin]
                                const size_t filterBase =
                                        ((static_cast<size_t>(oc) * s.filterHeight + ky) * s.filterWidth + kx) *
                                        inChannels;
                                for (uint32_t ic = 0; ic < inChannels; ++ic) {
                                    acc += tap(s.in.at(b, static_cast<uint32_t>(iy), static_cast<uint32_t>(ix), ic),
                                               filterBase + ic);
                                }
                            }
                        }
                        store(s.out.at(b, oy, ox, oc), oc, acc);
                    }
                }
            }
        }
    }
};

}  // namespace

bool kernels::transposeConv2D(OperationContext& context) {
    TransposeShape s;
    NN_RET_CHECK(resolveShape(context, &s));
    return convpool::convolve(context, s.window.activation, s.out.channels, TransposeLoop{s});
}

}  // namespace nnemu::cpu
