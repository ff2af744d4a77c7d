// The catalog: names, what each model is, and how it is made (build, calibrate, emit).
#include "nnemu/modelgen/ModelCatalog.h"

#include <functional>

#include "Calibration.h"
#include "Networks.h"
#include "nnemu/modelgen/GraphSpec.h"

namespace nnemu::modelgen {
namespace {

struct Entry {
    ModelInfo info;
    Flavor flavor;
    std::function<NetworkGraph(Flavor)> build;
};

const char* suffixOf(Flavor flavor) {
    switch (flavor) {
        case Flavor::FLOAT32: return "float";
        case Flavor::UINT8: return "quant";
        case Flavor::INT8: return "int8";
    }
    return "";
}

const char* flavorText(Flavor flavor) {
    switch (flavor) {
        case Flavor::FLOAT32: return "float32";
        case Flavor::UINT8: return "uint8 per-tensor";
        case Flavor::INT8: return "int8 per-channel";
    }
    return "";
}

const std::vector<Entry>& entries() {
    static const std::vector<Entry> list = [] {
        std::vector<Entry> result;
        const Flavor flavors[] = {Flavor::UINT8, Flavor::FLOAT32, Flavor::INT8};
        struct MobileNet {
            int version;
            float alpha;
            const char* alphaText;
            int32_t resolution;
        };
        const MobileNet mobilenets[] = {{1, 1.0f, "1.0", 224}, {1, 0.25f, "0.25", 224}, {1, 0.25f, "0.25", 128},
                                        {2, 1.0f, "1.0", 224}};
        for (const MobileNet& net : mobilenets) {
            for (Flavor flavor : flavors) {
                const std::string name = "mobilenet_v" + std::to_string(net.version) + "_" + net.alphaText + "_" +
                                         std::to_string(net.resolution) + "_" + suffixOf(flavor);
                const std::string summary = std::string("MobileNet v") + std::to_string(net.version) + " " +
                                            net.alphaText + " " + std::to_string(net.resolution) + "x" +
                                            std::to_string(net.resolution) + ", 1001 classes, " + flavorText(flavor) +
                                            (flavor == Flavor::INT8 ? " (uint8 input/output)" : "");
                const bool large = !(net.alpha < 0.5f && net.resolution <= 128);
                result.push_back({{name, summary, large}, flavor, [net](Flavor f) {
                                      return net.version == 1 ? buildMobileNetV1(net.alpha, net.resolution, f)
                                                              : buildMobileNetV2(net.alpha, net.resolution, f);
                                  }});
            }
        }
        // Full-integer int8 (TF2 post-training quantization with int8 input and output): the
        // same weights as the _int8 models, without the uint8 QUANTIZE edges.
        for (const MobileNet& net : {mobilenets[2], mobilenets[3]}) {
            const std::string name = "mobilenet_v" + std::to_string(net.version) + "_" + net.alphaText + "_" +
                                     std::to_string(net.resolution) + "_full_int8";
            const std::string summary = std::string("MobileNet v") + std::to_string(net.version) + " " +
                                        net.alphaText + " " + std::to_string(net.resolution) + "x" +
                                        std::to_string(net.resolution) +
                                        ", 1001 classes, int8 per-channel with int8 input/output (full integer)";
            const bool large = net.resolution > 128;
            result.push_back({{name, summary, large}, Flavor::INT8, [net](Flavor f) {
                                  return net.version == 1 ? buildMobileNetV1(net.alpha, net.resolution, f, true)
                                                          : buildMobileNetV2(net.alpha, net.resolution, f, true);
                              }});
        }
        struct Dense {
            const char* base;
            const char* summary;
            std::function<NetworkGraph()> build;
        };
        const Dense dense[] = {
                {"ssd_detector", "SSD-style detector 64x64, 240 anchors, 3 classes, TFLite_Detection_PostProcess",
                 [] { return buildSsdDetector(true); }},
                {"ssd_detector_raw", "ssd_detector without post-processing: box encodings and class scores",
                 [] { return buildSsdDetector(false); }},
                {"segmenter", "segmenter 64x64, two TRANSPOSE_CONV upsamplings, ARG_MAX over 5 classes (int32)",
                 [] { return buildSegmenter(true); }},
                {"segmenter_logits", "segmenter without ARG_MAX: the class logits", [] { return buildSegmenter(false); }},
        };
        for (const Dense& model : dense) {
            for (Flavor flavor : {Flavor::UINT8, Flavor::FLOAT32}) {
                result.push_back({{std::string(model.base) + "_" + suffixOf(flavor),
                                   std::string(model.summary) + ", " + flavorText(flavor), false},
                                  flavor, [build = model.build](Flavor) { return build(); }});
            }
        }
        for (const SmallModelKind& kind : smallModelKinds()) {
            const bool exists[] = {kind.uint8Flavor, kind.floatFlavor, kind.int8Flavor};
            for (size_t i = 0; i < 3; ++i) {
                if (!exists[i]) continue;
                const Flavor flavor = flavors[i];
                std::string base = kind.base;
                // The mixed model is uint8 by default, as an NPU would run it.
                const std::string name = base == "mixed_resize_nearest" && flavor == Flavor::UINT8
                                                 ? base
                                                 : base + "_" + suffixOf(flavor);
                result.push_back({{name, std::string(kind.summary) + ", " + flavorText(flavor), false}, flavor,
                                  [base](Flavor f) {
                                      NetworkGraph graph(0);
                                      buildSmallModel(base, f, &graph);
                                      return graph;
                                  }});
            }
        }
        return result;
    }();
    return list;
}

// Models written from their GraphSpec descriptions: with subgraphs (ControlFlowModels.cpp), and
// with nodes NNAPI cannot express at feature level 29, which the tools run on their CPU kernels
// (CpuPathModels.cpp).
struct SpecModel {
    ModelInfo info;
    std::vector<GraphSpec> (*graphs)(const std::string& name);
};

const std::vector<SpecModel>& specModels() {
    static const std::vector<SpecModel> list = {
            {{"while_conv_float", "WHILE loop (counter, 3 iterations): x = relu6(x + conv3x3(x)), then a global max pool; float32", false}, controlFlowGraphs},
            {{"while_conv_int8", "while_conv with int8 activations and per-channel weights (one loop quantization)", false}, controlFlowGraphs},
            {{"if_conv_float", "IF on mean(image) > 0: relu(conv3x3(x)) or x * gain, then a global max pool; float32", false}, controlFlowGraphs},
            {{"if_conv_int8", "if_conv with int8 activations and per-channel weights", false}, controlFlowGraphs},
            {{"deeplab_segmenter_float", "DeepLab-style segmenter 16x16: conv, RESIZE_BILINEAR (align_corners) to the input size, ARG_MAX to int64; float32", false}, cpuPathGraphs},
            {{"deeplab_segmenter_quant", "deeplab_segmenter with uint8 per-tensor activations and weights", false}, cpuPathGraphs},
            {{"pose_keypoints_float", "MoveNet-style pose head: heatmaps, ARG_MAX (int64), CAST, FLOOR_DIV/FLOOR_MOD, GATHER_ND; float32", false}, cpuPathGraphs},
            {{"dynamic_range_float", "dynamic-range quantized (hybrid): float activations, int8 weights (conv per channel, fully connected per tensor), softmax over 10", false}, cpuPathGraphs},
            {{"extreme_scales_quant", "uint8 max pool, MUL by a gain of scale 1e-14 and ADD (scales NNAPI refuses, TFLite runs), max pool", false}, cpuPathGraphs},
    };
    return list;
}

}  // namespace

const std::vector<ModelInfo>& modelCatalog() {
    static const std::vector<ModelInfo> infos = [] {
        std::vector<ModelInfo> list;
        for (const Entry& entry : entries()) list.push_back(entry.info);
        for (const SpecModel& model : specModels()) list.push_back(model.info);
        return list;
    }();
    return infos;
}

Status generateModel(const std::string& name, std::vector<uint8_t>* bytes) {
    for (const SpecModel& model : specModels()) {
        if (model.info.name == name) {
            *bytes = writeGraphs(model.graphs(name), "nnemu_modelgen " + name);
            return {};
        }
    }
    for (const Entry& entry : entries()) {
        if (entry.info.name != name) continue;
        NetworkGraph graph = entry.build(entry.flavor);
        bool needsCalibration = entry.flavor != Flavor::FLOAT32;
        for (const NetTensor& tensor : graph.tensors) needsCalibration = needsCalibration || tensor.targetStddev > 0;
        EmitOptions options;
        options.flavor = entry.flavor;
        options.description = "nnemu_modelgen " + name;
        if (needsCalibration) {
            std::vector<TensorStatistics> statistics;
            if (const Status calibrated = calibrate(graph, &statistics); !calibrated) {
                return {calibrated.code(), "calibrating " + name + ": " + calibrated.message()};
            }
            applyTargetSpreads(graph, statistics);
            if (const Status calibrated = graph.recalibrateAfterSpreads ? calibrate(graph, &statistics) : Status();
                !calibrated) {
                return {calibrated.code(), "calibrating " + name + " again: " + calibrated.message()};
            }
            for (const TensorStatistics& s : statistics) options.ranges.push_back(s.range);
        }
        *bytes = emitTflite(graph, options);
        return {};
    }
    return {StatusCode::NOT_FOUND, "unknown model name '" + name + "' (nnemu_modelgen --list shows the names)"};
}

}  // namespace nnemu::modelgen
