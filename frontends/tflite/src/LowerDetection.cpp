// The custom operator TFLite_Detection_PostProcess -> NNAPI DETECTION_POSTPROCESSING. Its
// options are a FlexBuffers map in custom_options. NNAPI takes float scores and deltas (the
// quantized flavour gets DEQUANTIZE first), wants a background class at index 0 (TFLite's
// label offset 1), and writes int32 classes and counts where TFLite writes floats (CAST after).
// TFLite's delegate never takes custom operators: the node runs on the CPU.
#include <android/NeuralNetworks.h>

#include <cmath>

#include "FlexbufferMap.h"
#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::detection {

constexpr double kMaxCount = 1 << 20;   // detections, classes: beyond any real model

struct DetectionOptions {
    int32_t maxDetections = 0, maxClassesPerDetection = 0, detectionsPerClass = 100, numClasses = 0;
    bool useRegularNms = false;
    float scoreThreshold = 0, iouThreshold = 0, yScale = 0, xScale = 0, hScale = 0, wScale = 0;
};

bool readNumber(NodeLowering& l, const FlexbufferMap& map, const char* key, bool required, double* value) {
    switch (map.number(key, value)) {
        case FlexbufferMap::Lookup::NUMBER:
            if (!std::isfinite(*value)) return l.fail(std::string("option ") + key + " is not finite");
            return true;
        case FlexbufferMap::Lookup::NOT_A_NUMBER: return l.fail(std::string("option ") + key + " is not a number");
        case FlexbufferMap::Lookup::ABSENT: break;
    }
    return required ? l.fail(std::string("option ") + key + " is missing") : true;
}

bool readCount(NodeLowering& l, const FlexbufferMap& map, const char* key, bool required, int32_t* value) {
    double number = *value;
    if (!readNumber(l, map, key, required, &number)) return false;
    if (number < 1 || number > kMaxCount || number != std::floor(number)) {
        return l.fail(std::string("option ") + key + " = " + std::to_string(number) + " is not a count in [1, 2^20]");
    }
    *value = static_cast<int32_t>(number);
    return true;
}

bool readFloat(NodeLowering& l, const FlexbufferMap& map, const char* key, bool positive, float* value) {
    double number = 0;
    if (!readNumber(l, map, key, true, &number)) return false;
    if (positive && !(number > 0 && number < 1e30)) return l.fail(std::string("option ") + key + " must be positive");
    *value = static_cast<float>(number);
    return true;
}

bool readOptions(NodeLowering& l, DetectionOptions* o) {
    const std::span<const uint8_t> bytes = l.node().customData;
    if (bytes.empty()) return l.fail("missing custom options (a FlexBuffers map)");
    FlexbufferMap map;
    if (const Status parsed = map.parse(bytes.data(), bytes.size()); !parsed) {
        return l.fail("malformed custom options: " + parsed.message());
    }
    double regular = 0;
    if (!readCount(l, map, "max_detections", true, &o->maxDetections) ||
        !readCount(l, map, "max_classes_per_detection", true, &o->maxClassesPerDetection) ||
        !readCount(l, map, "detections_per_class", false, &o->detectionsPerClass) ||
        !readCount(l, map, "num_classes", true, &o->numClasses) ||
        !readNumber(l, map, "use_regular_nms", false, &regular) ||
        !readFloat(l, map, "nms_score_threshold", false, &o->scoreThreshold) ||
        !readFloat(l, map, "nms_iou_threshold", true, &o->iouThreshold) ||
        !readFloat(l, map, "y_scale", true, &o->yScale) || !readFloat(l, map, "x_scale", true, &o->xScale) ||
        !readFloat(l, map, "h_scale", true, &o->hScale) || !readFloat(l, map, "w_scale", true, &o->wScale)) {
        return false;
    }
    o->useRegularNms = regular != 0;
    if (o->iouThreshold > 1) return l.fail("option nms_iou_threshold must be in (0, 1]");
    return true;
}

bool hasShape(const Tensor& tensor, const std::vector<int32_t>& shape) { return tensor.shape == shape; }

// A float operand of input i: quantized inputs go through DEQUANTIZE.
bool floatInput(NodeLowering& l, size_t i, uint32_t* operand) {
    uint32_t input;
    if (!l.inputOperand(i, &input)) return false;
    const int32_t type = l.operand(input).type;
    if (type == ANEURALNETWORKS_TENSOR_FLOAT32) {
        *operand = input;
        return true;
    }
    if (!isQuant8Asymm(type)) return l.fail(std::string("input type ") + nnapiTypeName(type) + " is not supported");
    *operand = l.temporaryOfType(ANEURALNETWORKS_TENSOR_FLOAT32, l.operand(input).dims, 0.0f, 0);
    l.addOperation(ANEURALNETWORKS_DEQUANTIZE, {input}, {*operand});
    return true;
}

bool checkShapes(NodeLowering& l, const DetectionOptions& o) {
    const Tensor& boxes = l.input(0);
    const Tensor& classes = l.input(1);
    if (boxes.shape.size() != 3 || boxes.shape[0] != 1 || boxes.shape[2] < 4) {
        return l.fail("box encodings must have shape [1, anchors, 4 or more]");
    }
    const int32_t anchors = boxes.shape[1];
    if (!hasShape(classes, {1, anchors, o.numClasses + 1})) {
        return l.fail("class predictions must have shape [1, " + std::to_string(anchors) + ", num_classes + 1] (a "
                      "background class first, as NNAPI requires)");
    }
    if (!hasShape(l.input(2), {anchors, 4})) return l.fail("anchors must have shape [" + std::to_string(anchors) + ", 4]");
    // TFLite sizes its outputs for max_detections x max_classes_per_detection; NNAPI's hold
    // max_detections entries of one class each.
    if (o.maxClassesPerDetection != 1) {
        return l.fail("max_classes_per_detection = " + std::to_string(o.maxClassesPerDetection) +
                      " has no NNAPI form (its outputs hold one class per detection)");
    }
    const int32_t d = o.maxDetections;
    if (!hasShape(l.output(0), {1, d, 4}) || !hasShape(l.output(1), {1, d}) || !hasShape(l.output(2), {1, d}) ||
        !hasShape(l.output(3), {1})) {
        return l.fail("outputs must have shapes [1, " + std::to_string(d) + ", 4], [1, " + std::to_string(d) + "], [1, " +
                      std::to_string(d) + "] and [1]");
    }
    for (size_t i = 0; i < 4; ++i) {
        if (l.output(i).type != ElementType::FLOAT32) return l.fail("outputs must be float32");
    }
    return true;
}

bool lowerDetectionPostProcess(NodeLowering& l) {
    DetectionOptions o;
    if (!l.expectCounts(3, 3, 4) || !readOptions(l, &o) || !checkShapes(l, o)) return false;
    uint32_t scores, deltas, anchors, boxesOut, classesOut, scoresOut, countOut;
    if (!floatInput(l, 1, &scores) || !floatInput(l, 0, &deltas) || !floatInput(l, 2, &anchors)) return false;
    if (!l.outputOperand(0, &boxesOut) || !l.outputOperand(1, &classesOut) || !l.outputOperand(2, &scoresOut) ||
        !l.outputOperand(3, &countOut)) {
        return false;
    }
    const auto d = static_cast<uint32_t>(o.maxDetections);
    const uint32_t classes = l.temporaryOfType(ANEURALNETWORKS_TENSOR_INT32, {1, d}, 0.0f, 0);
    const uint32_t count = l.temporaryOfType(ANEURALNETWORKS_TENSOR_INT32, {1}, 0.0f, 0);
    l.keepOnCpu();
    l.addOperation(ANEURALNETWORKS_DETECTION_POSTPROCESSING,
                   {scores, deltas, anchors, l.scalarFloat32(o.yScale), l.scalarFloat32(o.xScale),
                    l.scalarFloat32(o.hScale), l.scalarFloat32(o.wScale), l.scalarBool(o.useRegularNms),
                    l.scalarInt32(o.maxDetections), l.scalarInt32(o.maxClassesPerDetection),
                    l.scalarInt32(o.detectionsPerClass), l.scalarFloat32(o.scoreThreshold),
                    l.scalarFloat32(o.iouThreshold), l.scalarBool(false)},
                   {scoresOut, boxesOut, classes, count});
    l.addOperation(ANEURALNETWORKS_CAST, {classes}, {classesOut});
    l.addOperation(ANEURALNETWORKS_CAST, {count}, {countOut});
    return true;
}

}  // namespace lowerings::detection

}  // namespace nnemu::tflite
