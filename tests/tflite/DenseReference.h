// Independent computations of the last operation of the catalog's detector and segmenter, from
// the outputs of their variants that stop before it: SSD box decoding with TFLite's centre-size
// coder and greedy non-maximum suppression over each anchor's best class, and argmax over
// channels; a test picture and the comparisons. Shared by the library-path tests (tests/tflite)
// and the tool tests (tests/tools).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
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

// A picture with smooth gradients and a few bright and dark rectangles, as uint8 pixels
// read with scale 1/128 and zero point 128 (the input range [-1, 1) of the generated models).
inline std::vector<uint8_t> picture(const Tensor& input) {
    const int32_t h = input.shape[1], w = input.shape[2], c = input.shape[3];
    std::vector<uint8_t> pixels(static_cast<size_t>(h * w * c));
    for (int32_t y = 0; y < h; ++y) {
        for (int32_t x = 0; x < w; ++x) {
            for (int32_t k = 0; k < c; ++k) {
                int value = 40 + (3 * x + 2 * y + 50 * k) % 120;
                if (x >= 8 && x < 28 && y >= 10 && y < 40) value = 230 - 20 * k;
                if (x >= 36 && x < 60 && y >= 30 && y < 44) value = 10 + 30 * k;
                pixels[static_cast<size_t>((y * w + x) * c + k)] = static_cast<uint8_t>(value);
            }
        }
    }
    if (input.type == ElementType::UINT8) return pixels;
    std::vector<uint8_t> bytes(pixels.size() * 4);
    for (size_t i = 0; i < pixels.size(); ++i) {
        const float real = (static_cast<float>(pixels[i]) - 128.0f) / 128.0f;
        std::memcpy(bytes.data() + 4 * i, &real, 4);
    }
    return bytes;
}

// Same detections up to the order of equal scores: labels exact, scores to 1e-6, boxes to 1e-4.
inline void expectSameDetections(std::vector<Detection> got, std::vector<Detection> expected, const std::string& where) {
    const auto order = [](const Detection& a, const Detection& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.label != b.label) return a.label < b.label;
        return std::lexicographical_compare(a.box, a.box + 4, b.box, b.box + 4);
    };
    std::sort(got.begin(), got.end(), order);
    std::sort(expected.begin(), expected.end(), order);
    ASSERT_EQ(got.size(), expected.size()) << where;
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].label, expected[i].label) << where << " detection " << i;
        EXPECT_NEAR(got[i].score, expected[i].score, 1e-6) << where << " detection " << i;
        for (int k = 0; k < 4; ++k) EXPECT_NEAR(got[i].box[k], expected[i].box[k], 1e-4) << where << " detection " << i;
    }
}

// Quantized devices may round differently: the NPU's detections match the CPU's when at least
// 80% of them have a counterpart of the same label, a box overlapping by 80% and a close score.
inline void expectAgreeingDetections(const std::vector<Detection>& got, const std::vector<Detection>& cpu,
                                     float scoreTolerance, const std::string& where) {
    ASSERT_EQ(got.size(), cpu.size()) << where;
    std::vector<bool> used(got.size(), false);
    size_t matched = 0;
    for (const Detection& c : cpu) {
        for (size_t i = 0; i < got.size(); ++i) {
            if (!used[i] && got[i].label == c.label && intersectionOverUnion(got[i].box, c.box) >= 0.8f &&
                std::fabs(got[i].score - c.score) <= scoreTolerance) {
                used[i] = true;
                ++matched;
                break;
            }
        }
    }
    EXPECT_GE(matched * 5, cpu.size() * 4) << where << ": " << matched << " of " << cpu.size() << " detections match";
}

// Real values of a device against the CPU's: within 8 quantization steps each and one step on
// average (quantized; convolutions round differently and the sigmoid amplifies it), or float
// rounding.
inline void expectClose(const std::vector<float>& got, const std::vector<float>& cpu, float step, const std::string& where) {
    ASSERT_EQ(got.size(), cpu.size()) << where;
    const float maxDifference = step > 0 ? 8 * step : 1e-4f;
    double sum = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], cpu[i], maxDifference + 1e-6f) << where << " element " << i;
        sum += std::fabs(got[i] - cpu[i]);
    }
    EXPECT_LE(sum / static_cast<double>(got.size()), step > 0 ? step : 1e-5) << where << ": mean difference";
}

// A device's labels against the CPU's: where they differ, the CPU's logits of the two labels are
// within `margin` of each other, a near tie the device's rounding resolved the other way.
inline void expectLabelsAgree(const std::vector<float>& labels, const std::vector<float>& cpuLabels,
                              const std::vector<float>& cpuLogits, size_t channels, float margin, const std::string& where) {
    ASSERT_EQ(labels.size(), cpuLabels.size()) << where;
    ASSERT_EQ(cpuLogits.size(), cpuLabels.size() * channels) << where;
    size_t differing = 0;
    for (size_t p = 0; p < labels.size(); ++p) {
        if (labels[p] == cpuLabels[p]) continue;
        ++differing;
        const auto a = static_cast<size_t>(cpuLabels[p]), b = static_cast<size_t>(labels[p]);
        ASSERT_LT(b, channels) << where << " pixel " << p;
        EXPECT_LE(cpuLogits[p * channels + a] - cpuLogits[p * channels + b], margin + 1e-6f)
                << where << " pixel " << p << ": label " << b << " instead of " << a << " without a near tie";
    }
    EXPECT_LE(differing, labels.size() / 20) << where << ": too many labels differ";
}

}  // namespace nnemu::tflite::test
