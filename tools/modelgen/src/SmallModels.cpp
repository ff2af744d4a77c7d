// Small models of one operation each (plus a few two-operation ones), for tests, examples and
// the fuzz corpus, and mixed_resize_nearest: conv -> RESIZE_NEAREST_NEIGHBOR -> conv, an
// operation NPUs commonly lack between two they run.
#include "Networks.h"

namespace nnemu::modelgen {
namespace {

using Builder = void (*)(NetworkGraph& g, Flavor flavor);

struct SmallModel {
    SmallModelKind kind;
    Builder build;
};

const fb::ActivationFunctionType kRelu = fb::ActivationFunctionType_RELU;
const fb::ActivationFunctionType kRelu6 = fb::ActivationFunctionType_RELU6;
const fb::ActivationFunctionType kNone = fb::ActivationFunctionType_NONE;

int32_t image(NetworkGraph& g, int32_t size, int32_t channels, const char* name = "input") {
    return g.addInput(name, {1, size, size, channels});
}

void conv(NetworkGraph& g, Flavor) { g.outputs = {g.conv2d("conv", image(g, 16, 8), 16, 3, 1, kRelu)}; }
void depthwise(NetworkGraph& g, Flavor) { g.outputs = {g.depthwiseConv2d("depthwise", image(g, 16, 8), 3, 2, kRelu6, 2)}; }
void fullyConnected(NetworkGraph& g, Flavor) {
    g.outputs = {g.fullyConnected("dense", g.addInput("input", {1, 64}), 16, kRelu)};
}
void add(NetworkGraph& g, Flavor) {
    const int32_t a = image(g, 8, 4, "input1");
    const int32_t b = g.addInput("input2", {1, 8, 8, 4}, -2.0f, 2.0f);
    g.outputs = {g.binary(fb::BuiltinOperator_ADD, "add", a, b)};
}
void mul(NetworkGraph& g, Flavor) {
    const int32_t a = image(g, 8, 4, "input1");
    const int32_t b = g.addInput("input2", {1, 8, 8, 4}, -2.0f, 2.0f);
    g.outputs = {g.binary(fb::BuiltinOperator_MUL, "mul", a, b)};
}
void sub(NetworkGraph& g, Flavor) {
    const int32_t a = image(g, 8, 4, "input1");
    const int32_t b = g.addInput("input2", {1, 8, 8, 4}, -2.0f, 2.0f);
    g.outputs = {g.binary(fb::BuiltinOperator_SUB, "sub", a, b)};
}
void averagePool(NetworkGraph& g, Flavor) {
    g.outputs = {g.pool(fb::BuiltinOperator_AVERAGE_POOL_2D, "avgpool", image(g, 16, 8), 2, 2, fb::Padding_VALID)};
}
void maxPool(NetworkGraph& g, Flavor) {
    g.outputs = {g.pool(fb::BuiltinOperator_MAX_POOL_2D, "maxpool", image(g, 16, 8), 3, 2, fb::Padding_SAME)};
}
void softmax(NetworkGraph& g, Flavor) { g.outputs = {g.softmax("softmax", g.addInput("input", {1, 10}, -4.0f, 4.0f))}; }
void logistic(NetworkGraph& g, Flavor) {
    g.outputs = {g.unary(fb::BuiltinOperator_LOGISTIC, "logistic", g.addInput("input", {1, 8, 8, 4}, -6.0f, 6.0f))};
}
void tanhModel(NetworkGraph& g, Flavor) {
    g.outputs = {g.unary(fb::BuiltinOperator_TANH, "tanh", g.addInput("input", {1, 8, 8, 4}, -3.0f, 3.0f))};
}
void relu(NetworkGraph& g, Flavor) { g.outputs = {g.unary(fb::BuiltinOperator_RELU, "relu", image(g, 8, 4))}; }
void relu6(NetworkGraph& g, Flavor) {
    g.outputs = {g.unary(fb::BuiltinOperator_RELU6, "relu6", g.addInput("input", {1, 8, 8, 4}, -8.0f, 8.0f))};
}
// TFLite's int8 quantization spec gives CONCATENATION's inputs the output's scale and zero point
// (its int8 kernel refuses others at prepare); uint8 keeps inputs of their own, which it rescales.
void concat(NetworkGraph& g, Flavor flavor) {
    const int32_t a = image(g, 8, 3, "input1");
    const int32_t b = image(g, 8, 5, "input2");
    g.outputs = {g.concatenation("concat", {a, b}, 3)};
    if (flavor == Flavor::INT8) g.setFixedRange(g.outputs[0], -1.0f, 127.0f / 128.0f);   // the inputs' range
}
void split(NetworkGraph& g, Flavor) { g.outputs = g.split("split", image(g, 8, 6), 3, 3); }
void reshape(NetworkGraph& g, Flavor) { g.outputs = {g.reshape("reshape", image(g, 4, 8), {1, 128})}; }
void squeeze(NetworkGraph& g, Flavor) { g.outputs = {g.squeeze("squeeze", g.addInput("input", {1, 1, 1, 10}), {1, 2})}; }
void pad(NetworkGraph& g, Flavor) { g.outputs = {g.pad("pad", image(g, 8, 4), {0, 0, 1, 1, 1, 1, 0, 0})}; }
void mean(NetworkGraph& g, Flavor) { g.outputs = {g.mean("mean", image(g, 8, 16), {1, 2}, true)}; }
void resizeBilinear(NetworkGraph& g, Flavor) {
    g.outputs = {g.resize(fb::BuiltinOperator_RESIZE_BILINEAR, "resize_bilinear", image(g, 8, 4), 16, 16)};
}
void resizeNearest(NetworkGraph& g, Flavor) {
    g.outputs = {g.resize(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, "resize_nearest", image(g, 8, 4), 16, 16)};
}
void quantize(NetworkGraph& g, Flavor) { g.outputs = {g.quantizeFrom("quantize", image(g, 8, 4), fb::TensorType_FLOAT32)}; }
void dequantize(NetworkGraph& g, Flavor) { g.outputs = {g.dequantize("dequantize", image(g, 8, 4))}; }
void requantize(NetworkGraph& g, Flavor) {
    // uint8 in, the model's type out: TF2's input edge, two NNAPI operations for one node.
    g.outputs = {g.quantizeFrom("requantize", image(g, 8, 4), fb::TensorType_UINT8)};
}
void mixedResizeNearest(NetworkGraph& g, Flavor) {
    int32_t x = g.conv2d("conv1", image(g, 32, 3), 8, 3, 1, kRelu6);
    x = g.resize(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, "upsample", x, 64, 64);
    g.outputs = {g.conv2d("conv2", x, 8, 3, 1, kNone)};
}

void argMax(NetworkGraph& g, Flavor) { g.outputs = {g.argMax("argmax", image(g, 8, 6), 3)}; }
void transposeConv(NetworkGraph& g, Flavor) { g.outputs = {g.transposeConv("transpose_conv", image(g, 8, 4), 8, 3, 2)}; }
void gather(NetworkGraph& g, Flavor) { g.outputs = {g.gather("gather", image(g, 8, 6), {5, 0, 2}, 3)}; }
void tile(NetworkGraph& g, Flavor) { g.outputs = {g.tile("tile", image(g, 4, 3), {1, 2, 2, 1})}; }
void topK(NetworkGraph& g, Flavor) { g.outputs = g.topK("topk", g.addInput("input", {1, 16}), 4); }
void expandDims(NetworkGraph& g, Flavor) { g.outputs = {g.expandDims("expand_dims", g.addInput("input", {1, 16}), 1)}; }
// Two inputs with different data. Quantized, both take the output's scale and zero point, as
// TFLite's quantization spec has it: TFLite's kernel compares the stored values as they are,
// NNAPI's rescales them to the output, and only with one quantization do the two agree.
int32_t maxOrMin(NetworkGraph& g, fb::BuiltinOperator code, const char* name) {
    const int32_t a = image(g, 8, 4, "input1");
    const int32_t b = g.addInput("input2", {1, 8, 8, 4}, -2.0f, 2.0f);
    const int32_t output = g.binary(code, name, a, b);
    for (const int32_t t : {a, b, output}) g.setFixedRange(t, -2.0f, 2.0f);   // one range: one quantization
    return output;
}
void maximum(NetworkGraph& g, Flavor) { g.outputs = {maxOrMin(g, fb::BuiltinOperator_MAXIMUM, "maximum")}; }
void minimum(NetworkGraph& g, Flavor) { g.outputs = {maxOrMin(g, fb::BuiltinOperator_MINIMUM, "minimum")}; }
void prelu(NetworkGraph& g, Flavor) {
    g.outputs = {g.prelu("prelu", image(g, 8, 4), {1, 1, 4}, {0.1f, 0.2f, 0.25f, 0.05f})};
}
void logSoftmax(NetworkGraph& g, Flavor) {
    g.outputs = {g.logSoftmax("log_softmax", g.addInput("input", {1, 10}, -4.0f, 4.0f))};
}
void power(NetworkGraph& g, Flavor) {
    const int32_t base = g.addInput("input", {1, 8}, 0.1f, 2.0f);
    g.outputs = {g.binary(fb::BuiltinOperator_POW, "pow", base, g.addConstant("exponent", {1}, {2.5f}))};
}
void selectGreater(NetworkGraph& g, Flavor) {
    const int32_t a = image(g, 8, 4, "input1");
    const int32_t b = image(g, 8, 4, "input2");
    const int32_t larger = g.select("select", g.compare(fb::BuiltinOperator_GREATER, "greater", a, b), a, b);
    g.tensors[larger].sameQuantizationAs = a;   // SELECT copies values: one quantization for all
    g.outputs = {larger};
}
void sequenceRnn(NetworkGraph& g, Flavor) { g.outputs = {g.sequenceRnn("rnn", g.addInput("input", {1, 6, 4}), 8)}; }
void sequenceLstm(NetworkGraph& g, Flavor) { g.outputs = {g.sequenceLstm("lstm", g.addInput("input", {1, 6, 4}), 8)}; }
// A small classifier of the layers int8 vision models are made of: strided conv, depthwise,
// a residual ADD, MAX_POOL, MEAN, FULLY_CONNECTED and SOFTMAX. Its int8 flavor has int8 input
// and output (full-integer quantization).
void convNet(NetworkGraph& g, Flavor) {
    const int32_t stem = g.conv2d("stem", image(g, 16, 3), 8, 3, 2, kRelu6);
    int32_t x = g.depthwiseConv2d("block/depthwise", stem, 3, 1, kRelu6);
    x = g.conv2d("block/project", x, 8, 1, 1, kNone, 0.5f);
    x = g.binary(fb::BuiltinOperator_ADD, "block/add", x, stem);
    x = g.pool(fb::BuiltinOperator_MAX_POOL_2D, "pool", x, 2, 2, fb::Padding_VALID);
    x = g.mean("mean", x, {1, 2}, false);
    x = g.fullyConnected("logits", x, 10, kNone);
    g.tensors[x].targetStddev = 2.0f;   // a few classes with visible scores
    g.outputs = {g.softmax("probabilities", x)};
}
void cast(NetworkGraph& g, Flavor) { g.outputs = {g.cast("cast", g.addInput("input", {1, 16}), fb::TensorType_INT32)}; }

const std::vector<SmallModel>& smallModels() {
    static const std::vector<SmallModel> models = {
            {{"conv", "CONV_2D 3x3, 8 -> 16 channels, RELU", true, true, true}, conv},
            {{"depthwise_conv", "DEPTHWISE_CONV_2D 3x3 stride 2, multiplier 2, RELU6", true, true, true}, depthwise},
            {{"fully_connected", "FULLY_CONNECTED 64 -> 16, RELU", true, true, true}, fullyConnected},
            {{"multiplier_above_one", "classifier whose CONV_2D and FULLY_CONNECTED requantize by about 2", false,
              true, true},
             buildMultiplierAboveOne},
            {{"add", "ADD of two inputs with different ranges", true, true, true}, add},
            {{"mul", "MUL of two inputs", true, true, true}, mul},
            {{"sub", "SUB of two inputs", true, true, true}, sub},
            {{"average_pool", "AVERAGE_POOL_2D 2x2 stride 2, VALID", true, true, true}, averagePool},
            {{"max_pool", "MAX_POOL_2D 3x3 stride 2, SAME", true, true, true}, maxPool},
            {{"softmax", "SOFTMAX over 10 values", true, true, true}, softmax},
            {{"logistic", "LOGISTIC", true, true, true}, logistic},
            {{"tanh", "TANH", true, true, true}, tanhModel},
            {{"relu", "RELU", true, true, true}, relu},
            {{"relu6", "RELU6", true, true, true}, relu6},
            {{"concat", "CONCATENATION of 3 and 5 channels (int8: one quantization)", true, true, true}, concat},
            {{"split", "SPLIT into 3 along channels", true, true, true}, split},
            {{"reshape", "RESHAPE [1,4,4,8] -> [1,128]", true, true, true}, reshape},
            {{"squeeze", "SQUEEZE [1,1,1,10] -> [1,10]", true, true, true}, squeeze},
            {{"pad", "PAD height and width by 1", true, true, true}, pad},
            {{"mean", "MEAN over height and width", true, true, true}, mean},
            {{"resize_bilinear", "RESIZE_BILINEAR 8x8 -> 16x16", true, true, true}, resizeBilinear},
            {{"resize_nearest", "RESIZE_NEAREST_NEIGHBOR 8x8 -> 16x16", true, true, true}, resizeNearest},
            {{"quantize", "QUANTIZE float32 -> quantized", false, true, true}, quantize},
            {{"dequantize", "DEQUANTIZE quantized -> float32", false, true, true}, dequantize},
            {{"requantize", "QUANTIZE uint8 -> int8 (DEQUANTIZE + QUANTIZE in NNAPI)", false, false, true}, requantize},
            {{"mixed_resize_nearest", "CONV_2D -> RESIZE_NEAREST_NEIGHBOR -> CONV_2D", true, true, true}, mixedResizeNearest},
            {{"argmax", "ARG_MAX over 6 channels, int32 output", true, true, true}, argMax},
            {{"transpose_conv", "TRANSPOSE_CONV 3x3 stride 2, 4 -> 8 channels", true, true, true}, transposeConv},
            {{"gather", "GATHER of 3 channels", true, true, true}, gather},
            {{"tile", "TILE [1,4,4,3] x [1,2,2,1]", true, true, true}, tile},
            {{"topk", "TOPK_V2 k=4 of 16 values (values and int32 indices)", true, true, true}, topK},
            {{"expand_dims", "EXPAND_DIMS [1,16] -> [1,1,16]", true, true, true}, expandDims},
            {{"maximum", "MAXIMUM of two inputs sharing the output's quantization", true, true, true}, maximum},
            {{"minimum", "MINIMUM of two inputs sharing the output's quantization", true, true, true}, minimum},
            {{"prelu", "PRELU with per-channel alpha", true, true, true}, prelu},
            {{"log_softmax", "LOG_SOFTMAX over 10 values", true, false, false}, logSoftmax},
            {{"pow", "POW with a constant exponent", true, false, false}, power},
            {{"select_greater", "GREATER -> SELECT (bool condition)", true, true, true}, selectGreater},
            {{"cast", "CAST float32 -> int32", true, false, false}, cast},
            {{"conv_net", "classifier 16x16x3: conv, depthwise, residual ADD, MAX_POOL, MEAN, FULLY_CONNECTED, SOFTMAX",
              true, true, true},
             convNet},
            {{"sequence_rnn", "UNIDIRECTIONAL_SEQUENCE_RNN, 6 steps, 8 units, RELU6", true, false, false}, sequenceRnn},
            {{"sequence_lstm", "UNIDIRECTIONAL_SEQUENCE_LSTM, 6 steps, 8 units (no peephole)", true, false, false},
             sequenceLstm},
            {{"mobilenet_v3_block", "MobileNetV3-style 32x32x3: HARD_SWISH, squeeze-excite (MEAN, LOGISTIC, MUL), residual ADD, 10 classes",
              true, true, true},
             buildMobileNetV3Block},
            {{"yolo_head", "YOLO-style head 32x32x3: LEAKY_RELU, RESIZE_NEAREST_NEIGHBOR, CONCATENATION, SPLIT_V, LOGISTIC",
              true, true, true},
             buildYoloHead},
            {{"transformer_block", "transformer block [1,8,16]: layer norm (MEAN, SQUARED_DIFFERENCE, RSQRT), BATCH_MATMUL attention, SOFTMAX, GELU MLP",
              true, false, false},
             buildTransformerBlock},
    };
    return models;
}

}  // namespace

const std::vector<SmallModelKind>& smallModelKinds() {
    static const std::vector<SmallModelKind> kinds = [] {
        std::vector<SmallModelKind> list;
        for (const SmallModel& model : smallModels()) list.push_back(model.kind);
        return list;
    }();
    return kinds;
}

bool buildSmallModel(const std::string& base, Flavor flavor, NetworkGraph* graph) {
    for (const SmallModel& model : smallModels()) {
        if (base == model.kind.base) {
            *graph = NetworkGraph(seedOf(base));
            model.build(*graph, flavor);
            return true;
        }
    }
    return false;
}

}  // namespace nnemu::modelgen
