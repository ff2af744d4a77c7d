#include "PrepareShapes.h"

#include <cmath>
#include <cstdint>

#include "FlexbufferMap.h"

namespace nnemu::tflite {
namespace {

constexpr double kMaxCount = 1 << 20;   // as LowerDetection.cpp: beyond any real model

// A positive whole count under the key, or 0.
int32_t countOption(const FlexbufferMap& map, const char* key) {
    double value = 0;
    if (map.number(key, &value) != FlexbufferMap::Lookup::NUMBER) return 0;
    if (!std::isfinite(value) || value < 1 || value > kMaxCount || value != std::floor(value)) return 0;
    return static_cast<int32_t>(value);
}

// TFLite's detection post-processing prepares boxes [1, N, 4], classes [1, N], scores [1, N]
// and the count [1], N = max_detections * max_classes_per_detection.
void sizeDetectionOutputs(Subgraph& graph, const Node& node, const std::vector<bool>& shapeUnknown) {
    if (node.outputs.size() != 4 || node.customData.empty()) return;
    FlexbufferMap map;
    if (!map.parse(node.customData.data(), node.customData.size())) return;
    const int32_t detections = countOption(map, "max_detections");
    const int32_t classes = countOption(map, "max_classes_per_detection");
    if (detections == 0 || classes == 0 || static_cast<int64_t>(detections) * classes > static_cast<int64_t>(kMaxCount)) {
        return;
    }
    const int32_t n = detections * classes;
    const std::vector<int32_t> shapes[4] = {{1, n, 4}, {1, n}, {1, n}, {1}};
    for (size_t i = 0; i < 4; ++i) {
        const int32_t t = node.outputs[i];
        if (t < 0 || static_cast<size_t>(t) >= graph.tensors.size() || static_cast<size_t>(t) >= shapeUnknown.size()) continue;
        if (shapeUnknown[static_cast<size_t>(t)]) graph.tensors[static_cast<size_t>(t)].shape = shapes[i];
    }
}

}  // namespace

void sizeOutputsAtPrepare(Subgraph& graph, const std::vector<bool>& shapeUnknown) {
    for (const Node& node : graph.nodes) {
        if (node.opName == "TFLite_Detection_PostProcess") sizeDetectionOutputs(graph, node, shapeUnknown);
    }
}

}  // namespace nnemu::tflite
