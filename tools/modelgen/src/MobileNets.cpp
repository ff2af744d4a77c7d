// MobileNet v1 (depthwise separable convolutions) and v2 (inverted residuals with linear
// bottlenecks) at any width multiplier and resolution, shaped like the published models:
// uint8 and float ones end in AVERAGE_POOL_2D, int8 ones in MEAN with uint8 QUANTIZE edges, or
// with int8 input and output when integer-only.
#include <algorithm>
#include <cstdio>

#include "Networks.h"

namespace nnemu::modelgen {
namespace {

constexpr int32_t kClasses = 1001;
constexpr float kLogitsStddev = 2.5f;   // spread of the logits: a few classes get visible scores

std::string formatAlpha(float alpha) {
    char text[16];
    std::snprintf(text, sizeof text, "%.2g", static_cast<double>(alpha));
    std::string s = text;
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
}

int32_t addClassifierHead(NetworkGraph& g, const std::string& scope, int32_t features, Flavor flavor,
                          bool integerOnly) {
    const std::vector<int32_t> shape = g.shapeOf(features);
    int32_t pooled;
    if (flavor == Flavor::INT8) {
        pooled = g.mean(scope + "/Logits/AvgPool", features, {1, 2}, true);
    } else {
        pooled = g.pool(fb::BuiltinOperator_AVERAGE_POOL_2D, scope + "/Logits/AvgPool", features, shape[1], 2,
                        fb::Padding_VALID);
    }
    const int32_t logits = g.conv2d(scope + "/Logits/Conv2d_1c_1x1", pooled, kClasses, 1, 1,
                                    fb::ActivationFunctionType_NONE, 0.7f);
    g.tensors[logits].targetStddev = kLogitsStddev;
    const int32_t squeezed = g.reshape(scope + "/Logits/SpatialSqueeze", logits, {1, kClasses});
    int32_t output = g.softmax(scope + "/Predictions/Reshape_1", squeezed);
    if (flavor == Flavor::INT8 && !integerOnly) output = g.quantizeTo(scope + "/Predictions/uint8", output, fb::TensorType_UINT8);
    g.outputs = {output};
    return output;
}

int32_t addInput(NetworkGraph& g, int32_t resolution, Flavor flavor, bool integerOnly) {
    // [-1, 1) in uint8 steps: scale 1/128, zero point 128, as the published models read images.
    const int32_t input = g.addInput("input", {1, resolution, resolution, 3}, -1.0f, 127.0f / 128.0f);
    if (flavor == Flavor::INT8 && !integerOnly) return g.quantizeFrom("input_int8", input, fb::TensorType_UINT8);
    return input;
}

}  // namespace

uint64_t seedOf(const std::string& name) {
    uint64_t hash = 1469598103934665603ull;
    for (char c : name) {
        hash ^= static_cast<uint8_t>(c);
        hash *= 1099511628211ull;
    }
    return hash;
}

NetworkGraph buildMobileNetV1(float alpha, int32_t resolution, Flavor flavor, bool integerOnly) {
    NetworkGraph g(seedOf("mobilenet_v1_" + formatAlpha(alpha) + "_" + std::to_string(resolution)));
    const auto width = [alpha](int32_t channels) { return std::max(8, static_cast<int32_t>(channels * alpha)); };
    int32_t x = addInput(g, resolution, flavor, integerOnly);
    x = g.conv2d("MobilenetV1/Conv2d_0", x, width(32), 3, 2, fb::ActivationFunctionType_RELU6);
    const struct {
        int32_t stride, channels;
    } layers[] = {{1, 64}, {2, 128}, {1, 128}, {2, 256}, {1, 256}, {2, 512}, {1, 512},
                  {1, 512}, {1, 512}, {1, 512}, {1, 512}, {2, 1024}, {1, 1024}};
    int index = 1;
    for (const auto& layer : layers) {
        const std::string name = "MobilenetV1/Conv2d_" + std::to_string(index++);
        x = g.depthwiseConv2d(name + "_depthwise", x, 3, layer.stride, fb::ActivationFunctionType_RELU6);
        x = g.conv2d(name + "_pointwise", x, width(layer.channels), 1, 1, fb::ActivationFunctionType_RELU6);
    }
    addClassifierHead(g, "MobilenetV1", x, flavor, integerOnly);
    return g;
}

NetworkGraph buildMobileNetV2(float alpha, int32_t resolution, Flavor flavor, bool integerOnly) {
    NetworkGraph g(seedOf("mobilenet_v2_" + formatAlpha(alpha) + "_" + std::to_string(resolution)));
    // Channel counts rounded to multiples of 8, as the reference implementation does.
    const auto width = [alpha](int32_t channels) {
        const auto scaled = static_cast<int32_t>(channels * alpha);
        return std::max(8, (scaled + 4) / 8 * 8);
    };
    int32_t x = addInput(g, resolution, flavor, integerOnly);
    x = g.conv2d("MobilenetV2/Conv", x, width(32), 3, 2, fb::ActivationFunctionType_RELU6);
    int32_t channels = width(32);
    const struct {
        int32_t expansion, channels, repeats, stride;
    } blocks[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int index = 0;
    for (const auto& block : blocks) {
        for (int32_t r = 0; r < block.repeats; ++r) {
            const std::string name = "MobilenetV2/expanded_conv" + (index == 0 ? std::string() : "_" + std::to_string(index));
            ++index;
            const int32_t stride = r == 0 ? block.stride : 1;
            const int32_t out = width(block.channels);
            int32_t h = x;
            if (block.expansion != 1) {
                h = g.conv2d(name + "/expand", h, channels * block.expansion, 1, 1, fb::ActivationFunctionType_RELU6);
            }
            h = g.depthwiseConv2d(name + "/depthwise", h, 3, stride, fb::ActivationFunctionType_RELU6);
            // Linear bottleneck: no activation, a smaller gain keeps residual sums in range.
            h = g.conv2d(name + "/project", h, out, 1, 1, fb::ActivationFunctionType_NONE, 0.5f);
            if (stride == 1 && channels == out) h = g.binary(fb::BuiltinOperator_ADD, name + "/add", h, x);
            x = h;
            channels = out;
        }
    }
    x = g.conv2d("MobilenetV2/Conv_1", x, alpha > 1.0f ? width(1280) : 1280, 1, 1, fb::ActivationFunctionType_RELU6);
    addClassifierHead(g, "MobilenetV2", x, flavor, integerOnly);
    return g;
}

}  // namespace nnemu::modelgen
