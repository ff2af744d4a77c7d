// Two dense-prediction networks for the feature-level-29 path, each with a variant that stops
// before its last operation so that tests can recompute that operation themselves:
//  - an SSD-style detector: a small convolutional backbone, box and class heads on an 8x8 and a
//    4x4 feature map (3 anchors per cell, 3 classes plus background), sigmoid scores, and the
//    custom operator TFLite_Detection_PostProcess with generated anchors;
//  - a segmenter: a strided encoder, two TRANSPOSE_CONV upsamplings back to the input size and
//    ARG_MAX over 5 class channels (int32 labels).
#include <cmath>

#include "Networks.h"

namespace nnemu::modelgen {
namespace {

const fb::ActivationFunctionType kRelu6 = fb::ActivationFunctionType_RELU6;
const fb::ActivationFunctionType kNone = fb::ActivationFunctionType_NONE;

constexpr int32_t kInputSize = 64;
constexpr int32_t kDetectionClasses = 3;
constexpr float kAspectRatios[] = {1.0f, 2.0f, 0.5f};
constexpr int32_t kAnchorsPerCell = 3;
constexpr int32_t kSegmentationClasses = 5;

int32_t imageInput(NetworkGraph& g, const char* name) {
    return g.addInput(name, {1, kInputSize, kInputSize, 3}, -1.0f, 127.0f / 128.0f);
}

// Anchors [ycenter, xcenter, height, width] of one square feature map, in the order the heads'
// reshapes list their predictions: row, column, aspect ratio.
void appendAnchors(int32_t cells, float scale, std::vector<float>* anchors) {
    for (int32_t y = 0; y < cells; ++y) {
        for (int32_t x = 0; x < cells; ++x) {
            for (float ratio : kAspectRatios) {
                const float root = std::sqrt(ratio);
                anchors->insert(anchors->end(), {(static_cast<float>(y) + 0.5f) / static_cast<float>(cells),
                                                 (static_cast<float>(x) + 0.5f) / static_cast<float>(cells),
                                                 scale / root, scale * root});
            }
        }
    }
}

}  // namespace

NetworkGraph buildSsdDetector(bool postProcess) {
    NetworkGraph g(seedOf("ssd_detector"));
    g.recalibrateAfterSpreads = true;   // the concatenations follow scaled heads
    int32_t x = g.conv2d("FeatureExtractor/conv0", imageInput(g, "normalized_input_image_tensor"), 16, 3, 2, kRelu6);
    x = g.conv2d("FeatureExtractor/conv1", x, 32, 3, 2, kRelu6);
    const int32_t map8 = g.conv2d("FeatureExtractor/conv2", x, 48, 3, 2, kRelu6);
    const int32_t map4 = g.conv2d("FeatureExtractor/conv3", map8, 64, 3, 2, kRelu6);
    std::vector<int32_t> boxes, classes;
    std::vector<float> anchors;
    const std::pair<int32_t, float> maps[] = {{map8, 0.25f}, {map4, 0.5f}};
    for (size_t i = 0; i < 2; ++i) {
        const auto [map, scale] = maps[i];
        const int32_t cells = g.shapeOf(map)[1];
        const int32_t count = cells * cells * kAnchorsPerCell;
        const std::string scope = "BoxPredictor_" + std::to_string(i);
        const int32_t box = g.conv2d(scope + "/BoxEncodingPredictor", map, kAnchorsPerCell * 4, 3, 1, kNone, 0.5f);
        g.tensors[box].targetStddev = 1.0f;
        boxes.push_back(g.reshape(scope + "/BoxEncodings", box, {1, count, 4}));
        const int32_t logits = g.conv2d(scope + "/ClassPredictor", map, kAnchorsPerCell * (kDetectionClasses + 1), 3, 1,
                                        kNone, 0.5f);
        g.tensors[logits].targetStddev = 2.0f;
        classes.push_back(g.reshape(scope + "/ClassLogits", logits, {1, count, kDetectionClasses + 1}));
        appendAnchors(cells, scale, &anchors);
    }
    const int32_t boxEncodings = g.concatenation("raw_outputs/box_encodings", boxes, 1);
    const int32_t scores = g.unary(fb::BuiltinOperator_LOGISTIC, "raw_outputs/class_predictions",
                                   g.concatenation("concat_1", classes, 1));
    if (!postProcess) {
        g.outputs = {boxEncodings, scores};
        return g;
    }
    const auto anchorCount = static_cast<int32_t>(anchors.size() / 4);
    const int32_t anchorTensor = g.addConstant("anchors", {anchorCount, 4}, std::move(anchors));
    DetectionParams params;
    params.maxDetections = 10;
    params.numClasses = kDetectionClasses;
    params.scoreThreshold = 0.6f;
    params.iouThreshold = 0.5f;
    g.outputs = g.detectionPostProcess("TFLite_Detection_PostProcess", boxEncodings, scores, anchorTensor, params);
    return g;
}

NetworkGraph buildSegmenter(bool argMax) {
    NetworkGraph g(seedOf("segmenter"));
    int32_t x = g.conv2d("encoder/conv0", imageInput(g, "input"), 16, 3, 2, kRelu6);
    x = g.conv2d("encoder/conv1", x, 32, 3, 2, kRelu6);
    x = g.conv2d("encoder/conv2", x, 32, 3, 1, kRelu6);
    x = g.unary(fb::BuiltinOperator_RELU, "decoder/relu0", g.transposeConv("decoder/upsample0", x, 16, 3, 2));
    const int32_t logits = g.transposeConv("decoder/logits", x, kSegmentationClasses, 3, 2);
    g.tensors[logits].targetStddev = 2.0f;
    g.outputs = {argMax ? g.argMax("ArgMax", logits, 3) : logits};
    return g;
}

}  // namespace nnemu::modelgen
