// Models with nodes TFLite's NNAPI delegate cannot take at feature level 29, as published vision
// models have them; the tools run those nodes on their CPU kernels between delegated partitions.
//   deeplab_segmenter_*: image [1,16,16,3] -> conv 3x3/2 RELU -> conv 1x1 -> logits [1,8,8,4]
//       -> RESIZE_BILINEAR (align_corners) [1,16,16,4] -> ARG_MAX (int64) -> labels [1,16,16].
//       Outputs: logits, labels (the logits first, so that label_image has scores to rank).
//   pose_keypoints_float: image -> conv 3x3/2 -> heatmaps [1,8,8,4] -> RESHAPE [1,64,4] -> ARG_MAX
//       (int64) -> CAST int32 -> FLOOR_DIV / FLOOR_MOD by 8 (row, column) -> CAST float ->
//       CONCATENATION with the batch and keypoint columns -> CAST int32 -> GATHER_ND (scores [4]);
//       row and column / 8 -> coordinates [4,2]. Outputs: scores, coordinates, heatmaps.
//   extreme_scales_quant: uint8 image [1,8,8,3] -> MAX_POOL 2x2 -> h [1,4,4,3] -> MUL by a gain
//       of scale 1e-14 (a degenerate range, as converters give tensors that stay near 0) -> tiny;
//       ADD(h, tiny) -> MAX_POOL 4x4 -> RESHAPE -> scores [1,3]. Outputs: scores, h, tiny.
//   dynamic_range_float: TFLite's dynamic-range quantization (the converter's default
//       optimization without a representative dataset): float image [1,16,16,3] -> CONV 3x3/2
//       RELU with int8 weights per output channel -> [1,8,8,8] -> RESHAPE [1,512] ->
//       FULLY_CONNECTED with int8 weights per tensor -> [1,10] -> SOFTMAX. Float activations and
//       biases; TFLite quantizes each input on the fly. Output: the 10 probabilities.
// Weights come from fixed seeds; quantized models are uint8 per tensor (TF1 style).
#include <algorithm>
#include <cmath>

#include "SpecValues.h"

namespace nnemu::modelgen {
namespace {

namespace fb = tflite::fb;

// Float, or uint8 with per-tensor parameters.
struct Builder {
    bool quant = false;
    GraphSpec g;

    int32_t activation(const std::string& name, std::vector<int32_t> shape, float min, float max) {
        TensorSpec t = tensorSpec(name, std::move(shape));
        if (quant) quantize(t, min, max);
        return g.add(t);
    }
    static void quantize(TensorSpec& t, float min, float max) {
        t.type = fb::TensorType_UINT8;
        const float scale = (max - min) / 255.0f;
        t.scales = {scale};
        t.zeroPoints = {std::clamp<int64_t>(std::llround(-min / scale), 0, 255)};
    }
    // A constant of real values: float, or uint8 asymmetric over the values' range (with 0).
    int32_t constant(const std::string& name, std::vector<int32_t> shape, const std::vector<float>& values) {
        TensorSpec t = tensorSpec(name, std::move(shape));
        if (!quant) {
            t.data = bytesOf(values);
            return g.add(t);
        }
        const auto [low, high] = std::minmax_element(values.begin(), values.end());
        quantize(t, std::min(*low, 0.0f), std::max(*high, 1e-6f));
        for (float v : values) {
            const int64_t q = std::llround(v / t.scales[0]) + t.zeroPoints[0];
            t.data.push_back(static_cast<uint8_t>(std::clamp<int64_t>(q, 0, 255)));
        }
        return g.add(t);
    }
    int32_t ints(const std::string& name, std::vector<int32_t> shape, std::vector<int32_t> values) {
        return g.add(intTensor(name, std::move(shape), std::move(values)));
    }
    int32_t op(fb::BuiltinOperator code, std::vector<int32_t> inputs, int32_t output, OpSpec options = {}) {
        options.code = code;
        options.inputs = std::move(inputs);
        options.outputs = {output};
        g.ops.push_back(options);
        return output;
    }
    // CONV_2D [out, k, k, in] with weights uniform in +-range and a small bias (int32 at input x
    // weights scale when quantized).
    int32_t conv(const std::string& name, int32_t input, int32_t output, int32_t kernel, int32_t stride,
                 fb::Padding padding, fb::ActivationFunctionType activation, uint64_t seed, float range) {
        const int32_t in = g.tensors[input].shape[3], out = g.tensors[output].shape[3];
        const int32_t w = constant(name + "/weights", {out, kernel, kernel, in},
                                   randomValues(seed, static_cast<size_t>(out * kernel * kernel * in), -range, range));
        const std::vector<float> bias = randomValues(seed + 1, static_cast<size_t>(out), -0.1f, 0.1f);
        TensorSpec b = tensorSpec(name + "/bias", {out});
        if (!quant) {
            b.data = bytesOf(bias);
        } else {
            const float scale = g.tensors[input].scales[0] * g.tensors[w].scales[0];
            b.type = fb::TensorType_INT32;
            b.scales = {scale};
            b.zeroPoints = {0};
            std::vector<int32_t> q;
            for (float v : bias) q.push_back(static_cast<int32_t>(std::llround(v / scale)));
            b.data = bytesOf(q);
        }
        OpSpec options;
        options.padding = padding;
        options.stride = stride;
        options.activation = activation;
        return op(fb::BuiltinOperator_CONV_2D, {input, w, g.add(b)}, output, options);
    }
    // A tensor of another type (indices, labels): never quantized.
    int32_t typed(const std::string& name, std::vector<int32_t> shape, fb::TensorType type) {
        return g.add(tensorSpec(name, std::move(shape), type));
    }
    int32_t reshape(int32_t input, int32_t output) {
        const std::vector<int32_t> shape = g.tensors[output].shape;   // a copy: ints() grows tensors
        OpSpec options;
        options.dims = shape;
        const int32_t shapeTensor = ints(g.tensors[output].name + "/shape", {static_cast<int32_t>(shape.size())}, shape);
        return op(fb::BuiltinOperator_RESHAPE, {input, shapeTensor}, output, options);
    }
    int32_t cast(int32_t input, int32_t output) {
        OpSpec options;
        options.inType = g.tensors[input].type;
        options.outType = g.tensors[output].type;
        return op(fb::BuiltinOperator_CAST, {input}, output, options);
    }
};

std::vector<GraphSpec> deeplabSegmenter(bool quant) {
    Builder b{quant, {}};
    b.g.name = "main";
    const int32_t image = b.activation("image", {1, 16, 16, 3}, -1.0f, 127.0f / 128.0f);
    const int32_t features = b.conv("encoder/conv0", image, b.activation("encoder/features", {1, 8, 8, 8}, 0.0f, 4.0f),
                                    3, 2, fb::Padding_SAME, fb::ActivationFunctionType_RELU, 0x5e9d0001, 0.5f);
    const int32_t logits = b.conv("logits", features, b.activation("logits", {1, 8, 8, 4}, -4.0f, 4.0f), 1, 1,
                                  fb::Padding_SAME, fb::ActivationFunctionType_NONE, 0x5e9d0002, 0.6f);
    // The resized logits share the logits' quantization, as TFLite's RESIZE_BILINEAR requires.
    TensorSpec resizedSpec = b.g.tensors[logits];
    resizedSpec.name = "ResizeBilinear";
    resizedSpec.shape = {1, 16, 16, 4};
    OpSpec resize;
    resize.alignCorners = true;
    const int32_t resized = b.op(fb::BuiltinOperator_RESIZE_BILINEAR, {logits, b.ints("ResizeBilinear/size", {2}, {16, 16})},
                                 b.g.add(resizedSpec), resize);
    OpSpec argMax;
    argMax.outType = fb::TensorType_INT64;
    const int32_t labels = b.op(fb::BuiltinOperator_ARG_MAX, {resized, b.ints("ArgMax/dimension", {1}, {3})},
                                b.typed("ArgMax", {1, 16, 16}, fb::TensorType_INT64), argMax);
    b.g.inputs = {image};
    b.g.outputs = {logits, labels};
    return {b.g};
}

std::vector<GraphSpec> poseKeypoints() {
    constexpr int32_t kKeypoints = 4, kCells = 8;
    Builder b;
    b.g.name = "main";
    const int32_t image = b.activation("image", {1, 16, 16, 3}, -1.0f, 1.0f);
    const int32_t heatmaps = b.conv("heatmaps", image, b.activation("heatmaps", {1, kCells, kCells, kKeypoints}, 0, 0), 3,
                                    2, fb::Padding_SAME, fb::ActivationFunctionType_NONE, 0x905e0001, 0.5f);
    const int32_t flat = b.reshape(heatmaps, b.activation("flat", {1, kCells * kCells, kKeypoints}, 0, 0));
    OpSpec argMax;
    argMax.outType = fb::TensorType_INT64;
    const int32_t peak64 = b.op(fb::BuiltinOperator_ARG_MAX, {flat, b.ints("peak/dimension", {1}, {1})},
                                b.typed("peak", {1, kKeypoints}, fb::TensorType_INT64), argMax);
    const int32_t peak = b.cast(peak64, b.typed("peak_int32", {1, kKeypoints}, fb::TensorType_INT32));
    const int32_t cells = b.ints("cells", {1}, {kCells});
    const int32_t row = b.op(fb::BuiltinOperator_FLOOR_DIV, {peak, cells},
                             b.typed("row", {1, kKeypoints}, fb::TensorType_INT32));
    const int32_t column = b.op(fb::BuiltinOperator_FLOOR_MOD, {peak, cells},
                                b.typed("column", {1, kKeypoints}, fb::TensorType_INT32));
    const auto asColumn = [&](int32_t ints, const std::string& name) {
        const int32_t real = b.cast(ints, b.activation(name + "_float", {1, kKeypoints}, 0, 0));
        return b.reshape(real, b.activation(name + "_column", {kKeypoints, 1}, 0, 0));
    };
    const int32_t rows = asColumn(row, "row"), columns = asColumn(column, "column");
    const int32_t batch = b.constant("batch_column", {kKeypoints, 1}, {0, 0, 0, 0});
    const int32_t keypoint = b.constant("keypoint_column", {kKeypoints, 1}, {0, 1, 2, 3});
    OpSpec concat;
    concat.axis = 1;
    const int32_t where = b.op(fb::BuiltinOperator_CONCATENATION, {batch, rows, columns, keypoint},
                               b.activation("indices_float", {kKeypoints, 4}, 0, 0), concat);
    const int32_t indices = b.cast(where, b.typed("indices", {kKeypoints, 4}, fb::TensorType_INT32));
    const int32_t scores = b.op(fb::BuiltinOperator_GATHER_ND, {heatmaps, indices},
                                b.activation("keypoint_scores", {kKeypoints}, 0, 0));
    const int32_t cellsYx = b.op(fb::BuiltinOperator_CONCATENATION, {rows, columns},
                                 b.activation("keypoint_cells", {kKeypoints, 2}, 0, 0), concat);
    const int32_t coordinates = b.op(fb::BuiltinOperator_MUL, {cellsYx, b.constant("cell_size", {1}, {1.0f / kCells})},
                                     b.activation("keypoint_coordinates", {kKeypoints, 2}, 0, 0));
    b.g.inputs = {image};
    b.g.outputs = {scores, coordinates, heatmaps};
    return {b.g};
}

// Max pooling around the CPU nodes: exact on every device, so that all outputs can be compared
// bit for bit.
std::vector<GraphSpec> extremeScales() {
    Builder b{true, {}};
    b.g.name = "main";
    const int32_t image = b.activation("image", {1, 8, 8, 3}, -2.0f, 2.0f);
    const auto maxPool = [&](int32_t input, const std::string& name, int32_t size) {
        TensorSpec out = b.g.tensors[input];
        out.name = name;
        out.shape[1] /= size;
        out.shape[2] /= size;
        OpSpec pool;
        pool.dims = {size, size};
        pool.stride = size;
        return b.op(fb::BuiltinOperator_MAX_POOL_2D, {input}, b.g.add(out), pool);
    };
    const int32_t h = maxPool(image, "h", 2);
    // The gain: real values near 1e-12, scale 1e-14 (below what NNAPI accepts; TFLite takes it).
    TensorSpec gain = tensorSpec("gain", {3}, fb::TensorType_UINT8);
    gain.scales = {1e-14f};
    gain.zeroPoints = {0};
    gain.data = {40, 135, 250};
    TensorSpec tinySpec = tensorSpec("tiny", {1, 4, 4, 3}, fb::TensorType_UINT8);
    tinySpec.scales = {8e-14f};
    tinySpec.zeroPoints = {128};
    const int32_t tiny = b.op(fb::BuiltinOperator_MUL, {h, b.g.add(gain)}, b.g.add(tinySpec));
    TensorSpec sumSpec = b.g.tensors[h];
    sumSpec.name = "h_plus_tiny";
    const int32_t sum = b.op(fb::BuiltinOperator_ADD, {h, tiny}, b.g.add(sumSpec));
    const int32_t pooled = maxPool(sum, "pooled", 4);
    TensorSpec scoresSpec = b.g.tensors[pooled];
    scoresSpec.name = "scores";
    scoresSpec.shape = {1, 3};
    const int32_t scores = b.reshape(pooled, b.g.add(scoresSpec));
    b.g.inputs = {image};
    b.g.outputs = {scores, h, tiny};
    return {b.g};
}

}  // namespace

// Symmetric int8 weights (zero point 0): one scale per output channel (dimension 0), or one.
TensorSpec int8Weights(const std::string& name, std::vector<int32_t> shape, uint64_t seed, float range,
                       bool perChannel) {
    TensorSpec t = tensorSpec(name, shape, fb::TensorType_INT8);
    size_t count = 1;
    for (int32_t d : shape) count *= static_cast<size_t>(d);
    const std::vector<float> values = randomValues(seed, count, -range, range);
    const size_t channels = perChannel ? static_cast<size_t>(shape[0]) : 1, perRow = count / channels;
    for (size_t c = 0; c < channels; ++c) {
        float largest = 1e-6f;
        for (size_t i = c * perRow; i < (c + 1) * perRow; ++i) largest = std::max(largest, std::fabs(values[i]));
        t.scales.push_back(largest / 127.0f);
        t.zeroPoints.push_back(0);
        for (size_t i = c * perRow; i < (c + 1) * perRow; ++i) {
            t.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(std::lround(values[i] / t.scales.back()))));
        }
    }
    t.axis = 0;
    return t;
}

std::vector<GraphSpec> dynamicRange() {
    Builder b;
    b.g.name = "main";
    const int32_t image = b.activation("image", {1, 16, 16, 3}, 0, 0);
    const int32_t filter = b.g.add(int8Weights("conv/weights", {8, 3, 3, 3}, 0xd1a0001, 0.5f, true));
    TensorSpec convBias = tensorSpec("conv/bias", {8});
    convBias.data = bytesOf(randomValues(0xd1a0002, 8, -0.1f, 0.1f));
    const int32_t features = b.activation("features", {1, 8, 8, 8}, 0, 0);
    OpSpec conv;
    conv.padding = fb::Padding_SAME;
    conv.stride = 2;
    conv.activation = fb::ActivationFunctionType_RELU;
    b.op(fb::BuiltinOperator_CONV_2D, {image, filter, b.g.add(convBias)}, features, conv);
    const int32_t flat = b.reshape(features, b.activation("flat", {1, 512}, 0, 0));
    const int32_t weights = b.g.add(int8Weights("fc/weights", {10, 512}, 0xd1a0003, 0.2f, false));
    TensorSpec fcBias = tensorSpec("fc/bias", {10});
    fcBias.data = bytesOf(randomValues(0xd1a0004, 10, -0.1f, 0.1f));
    const int32_t logits = b.op(fb::BuiltinOperator_FULLY_CONNECTED, {flat, weights, b.g.add(fcBias)},
                                b.activation("logits", {1, 10}, 0, 0));
    const int32_t scores = b.op(fb::BuiltinOperator_SOFTMAX, {logits}, b.activation("scores", {1, 10}, 0, 0));
    b.g.inputs = {image};
    b.g.outputs = {scores};
    return {b.g};
}

std::vector<GraphSpec> cpuPathGraphs(const std::string& name) {
    if (name == "dynamic_range_float") return dynamicRange();
    if (name == "deeplab_segmenter_float") return deeplabSegmenter(false);
    if (name == "deeplab_segmenter_quant") return deeplabSegmenter(true);
    if (name == "pose_keypoints_float") return poseKeypoints();
    if (name == "extreme_scales_quant") return extremeScales();
    return {};
}

}  // namespace nnemu::modelgen
