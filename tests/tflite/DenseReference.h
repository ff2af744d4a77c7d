// Independent computations of the last operation of the catalog's detector and segmenter, from
// the outputs of their variants that stop before it: SSD box decoding with TFLite's centre-size
// coder and greedy non-maximum suppression over each anchor's best class, and argmax over
// channels. Shared by the library-path tests (tests/tflite) and the tool tests (tests/tools).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite::test {

// The catalog detector's TFLite_Detection_PostProcess options (tools/modelgen VisionModels.cpp).
struct SsdOptions {
    int32_t maxDetections = 10;
    int32_t numClasses = 3;   // plus the background column
    float scoreThreshold = 0.6f, iouThreshold = 0.5f;
    float yScale = 10.0f, xScale = 10.0f, hScale = 5.0f, wScale = 5.0f;
};

struct Detection {
    float box[4];   // ymin, xmin, ymax, xmax
    int32_t label;  // 0-based, background excluded
    float score;
};

// A tensor's values as floats: float32 as is, uint8/int8 dequantized, int32 converted.
inline std::vector<float> realValues(const Tensor& tensor, const uint8_t* data) {
    const size_t count = tensor.byteSize() / elementSize(tensor.type);
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) {
        switch (tensor.type) {
            case ElementType::FLOAT32: std::memcpy(&values[i], data + 4 * i, 4); break;
            case ElementType::UINT8: values[i] = tensor.scale * static_cast<float>(data[i] - tensor.zeroPoint); break;
            case ElementType::INT8:
                values[i] = tensor.scale * static_cast<float>(static_cast<int8_t>(data[i]) - tensor.zeroPoint);
                break;
            case ElementType::INT32: {
                int32_t v;
                std::memcpy(&v, data + 4 * i, 4);
                values[i] = static_cast<float>(v);
                break;
            }
            default: values[i] = NAN; break;
        }
    }
    return values;
}

// The model's constant tensor of that name, as real values.
inline std::vector<float> constantValues(const Model& model, const std::string& name) {
    for (const Tensor& tensor : model.tensors()) {
        if (tensor.name == name && tensor.isConstant) return realValues(tensor, tensor.data);
    }
    return {};
}

inline float intersectionOverUnion(const float* a, const float* b) {
    const float areaA = (a[2] - a[0]) * (a[3] - a[1]);
    const float areaB = (b[2] - b[0]) * (b[3] - b[1]);
    if (areaA <= 0 || areaB <= 0) return 0.0f;
    const float h = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
    const float w = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
    const float intersection = h * w;
    return intersection / (areaA + areaB - intersection);
}

// encodings [anchors, 4] (dy, dx, dh, dw), scores [anchors, classes + 1] (column 0 background),
// anchors [anchors, 4] (ycenter, xcenter, h, w) -> the detections, best score first.
inline std::vector<Detection> referencePostProcess(const std::vector<float>& encodings, const std::vector<float>& scores,
                                                   const std::vector<float>& anchors, const SsdOptions& o) {
    const size_t count = anchors.size() / 4;
    const auto columns = static_cast<size_t>(o.numClasses + 1);
    std::vector<Detection> candidates;
    for (size_t a = 0; a < count; ++a) {
        const float* e = &encodings[4 * a];
        const float* anchor = &anchors[4 * a];
        const float yCenter = e[0] / o.yScale * anchor[2] + anchor[0];
        const float xCenter = e[1] / o.xScale * anchor[3] + anchor[1];
        const float h = std::exp(e[2] / o.hScale) * anchor[2];
        const float w = std::exp(e[3] / o.wScale) * anchor[3];
        Detection d{{yCenter - h / 2, xCenter - w / 2, yCenter + h / 2, xCenter + w / 2}, 0, scores[a * columns + 1]};
        for (size_t c = 2; c < columns; ++c) {
            if (scores[a * columns + c] > d.score) {
                d.score = scores[a * columns + c];
                d.label = static_cast<int32_t>(c - 1);
            }
        }
        if (d.score >= o.scoreThreshold) candidates.push_back(d);
    }
    // Best score first; equal scores keep anchor order.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Detection& a, const Detection& b) { return a.score > b.score; });
    std::vector<Detection> kept;
    for (const Detection& d : candidates) {
        if (kept.size() == static_cast<size_t>(o.maxDetections)) break;
        bool suppressed = false;
        for (const Detection& k : kept) suppressed = suppressed || intersectionOverUnion(d.box, k.box) > o.iouThreshold;
        if (!suppressed) kept.push_back(d);
    }
    return kept;
}

// TFLite's four post-processing outputs (boxes, classes, scores, count) as detections.
inline std::vector<Detection> detectionsOf(const std::vector<float>& boxes, const std::vector<float>& labels,
                                           const std::vector<float>& scores, float count) {
    std::vector<Detection> result;
    for (size_t i = 0; i < static_cast<size_t>(count) && i < labels.size(); ++i) {
        result.push_back({{boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3]},
                          static_cast<int32_t>(labels[i]), scores[i]});
    }
    return result;
}

// Argmax over the last axis; the first of equal maxima wins, as in TFLite and NNAPI.
inline std::vector<int32_t> referenceArgMax(const std::vector<float>& values, size_t channels) {
    std::vector<int32_t> labels(values.size() / channels);
    for (size_t p = 0; p < labels.size(); ++p) {
        const float* v = &values[p * channels];
        labels[p] = static_cast<int32_t>(std::max_element(v, v + channels) - v);
    }
    return labels;
}

}  // namespace nnemu::tflite::test
