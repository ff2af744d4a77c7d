// Small networks of the operators today's common models add (issue 24), each one typical block
// of its family, fully delegated wherever NNAPI has the operations:
//   mobilenet_v3_block_*: image [1,32,32,3] -> conv 3x3/2 -> HARD_SWISH -> expand 1x1 ->
//       HARD_SWISH -> depthwise 3x3 -> HARD_SWISH -> squeeze-excite (MEAN over height and width,
//       1x1 RELU, 1x1, LOGISTIC, MUL) -> project 1x1 -> residual ADD -> 1x1 -> HARD_SWISH -> MEAN
//       -> FULLY_CONNECTED -> SOFTMAX [1,10].
//   yolo_head_*: image [1,32,32,3] -> three conv 3x3/2 + LEAKY_RELU(0.1) -> 1x1 + LEAKY_RELU on the
//       4x4 map -> RESIZE_NEAREST_NEIGHBOR to 8x8 -> CONCATENATION with the 8x8 map -> 1x1 to 8
//       channels -> SPLIT_V {2, 2, 1, -1} (xy, wh, objectness, 3 classes) -> LOGISTIC on xy,
//       objectness and classes. Outputs: xy, wh, objectness, classes. The route's CONCATENATION
//       inputs share its quantization, as TFLite's int8 kernel requires (and converters give).
//   transformer_block_float: tokens [1,8,16] -> layer norm (MEAN, SQUARED_DIFFERENCE, MEAN, ADD
//       epsilon, RSQRT, SUB, MUL, gamma, beta) -> q, k, v FULLY_CONNECTED -> BATCH_MATMUL(q, k^T)
//       -> MUL 1/4 -> SOFTMAX -> BATCH_MATMUL(., v) -> residual ADD -> layer norm -> FULLY_CONNECTED
//       32 -> GELU -> FULLY_CONNECTED 16 -> residual ADD [1,8,16]. GELU has no NNAPI operation:
//       it runs on the tools' CPU kernel between two delegated partitions, as in TFLite.
#include "Networks.h"

namespace nnemu::modelgen {
namespace {

const fb::ActivationFunctionType kNone = fb::ActivationFunctionType_NONE;
const fb::ActivationFunctionType kRelu = fb::ActivationFunctionType_RELU;

int32_t hardSwish(NetworkGraph& g, const std::string& name, int32_t input) {
    return g.unary(fb::BuiltinOperator_HARD_SWISH, name, input);
}

// Layer normalization over the last axis, as converters write it from its definition.
int32_t layerNorm(NetworkGraph& g, const std::string& name, int32_t x) {
    const int32_t axis = static_cast<int32_t>(g.shapeOf(x).size()) - 1;
    const int32_t width = g.shapeOf(x).back();
    const int32_t mean = g.mean(name + "/mean", x, {axis}, true);
    const int32_t squares = g.binary(fb::BuiltinOperator_SQUARED_DIFFERENCE, name + "/squared_difference", x, mean);
    const int32_t variance = g.mean(name + "/variance", squares, {axis}, true);
    const int32_t epsilon = g.addConstant(name + "/epsilon", {1, 1, 1}, {1e-5f});
    const int32_t scale = g.unary(fb::BuiltinOperator_RSQRT, name + "/rsqrt",
                                  g.binary(fb::BuiltinOperator_ADD, name + "/add_epsilon", variance, epsilon));
    const int32_t centered = g.binary(fb::BuiltinOperator_SUB, name + "/sub", x, mean);
    const int32_t normalized = g.binary(fb::BuiltinOperator_MUL, name + "/normalized", centered, scale);
    std::vector<float> gamma, beta;
    for (int32_t i = 0; i < width; ++i) {
        gamma.push_back(g.random().uniform(0.8f, 1.2f));
        beta.push_back(g.random().uniform(-0.1f, 0.1f));
    }
    const int32_t scaled = g.binary(fb::BuiltinOperator_MUL, name + "/gamma", normalized,
                                    g.addConstant(name + "/gamma_values", {1, 1, width}, gamma));
    return g.binary(fb::BuiltinOperator_ADD, name + "/beta", scaled, g.addConstant(name + "/beta_values", {1, 1, width}, beta));
}

// A dense layer on [1, tokens, width] keeping the token axis.
int32_t dense(NetworkGraph& g, const std::string& name, int32_t x, int32_t units) {
    const std::vector<int32_t> in = g.shapeOf(x);
    return g.reshape(name + "/reshape", g.fullyConnected(name, x, units, kNone), {in[0], in[1], units});
}

}  // namespace

void buildMobileNetV3Block(NetworkGraph& g, Flavor) {
    const int32_t stem = hardSwish(g, "stem/hard_swish", g.conv2d("stem", g.addInput("input", {1, 32, 32, 3}), 16, 3, 2, kNone));
    int32_t x = hardSwish(g, "block/expand/hard_swish", g.conv2d("block/expand", stem, 32, 1, 1, kNone));
    x = hardSwish(g, "block/depthwise/hard_swish", g.depthwiseConv2d("block/depthwise", x, 3, 1, kNone));
    int32_t se = g.mean("block/se/mean", x, {1, 2}, true);
    se = g.conv2d("block/se/reduce", se, 8, 1, 1, kRelu);
    se = g.unary(fb::BuiltinOperator_LOGISTIC, "block/se/sigmoid", g.conv2d("block/se/expand", se, 32, 1, 1, kNone));
    x = g.binary(fb::BuiltinOperator_MUL, "block/se/mul", x, se);
    x = g.conv2d("block/project", x, 16, 1, 1, kNone, 0.5f);
    x = g.binary(fb::BuiltinOperator_ADD, "block/add", x, stem);
    x = hardSwish(g, "head/hard_swish", g.conv2d("head/conv", x, 32, 1, 1, kNone));
    x = g.fullyConnected("logits", g.mean("head/pool", x, {1, 2}, false), 10, kNone);
    g.tensors[x].targetStddev = 2.0f;
    g.outputs = {g.softmax("probabilities", x)};
}

void buildYoloHead(NetworkGraph& g, Flavor) {
    const auto convLeaky = [&g](const std::string& name, int32_t input, int32_t channels, int32_t kernel,
                                int32_t stride) {
        return g.leakyRelu(name + "/leaky_relu", g.conv2d(name, input, channels, kernel, stride, kNone), 0.1f);
    };
    int32_t x = convLeaky("conv1", g.addInput("input", {1, 32, 32, 3}), 16, 3, 2);
    const int32_t p2 = convLeaky("conv2", x, 32, 3, 2);
    const int32_t p3 = convLeaky("conv3", p2, 32, 3, 2);
    x = convLeaky("lateral", p3, 16, 1, 1);
    const int32_t upsampled = g.resize(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, "upsample", x, 8, 8);
    x = g.concatenation("route", {upsampled, p2}, 3);
    g.tensors[p2].sameQuantizationAs = x;
    g.tensors[g.tensors[upsampled].sameQuantizationAs].sameQuantizationAs = x;
    x = g.conv2d("detect", x, 8, 1, 1, kNone);
    const std::vector<int32_t> parts = g.splitV("decode", x, {2, 2, 1, -1}, 3);
    const int32_t xy = g.unary(fb::BuiltinOperator_LOGISTIC, "decode/xy", parts[0]);
    const int32_t objectness = g.unary(fb::BuiltinOperator_LOGISTIC, "decode/objectness", parts[2]);
    const int32_t classes = g.unary(fb::BuiltinOperator_LOGISTIC, "decode/classes", parts[3]);
    g.outputs = {xy, parts[1], objectness, classes};
}

void buildTransformerBlock(NetworkGraph& g, Flavor) {
    const int32_t tokens = g.addInput("tokens", {1, 8, 16});
    const int32_t n = layerNorm(g, "attention/norm", tokens);
    const int32_t q = dense(g, "attention/query", n, 16);
    const int32_t k = dense(g, "attention/key", n, 16);
    const int32_t v = dense(g, "attention/value", n, 16);
    int32_t scores = g.batchMatmul("attention/scores", q, k, true);
    scores = g.binary(fb::BuiltinOperator_MUL, "attention/scale", scores, g.addConstant("attention/inverse_sqrt_width", {1, 1, 1}, {0.25f}));
    const int32_t attended = g.batchMatmul("attention/attended", g.softmax("attention/softmax", scores), v, false);
    const int32_t x = g.binary(fb::BuiltinOperator_ADD, "attention/residual", tokens, attended);
    int32_t h = dense(g, "mlp/up", layerNorm(g, "mlp/norm", x), 32);
    h = dense(g, "mlp/down", g.gelu("mlp/gelu", h, false), 16);
    g.outputs = {g.binary(fb::BuiltinOperator_ADD, "mlp/residual", x, h)};
}

}  // namespace nnemu::modelgen
