// An SSD head's post-processing as TFLite's converter often writes it: TFLite_Detection_PostProcess
// whose four outputs have no shape in the file (TFLite's kernel sizes them at prepare from
// max_detections * max_classes_per_detection). Eight anchors on a 2x4 grid that do not overlap,
// so every anchor above the score threshold survives NMS and every output row is written.
// Shared by the interpreter's tests (tests/tflite) and the tools' runs (tests/tools).
#pragma once

#include <flatbuffers/flexbuffers.h>

#include <cmath>

#include "GraphBuilder.h"

namespace nnemu::tflite::test {

struct UnsizedDetectionParams {
    int maxDetections = 5;
    int maxClassesPerDetection = 1;
    bool useRegularNms = false;
    bool quantized = false;        // uint8 box encodings, scores and anchors
    bool emptyShapes = true;       // false: the outputs carry TFLite's shapes in the file
};

constexpr int32_t kUnsizedAnchors = 8;
constexpr int32_t kUnsizedClasses = 3;   // plus the background column

inline std::vector<uint8_t> unsizedDetectionOptions(const UnsizedDetectionParams& p) {
    flexbuffers::Builder b;
    b.Map([&] {
        b.Int("max_detections", p.maxDetections);
        b.Int("max_classes_per_detection", p.maxClassesPerDetection);
        b.Int("detections_per_class", 4);
        b.Bool("use_regular_nms", p.useRegularNms);
        b.Float("nms_score_threshold", 0.2f);
        b.Float("nms_iou_threshold", 0.5f);
        b.Int("num_classes", kUnsizedClasses);
        b.Float("y_scale", 10.0f);
        b.Float("x_scale", 10.0f);
        b.Float("h_scale", 5.0f);
        b.Float("w_scale", 5.0f);
    });
    b.Finish();
    return b.GetBuffer();
}

inline GraphBuilder unsizedDetectionGraph(const UnsizedDetectionParams& p) {
    GraphBuilder g;
    const fb::TensorType type = p.quantized ? fb::TensorType_UINT8 : fb::TensorType_FLOAT32;
    const auto quant = [&](float scale) { return p.quantized ? std::vector<float>{scale} : std::vector<float>{}; };
    const auto zero = [&](int64_t z) { return p.quantized ? std::vector<int64_t>{z} : std::vector<int64_t>{}; };
    const int32_t boxes = g.tensor({1, kUnsizedAnchors, 4}, type, {}, quant(0.02f), zero(128));
    const int32_t scores = g.tensor({1, kUnsizedAnchors, kUnsizedClasses + 1}, type, {}, quant(1.0f / 256), zero(0));
    // (y centre, x centre, height, width): rows at 0.25 and 0.75, columns 0.25 apart, boxes 0.4 x 0.2.
    std::vector<float> anchorValues;
    for (int a = 0; a < kUnsizedAnchors; ++a) {
        anchorValues.insert(anchorValues.end(), {0.25f + 0.5f * static_cast<float>(a / 4),
                                                 0.125f + 0.25f * static_cast<float>(a % 4), 0.4f, 0.2f});
    }
    std::vector<uint8_t> anchorBytes;
    if (p.quantized) {
        for (float v : anchorValues) anchorBytes.push_back(static_cast<uint8_t>(std::lround(v / 0.005f)));
    } else {
        anchorBytes = GraphBuilder::bytes(anchorValues);
    }
    const int32_t anchors = g.tensor({kUnsizedAnchors, 4}, type, anchorBytes, quant(0.005f), zero(0));
    const int32_t n = p.maxDetections * p.maxClassesPerDetection;
    const auto shape = [&](std::vector<int32_t> s) { return p.emptyShapes ? std::vector<int32_t>{} : s; };
    const int32_t outBoxes = g.tensor(shape({1, n, 4}), fb::TensorType_FLOAT32);
    const int32_t outClasses = g.tensor(shape({1, n}), fb::TensorType_FLOAT32);
    const int32_t outScores = g.tensor(shape({1, n}), fb::TensorType_FLOAT32);
    const int32_t count = g.tensor(shape({1}), fb::TensorType_FLOAT32);
    g.customOp("TFLite_Detection_PostProcess", {boxes, scores, anchors}, {outBoxes, outClasses, outScores, count},
               unsizedDetectionOptions(p));
    g.inputs = {boxes, scores};
    g.outputs = {outBoxes, outClasses, outScores, count};
    return g;
}

// The two inputs: small box encodings (shifts and scalings that keep the boxes apart) and
// class scores, all distinct (no ties for the sorts to order differently), spread over
// [0.05, 0.95] so that some fall under the 0.2 threshold.
inline std::vector<std::vector<uint8_t>> unsizedDetectionInputs(bool quantized) {
    const size_t boxCount = kUnsizedAnchors * 4, scoreCount = kUnsizedAnchors * (kUnsizedClasses + 1);
    std::vector<float> boxValues(boxCount), scoreValues(scoreCount);
    for (size_t i = 0; i < boxCount; ++i) boxValues[i] = -0.6f + 1.2f * static_cast<float>((i * 13) % boxCount) / (boxCount - 1);
    for (size_t i = 0; i < scoreCount; ++i) {
        scoreValues[i] = 0.05f + 0.9f * static_cast<float>((i * 7) % scoreCount) / (scoreCount - 1);
    }
    if (!quantized) return {GraphBuilder::bytes(boxValues), GraphBuilder::bytes(scoreValues)};
    std::vector<uint8_t> boxBytes, scoreBytes;
    for (float v : boxValues) boxBytes.push_back(static_cast<uint8_t>(std::lround(v / 0.02f) + 128));
    for (float v : scoreValues) scoreBytes.push_back(static_cast<uint8_t>(std::lround(v * 256)));
    return {boxBytes, scoreBytes};
}

}  // namespace nnemu::tflite::test
