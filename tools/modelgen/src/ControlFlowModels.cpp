// Control-flow models: WHILE and IF with their subgraphs, float32 or int8 (TF2 style: int8
// activations, per-channel symmetric conv weights). Weights come from fixed seeds.
//   while_conv_*: image -> WHILE(i = 0, n = 3, x) { x = relu6(x + conv3x3(x)); i = i + 1 } while
//                 i < n -> global MAX_POOL_2D -> RESHAPE -> scores [1, 3]
//   if_conv_*:    image -> IF(mean(image) > 0) { relu(conv3x3(x)) } else { x * k } -> max pool -> scores
// In the int8 flavour a loop value keeps one quantization across iterations, as WHILE needs.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "SpecValues.h"

namespace nnemu::modelgen {
namespace {

namespace fb = tflite::fb;

constexpr int32_t kSize = 16;
constexpr int32_t kChannels = 3;
constexpr int32_t kIterations = 3;

// The values of one flavour: float, or int8 with the given range for activations.
struct Flavour {
    bool int8 = false;

    TensorSpec activation(const std::string& name, std::vector<int32_t> shape, float min, float max) const {
        TensorSpec t = tensorSpec(name, std::move(shape));
        if (!int8) return t;
        t.type = fb::TensorType_INT8;
        const float scale = (max - min) / 255.0f;
        t.scales = {scale};
        t.zeroPoints = {std::clamp<int64_t>(std::llround(-min / scale), 0, 255) - 128};
        return t;
    }
    // A constant with the quantization of `like` (per tensor).
    TensorSpec constantLike(const std::string& name, const TensorSpec& like, std::vector<int32_t> shape,
                            const std::vector<float>& values) const {
        TensorSpec t = like;
        t.name = name;
        t.shape = std::move(shape);
        if (!int8) {
            t.data = bytesOf(values);
            return t;
        }
        for (float v : values) {
            const int64_t q = std::llround(v / like.scales[0]) + like.zeroPoints[0];
            t.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(std::clamp<int64_t>(q, -128, 127))));
        }
        return t;
    }
};

// CONV_2D 3x3, stride 1, SAME, kChannels -> kChannels; returns the output tensor. int8: weights
// symmetric per output channel, bias int32 at input x weight scale.
int32_t conv3x3(GraphSpec& g, const Flavour& f, int32_t input, const TensorSpec& output, uint64_t seed,
                fb::ActivationFunctionType activation) {
    const size_t perChannel = 3 * 3 * kChannels;
    const std::vector<float> weights = randomValues(seed, kChannels * perChannel, -0.15f, 0.15f);
    const std::vector<float> bias = randomValues(seed + 1, kChannels, -0.2f, 0.2f);
    TensorSpec w = tensorSpec("conv/weights", {kChannels, 3, 3, kChannels});
    TensorSpec b = tensorSpec("conv/bias", {kChannels});
    if (!f.int8) {
        w.data = bytesOf(weights);
        b.data = bytesOf(bias);
    } else {
        w.type = fb::TensorType_INT8;
        b.type = fb::TensorType_INT32;
        const float inputScale = g.tensors[input].scales[0];
        std::vector<int32_t> quantizedBias;
        for (size_t c = 0; c < kChannels; ++c) {
            float maxAbs = 1e-6f;
            for (size_t i = 0; i < perChannel; ++i) maxAbs = std::max(maxAbs, std::fabs(weights[c * perChannel + i]));
            const float scale = maxAbs / 127.0f;
            w.scales.push_back(scale);
            w.zeroPoints.push_back(0);
            for (size_t i = 0; i < perChannel; ++i) {
                const int64_t q = std::clamp<int64_t>(std::llround(weights[c * perChannel + i] / scale), -127, 127);
                w.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(q)));
            }
            b.scales.push_back(inputScale * scale);
            b.zeroPoints.push_back(0);
            quantizedBias.push_back(static_cast<int32_t>(std::llround(bias[c] / (inputScale * scale))));
        }
        b.data = bytesOf(quantizedBias);
    }
    const int32_t wt = g.add(w), bt = g.add(b), out = g.add(output);
    g.ops.push_back(opSpec(fb::BuiltinOperator_CONV_2D, {input, wt, bt}, {out}, activation));
    return out;
}

// The [1, kChannels] scores: a global max pool, then RESHAPE. Both are exact on every device
// (no sums to order, no requantization), so the devices' outputs can be compared bit for bit.
void scores(GraphSpec& g, int32_t input) {
    TensorSpec pooled = g.tensors[input];
    pooled.name = "pooled";
    pooled.shape = {1, 1, 1, kChannels};
    const int32_t p = g.add(pooled);
    OpSpec pool = opSpec(fb::BuiltinOperator_MAX_POOL_2D, {input}, {p});
    pool.dims = {kSize, kSize};
    g.ops.push_back(pool);
    const int32_t shape = g.add(intTensor("scores/shape", {2}, {1, kChannels}));
    TensorSpec out = g.tensors[input];
    out.name = "scores";
    out.shape = {1, kChannels};
    const int32_t t = g.add(out);
    OpSpec reshape = opSpec(fb::BuiltinOperator_RESHAPE, {p, shape}, {t});
    reshape.dims = {1, kChannels};
    g.ops.push_back(reshape);
    g.outputs = {t};
}

std::vector<GraphSpec> whileConv(const Flavour& f) {
    const std::vector<int32_t> image = {1, kSize, kSize, kChannels};
    // One quantization for the loop value: x + conv(x) after RELU6 stays in [0, 6].
    const TensorSpec loopValue = f.activation("x", image, -2.0f, 6.0f);
    GraphSpec main, cond, body;
    main.name = "main";
    cond.name = "cond";
    body.name = "body";
    TensorSpec input = loopValue;
    input.name = "image";
    const int32_t x = main.add(input);
    main.inputs = {x};
    const int32_t i0 = main.add(intTensor("i0", {}, {0}));
    const int32_t n = main.add(intTensor("n", {}, {kIterations}));
    const int32_t iOut = main.add(intTensor("i_final", {}));
    const int32_t nOut = main.add(intTensor("n_final", {}));
    TensorSpec y = loopValue;
    y.name = "y";
    const int32_t yOut = main.add(y);
    main.ops.push_back(controlFlowSpec(fb::BuiltinOperator_WHILE, {i0, n, x}, {iOut, nOut, yOut}, 1, 2));
    scores(main, yOut);

    for (GraphSpec* g : {&cond, &body}) {
        g->inputs = {g->add(intTensor("i", {})), g->add(intTensor("n", {})), g->add(loopValue)};
    }
    const int32_t more = cond.add(tensorSpec("more", {}, fb::TensorType_BOOL));
    cond.ops.push_back(opSpec(fb::BuiltinOperator_LESS, {cond.inputs[0], cond.inputs[1]}, {more}));
    cond.outputs = {more};

    const int32_t one = body.add(intTensor("one", {}, {1}));
    const int32_t next = body.add(intTensor("i_next", {}));
    body.ops.push_back(opSpec(fb::BuiltinOperator_ADD, {body.inputs[0], one}, {next}));
    const int32_t h = conv3x3(body, f, body.inputs[2], f.activation("h", image, -8.0f, 8.0f), 0x5eed0001,
                              fb::ActivationFunctionType_NONE);
    TensorSpec sum = loopValue;
    sum.name = "x_next";
    const int32_t xNext = body.add(sum);
    body.ops.push_back(opSpec(fb::BuiltinOperator_ADD, {body.inputs[2], h}, {xNext}, fb::ActivationFunctionType_RELU6));
    body.outputs = {next, body.inputs[1], xNext};   // n passes through unchanged
    return {main, cond, body};
}

std::vector<GraphSpec> ifConv(const Flavour& f) {
    const std::vector<int32_t> image = {1, kSize, kSize, kChannels};
    const TensorSpec inputSpec = f.activation("image", image, -1.0f, 1.0f);
    const TensorSpec result = f.activation("y", image, -2.0f, 6.0f);
    GraphSpec main, thenGraph, elseGraph;
    main.name = "main";
    thenGraph.name = "then";
    elseGraph.name = "else";
    const int32_t x = main.add(inputSpec);
    main.inputs = {x};
    const int32_t all = main.add(intTensor("all_axes", {3}, {1, 2, 3}));
    TensorSpec meanSpec = inputSpec;
    meanSpec.name = "brightness";
    meanSpec.shape = {1};
    const int32_t mean = main.add(meanSpec);
    main.ops.push_back(opSpec(fb::BuiltinOperator_MEAN, {x, all}, {mean}));
    const int32_t threshold = main.add(f.constantLike("threshold", meanSpec, {1}, {0.0f}));
    const int32_t bright = main.add(tensorSpec("bright", {1}, fb::TensorType_BOOL));
    main.ops.push_back(opSpec(fb::BuiltinOperator_GREATER, {mean, threshold}, {bright}));
    const int32_t y = main.add(result);
    main.ops.push_back(controlFlowSpec(fb::BuiltinOperator_IF, {bright, x}, {y}, 1, 2));
    scores(main, y);

    thenGraph.inputs = {thenGraph.add(inputSpec)};
    thenGraph.outputs = {conv3x3(thenGraph, f, thenGraph.inputs[0], result, 0x5eed0002,
                                 fb::ActivationFunctionType_RELU)};
    elseGraph.inputs = {elseGraph.add(inputSpec)};
    const TensorSpec gainSpec = f.activation("gain", {kChannels}, -1.0f, 2.0f);
    const int32_t gain = elseGraph.add(f.constantLike("gain", gainSpec, {kChannels}, {0.5f, -1.0f, 2.0f}));
    const int32_t scaled = elseGraph.add(result);
    elseGraph.ops.push_back(opSpec(fb::BuiltinOperator_MUL, {elseGraph.inputs[0], gain}, {scaled}));
    elseGraph.outputs = {scaled};
    return {main, thenGraph, elseGraph};
}

}  // namespace

std::vector<GraphSpec> controlFlowGraphs(const std::string& name) {
    const Flavour f{name.size() > 5 && name.compare(name.size() - 5, 5, "_int8") == 0};
    const std::string base = name.substr(0, name.rfind('_'));
    if (base == "while_conv" && (f.int8 || name == "while_conv_float")) return whileConv(f);
    if (base == "if_conv" && (f.int8 || name == "if_conv_float")) return ifConv(f);
    return {};
}

}  // namespace nnemu::modelgen
