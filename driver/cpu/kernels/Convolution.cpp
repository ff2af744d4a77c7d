// Reference kernels of CONV_2D, DEPTHWISE_CONV_2D and GROUPED_CONV_2D (F32, F16, Q8 with Q8
// or per-channel filters; types handled by ConvKernel.h). Taps that fall into the padding
// contribute nothing (a real zero).
#include <cstdint>

#include "ConvKernel.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Padding.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;
using hal::WindowGeometry;
using hal::WindowKind;
using hal::WindowParams;

struct ConvShape {
    WindowKind kind = WindowKind::CONV;
    WindowParams params;
    WindowGeometry geometry;
    Image4 in, out;
    uint32_t depthMultiplier = 1;
    uint32_t groupInChannels = 0;   // CONV and GROUPED: input channels each output reads
    uint32_t groupOutChannels = 0;  // CONV and GROUPED: output channels of one group
};

bool resolveShape(const OperationContext& context, WindowKind kind, ConvShape* s) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& output = context.output(0);
    NN_RET_CHECK(input.rank() == 4 && filter.rank() == 4 && output.rank() == 4);
    s->kind = kind;
    s->params = hal::readWindowParams(context, kind);
    NN_RET_CHECK(hal::windowParamsValid(s->params, kind));
    s->in = hal::makeImage4(input.dims, s->params.nchw);
    s->out = hal::makeImage4(output.dims, s->params.nchw);
    s->depthMultiplier = static_cast<uint32_t>(s->params.depthMultiplier);
    NN_RET_CHECK(hal::resolveWindow(s->params, s->in.height, s->in.width, filter.dim(1),
                                    filter.dim(2), &s->geometry));
    NN_RET_CHECK(s->geometry.outHeight == s->out.height && s->geometry.outWidth == s->out.width);
    NN_RET_CHECK(s->out.batches == s->in.batches);
    if (kind == WindowKind::DEPTHWISE) {
        NN_RET_CHECK(filter.dim(3) == s->out.channels);
        NN_RET_CHECK(static_cast<uint64_t>(s->in.channels) * s->depthMultiplier == s->out.channels);
    } else {
        const auto groups = static_cast<uint32_t>(s->params.groups);
        NN_RET_CHECK(filter.dim(0) == s->out.channels && s->out.channels % groups == 0);
        NN_RET_CHECK(static_cast<uint64_t>(filter.dim(3)) * groups == s->in.channels);
        s->groupInChannels = filter.dim(3);
        s->groupOutChannels = s->out.channels / groups;
    }
    return true;
}

// Visits every output element: `tap(inputIndex, filterIndex)` returns one product to add to
// the accumulator, `store(outputIndex, outChannel, accumulator)` writes the result.
struct WindowLoop {
    const ConvShape& s;

    template <typename Acc, typename Tap, typename Store>
    void run(Tap tap, Store store) const {
        const WindowGeometry& g = s.geometry;
        for (uint32_t b = 0; b < s.out.batches; ++b) {
            for (uint32_t oy = 0; oy < s.out.height; ++oy) {
                for (uint32_t ox = 0; ox < s.out.width; ++ox) {
                    const int64_t y0 = static_cast<int64_t>(oy) * g.strideH - g.padTop;
                    const int64_t x0 = static_cast<int64_t>(ox) * g.strideW - g.padLeft;
                    for (uint32_t oc = 0; oc < s.out.channels; ++oc) {
                        Acc acc{};
                        for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
                            const int64_t iy = y0 + static_cast<int64_t>(ky) * g.dilationH;
                            if (iy < 0 || iy >= g.inHeight) continue;
                            for (uint32_t kx = 0; kx < g.filterWidth; ++kx) {
                                const int64_t ix = x0 + static_cast<int64_t>(kx) * g.dilationW;
                                if (ix < 0 || ix >= g.inWidth) continue;
                                addTap(acc, tap, b, static_cast<uint32_t>(iy), static_cast<uint32_t>(ix), ky, kx, oc);
                            }
                        }
                        store(s.out.at(b, oy, ox, oc), oc, acc);
                    }
                }
            }
        }
    }

    // Adds the products of one filter tap (ky, kx) for output channel oc at input pixel (b, y, x).
    template <typename Acc, typename Tap>
    void addTap(Acc& acc, Tap& tap, uint32_t b, uint32_t y, uint32_t x, uint32_t ky, uint32_t kx,
                uint32_t oc) const {
        const WindowGeometry& g = s.geometry;
        if (s.kind == WindowKind::DEPTHWISE) {
            // filter [1, kH, kW, Cout]; output channel oc reads input channel oc / multiplier
            const size_t filterIndex = (static_cast<size_t>(ky) * g.filterWidth + kx) * s.out.channels + oc;
            acc += tap(s.in.at(b, y, x, oc / s.depthMultiplier), filterIndex);
            return;
        }
        // filter [Cout, kH, kW, Cin / groups]; oc's group reads its own run of input channels
        const size_t filterBase =
                ((static_cast<size_t>(oc) * g.filterHeight + ky) * g.filterWidth + kx) * s.groupInChannels;
        const uint32_t firstInput = oc / s.groupOutChannels * s.groupInChannels;
        for (uint32_t ic = 0; ic < s.groupInChannels; ++ic) {
            acc += tap(s.in.at(b, y, x, firstInput + ic), filterBase + ic);
        }
    }
};

bool runWindowConv(OperationContext& context, WindowKind kind) {
    ConvShape s;
    NN_RET_CHECK(resolveShape(context, kind, &s));
    return convpool::convolve(context, s.params.activation, s.out.channels, WindowLoop{s});
}

}  // namespace

bool kernels::conv2D(OperationContext& context) { return runWindowConv(context, WindowKind::CONV); }

bool kernels::depthwiseConv2D(OperationContext& context) {
    return runWindowConv(context, WindowKind::DEPTHWISE);
}

bool kernels::groupedConv2D(OperationContext& context) {
    return runWindowConv(context, WindowKind::GROUPED);
}

}  // namespace nnemu::cpu
