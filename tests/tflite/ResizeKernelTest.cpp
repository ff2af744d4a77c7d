// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR with align_corners and half_pixel_centers, in every
// mode (the tools' CPU kernel, and NNAPI's operation where a delegate takes the node), against the
// coordinate formulas written out here.
#include <cmath>
#include <type_traits>

#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

struct Case {
    bool align, half;
};

double sourceOf(int o, int in, int out, Case c) {
    const double scale = c.align && out > 1 ? double(in - 1) / (out - 1) : double(in) / out;
    return c.half ? (o + 0.5) * scale - (c.align ? 0.0 : 0.5) : o * scale;
}

// NHWC [1,h,w,ch] -> [1,oh,ow,ch].
std::vector<double> expectedResize(const std::vector<double>& x, int h, int w, int ch, int oh, int ow, Case c,
                                   bool bilinear) {
    std::vector<double> out;
    for (int y = 0; y < oh; ++y) {
        for (int xo = 0; xo < ow; ++xo) {
            for (int k = 0; k < ch; ++k) {
                const auto px = [&](int yy, int xx) { return x[(yy * w + xx) * ch + k]; };
                if (bilinear) {
                    const double sy = std::max(0.0, sourceOf(y, h, oh, {c.align, c.half}));
                    const double sx = std::max(0.0, sourceOf(xo, w, ow, {c.align, c.half}));
                    const int y0 = std::min(int(std::floor(sy)), h - 1), x0 = std::min(int(std::floor(sx)), w - 1);
                    const int y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
                    const double fy = sy - y0, fx = sx - x0;
                    out.push_back((px(y0, x0) * (1 - fx) + px(y0, x1) * fx) * (1 - fy) +
                                  (px(y1, x0) * (1 - fx) + px(y1, x1) * fx) * fy);
                } else {
                    const double scaleY = c.align && oh > 1 ? double(h - 1) / (oh - 1) : double(h) / oh;
                    const double scaleX = c.align && ow > 1 ? double(w - 1) / (ow - 1) : double(w) / ow;
                    const double off = c.half ? 0.5 : 0.0;
                    const auto pick = [&](double v, int n) {
                        return std::clamp(int(c.align ? std::round(v) : std::floor(v)), 0, n - 1);
                    };
                    out.push_back(px(pick((y + off) * scaleY, h), pick((xo + off) * scaleX, w)));
                }
            }
        }
    }
    return out;
}

template <typename T>
void checkResize(fb::BuiltinOperator code, fb::TensorType type, Case c, std::vector<float> scales) {
    const int h = 3, w = 4, ch = 2, oh = 5, ow = 7;
    GB g;
    const int32_t in = g.tensor({1, h, w, ch}, type, {}, scales);
    const int32_t size = g.tensor({2}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{oh, ow}));
    const int32_t out = g.tensor({1, oh, ow, ch}, type, {}, scales);
    if (code == fb::BuiltinOperator_RESIZE_BILINEAR) {
        g.op(code, {in, size}, {out}, fb::BuiltinOptions_ResizeBilinearOptions, [c](flatbuffers::FlatBufferBuilder& b) {
            return fb::CreateResizeBilinearOptions(b, c.align, c.half).Union();
        });
    } else {
        g.op(code, {in, size}, {out}, fb::BuiltinOptions_ResizeNearestNeighborOptions,
             [c](flatbuffers::FlatBufferBuilder& b) { return fb::CreateResizeNearestNeighborOptions(b, c.align, c.half).Union(); });
    }
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    const bool quantized = type != fb::TensorType_FLOAT32;
    // 200 levels for the 8-bit types, inside the type's range (a negative double converted to
    // uint8_t is undefined).
    const double low = !quantized ? -3 : std::is_signed_v<T> ? -100 : 28;
    const std::vector<T> x = randomValues<T>(h * w * ch, low, quantized ? low + 200 : 3, 7);
    const std::vector<double> want =
            expectedResize(std::vector<double>(x.begin(), x.end()), h, w, ch, oh, ow, c, code == fb::BuiltinOperator_RESIZE_BILINEAR);
    std::vector<T> expected;
    for (double v : want) expected.push_back(static_cast<T>(quantized ? std::round(v) : v));
    expectOutputs(*model, {GB::bytes(x)}, {GB::bytes(expected)}, false, 1e-5f);
}

TEST(ResizeKernel, BilinearAlignmentOptions) {
    for (Case c : {Case{true, false}, Case{false, true}, Case{false, false}}) {
        SCOPED_TRACE(std::to_string(c.align) + std::to_string(c.half));
        checkResize<float>(fb::BuiltinOperator_RESIZE_BILINEAR, fb::TensorType_FLOAT32, c, {});
        checkResize<int8_t>(fb::BuiltinOperator_RESIZE_BILINEAR, fb::TensorType_INT8, c, {0.1f});
    }
    checkResize<uint8_t>(fb::BuiltinOperator_RESIZE_BILINEAR, fb::TensorType_UINT8, {true, false}, {0.1f});
}

TEST(ResizeKernel, NearestAlignmentOptions) {
    for (Case c : {Case{true, false}, Case{false, true}, Case{true, true}, Case{false, false}}) {
        SCOPED_TRACE(std::to_string(c.align) + std::to_string(c.half));
        checkResize<float>(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, fb::TensorType_FLOAT32, c, {});
        checkResize<uint8_t>(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, fb::TensorType_UINT8, c, {0.1f});
        checkResize<int8_t>(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, fb::TensorType_INT8, c, {0.1f});
    }
}

// An empty image (a fuzzer found it) has no pixels to interpolate: refused when the model is
// prepared, instead of reading before the start of the input.
TEST(ResizeKernel, EmptyImageIsRefused) {
    GB g;
    const int32_t in = g.tensor({1, 0, 4, 2}, fb::TensorType_FLOAT32);
    const int32_t out = g.tensor({1, 5, 7, 2}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_RESIZE_BILINEAR, {in}, {out}, fb::BuiltinOptions_ResizeBilinearOptions,
         [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateResizeBilinearOptions(b, true, false).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    const std::string error = createError(*model);
    EXPECT_NE(error.find("CPU kernel: input and output height and width must be positive"), std::string::npos) << error;
}

}  // namespace
}  // namespace nnemu::tflite::test
