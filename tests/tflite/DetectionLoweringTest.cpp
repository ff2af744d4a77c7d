// TFLite_Detection_PostProcess -> DETECTION_POSTPROCESSING: the FlexBuffers options reader on
// well-formed and damaged maps, the operations and scalars the node becomes (float and uint8),
// and clean refusals, never crashes, for malformed options.
#include <android/NeuralNetworks.h>
#include <flatbuffers/flexbuffers.h>

#include <cmath>

#include "FlexbufferMap.h"
#include "LoweredGraph.h"

namespace nnemu::tflite::test {
namespace {

constexpr fb::TensorType F32 = fb::TensorType_FLOAT32;
constexpr fb::TensorType U8 = fb::TensorType_UINT8;

// One option: its key and how it is written.
struct Option {
    std::string key;
    enum Kind { INT, FLOAT, DOUBLE, BOOL, STRING, INDIRECT_FLOAT } kind;
    double value;
};

std::vector<Option> standardOptions() {
    return {{"max_detections", Option::INT, 10},         {"max_classes_per_detection", Option::INT, 1},
            {"detections_per_class", Option::INT, 100},   {"use_regular_nms", Option::BOOL, 0},
            {"nms_score_threshold", Option::FLOAT, 0.3},  {"nms_iou_threshold", Option::FLOAT, 0.6},
            {"num_classes", Option::INT, 3},              {"y_scale", Option::FLOAT, 10},
            {"x_scale", Option::FLOAT, 10},               {"h_scale", Option::FLOAT, 5},
            {"w_scale", Option::FLOAT, 5}};
}

std::vector<uint8_t> flex(const std::vector<Option>& options) {
    flexbuffers::Builder b;
    b.Map([&] {
        for (const Option& o : options) {
            const char* key = o.key.c_str();
            switch (o.kind) {
                case Option::INT: b.Int(key, static_cast<int64_t>(o.value)); break;
                case Option::FLOAT: b.Float(key, static_cast<float>(o.value)); break;
                case Option::DOUBLE: b.Double(key, o.value); break;
                case Option::BOOL: b.Bool(key, o.value != 0); break;
                case Option::STRING: b.String(key, "ten"); break;
                case Option::INDIRECT_FLOAT: b.IndirectFloat(key, static_cast<float>(o.value)); break;
            }
        }
    });
    b.Finish();
    return b.GetBuffer();
}

std::vector<Option> with(std::vector<Option> options, const std::string& key, Option::Kind kind, double value) {
    for (Option& o : options) {
        if (o.key == key) o = {key, kind, value};
    }
    return options;
}

std::vector<Option> without(std::vector<Option> options, const std::string& key) {
    std::erase_if(options, [&](const Option& o) { return o.key == key; });
    return options;
}

// box encodings [1, 6, 4], class predictions [1, 6, classes], constant anchors [6, 4] ->
// boxes [1, 10, 4], classes [1, 10], scores [1, 10], count [1].
GraphBuilder detectionGraph(std::vector<uint8_t> customOptions, bool quantized = false, int32_t classes = 4) {
    GraphBuilder g;
    const fb::TensorType type = quantized ? U8 : F32;
    const int32_t boxes = g.tensor({1, 6, 4}, type, {}, quantized ? std::vector<float>{0.05f} : std::vector<float>{},
                                   {128});
    const int32_t scores = g.tensor({1, 6, classes}, type, {}, quantized ? std::vector<float>{1.0f / 256} : std::vector<float>{});
    std::vector<float> anchorValues;
    for (int a = 0; a < 6; ++a) anchorValues.insert(anchorValues.end(), {0.1f + 0.15f * a, 0.5f, 0.2f, 0.2f});
    std::vector<uint8_t> anchorBytes;
    if (quantized) {
        for (float v : anchorValues) anchorBytes.push_back(static_cast<uint8_t>(std::lround(v / 0.01f)));
    } else {
        anchorBytes = GraphBuilder::bytes(anchorValues);
    }
    const int32_t anchors = g.tensor({6, 4}, type, anchorBytes, quantized ? std::vector<float>{0.01f} : std::vector<float>{});
    const int32_t outBoxes = g.tensor({1, 10, 4}, F32);
    const int32_t outClasses = g.tensor({1, 10}, F32);
    const int32_t outScores = g.tensor({1, 10}, F32);
    const int32_t count = g.tensor({1}, F32);
    g.customOp("TFLite_Detection_PostProcess", {boxes, scores, anchors}, {outBoxes, outClasses, outScores, count},
               std::move(customOptions));
    g.inputs = {boxes, scores};
    g.outputs = {outBoxes, outClasses, outScores, count};
    return g;
}

TEST(FlexbufferMap, ReadsScalarsOfEveryWidth) {
    const std::vector<Option> options = {{"small", Option::INT, -3},      {"large", Option::INT, 5e9},
                                         {"flag", Option::BOOL, 1},       {"single", Option::FLOAT, 0.25},
                                         {"double", Option::DOUBLE, 1e-9}, {"indirect", Option::INDIRECT_FLOAT, 2.5},
                                         {"text", Option::STRING, 0}};
    const std::vector<uint8_t> bytes = flex(options);
    FlexbufferMap map;
    ASSERT_TRUE(isOk(map.parse(bytes.data(), bytes.size())));
    double value = 0;
    for (const Option& o : options) {
        if (o.kind == Option::STRING) {
            EXPECT_EQ(map.number(o.key, &value), FlexbufferMap::Lookup::NOT_A_NUMBER);
            continue;
        }
        ASSERT_EQ(map.number(o.key, &value), FlexbufferMap::Lookup::NUMBER) << o.key;
        EXPECT_DOUBLE_EQ(value, o.kind == Option::FLOAT || o.kind == Option::INDIRECT_FLOAT
                                        ? static_cast<double>(static_cast<float>(o.value))
                                        : o.value)
                << o.key;
    }
    EXPECT_EQ(map.number("absent", &value), FlexbufferMap::Lookup::ABSENT);
}

TEST(FlexbufferMap, RefusesWhatIsNotAMap) {
    flexbuffers::Builder b;
    b.Int(7);
    b.Finish();
    FlexbufferMap map;
    EXPECT_EQ(failureOf(map.parse(b.GetBuffer().data(), b.GetBuffer().size())), "the root is not a map");
    const uint8_t tiny[2] = {1, 1};
    EXPECT_FALSE(map.parse(tiny, sizeof tiny).isOk());
    EXPECT_FALSE(map.parse(nullptr, 0).isOk());
}

// Every truncation and every single-byte change of a valid map parses or is refused; nothing
// reads outside the buffer (ASan builds check that), nothing crashes.
TEST(FlexbufferMap, DamagedMapsNeverReadOutside) {
    const std::vector<uint8_t> bytes = flex(standardOptions());
    FlexbufferMap map;
    double value;
    for (size_t size = 0; size < bytes.size(); ++size) {
        std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
        if (map.parse(cut.data(), cut.size())) map.number("num_classes", &value);
    }
    for (size_t at = 0; at < bytes.size(); ++at) {
        for (uint8_t change : {uint8_t{0}, uint8_t{1}, uint8_t{0x7f}, uint8_t{0xff}}) {
            std::vector<uint8_t> damaged = bytes;
            damaged[at] = change;
            if (!map.parse(damaged.data(), damaged.size())) continue;
            for (const Option& o : standardOptions()) map.number(o.key, &value);
        }
    }
}

TEST(DetectionLowering, FloatModel) {
    const LoweredGraph l = lowerGraph(detectionGraph(flex(standardOptions())));
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), (std::vector<int32_t>{ANEURALNETWORKS_DETECTION_POSTPROCESSING, ANEURALNETWORKS_CAST,
                                                        ANEURALNETWORKS_CAST}));
    ASSERT_EQ(l.graph.operations[0].inputs.size(), 14u);
    EXPECT_EQ(l.input(0, 0).dims, (std::vector<uint32_t>{1, 6, 4}));   // scores (class predictions) first
    EXPECT_EQ(l.input(0, 0).tensor, 1);
    EXPECT_EQ(l.input(0, 1).tensor, 0);                                 // then box deltas
    EXPECT_TRUE(l.input(0, 2).isConstant);                              // anchors
    EXPECT_EQ(l.value<float>(0, 3), 10.0f);
    EXPECT_EQ(l.value<float>(0, 4), 10.0f);
    EXPECT_EQ(l.value<float>(0, 5), 5.0f);
    EXPECT_EQ(l.value<float>(0, 6), 5.0f);
    EXPECT_EQ(l.value<uint8_t>(0, 7), 0);        // fast NMS
    EXPECT_EQ(l.value<int32_t>(0, 8), 10);
    EXPECT_EQ(l.value<int32_t>(0, 9), 1);
    EXPECT_EQ(l.value<int32_t>(0, 10), 100);
    EXPECT_FLOAT_EQ(l.value<float>(0, 11), 0.3f);
    EXPECT_FLOAT_EQ(l.value<float>(0, 12), 0.6f);
    EXPECT_EQ(l.value<uint8_t>(0, 13), 0);       // labels exclude the background, as TFLite's
    // NNAPI's outputs (scores, boxes, classes, count) onto TFLite's (boxes, classes, scores, count).
    EXPECT_EQ(l.output(0, 0).tensor, 5);
    EXPECT_EQ(l.output(0, 1).tensor, 3);
    EXPECT_EQ(l.output(0, 2).type, ANEURALNETWORKS_TENSOR_INT32);
    EXPECT_EQ(l.output(1, 0).tensor, 4);
    EXPECT_EQ(l.output(2, 0).tensor, 6);
    EXPECT_TRUE(l.cpuOnly(0));   // a custom operator: TFLite's CPU kernels
}

TEST(DetectionLowering, QuantizedInputsAreDequantized) {
    const LoweredGraph l = lowerGraph(detectionGraph(flex(with(standardOptions(), "use_regular_nms", Option::BOOL, 1)), true));
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(),
              (std::vector<int32_t>{ANEURALNETWORKS_DEQUANTIZE, ANEURALNETWORKS_DEQUANTIZE, ANEURALNETWORKS_DEQUANTIZE,
                                    ANEURALNETWORKS_DETECTION_POSTPROCESSING, ANEURALNETWORKS_CAST, ANEURALNETWORKS_CAST}));
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(l.input(3, i).type, ANEURALNETWORKS_TENSOR_FLOAT32);
    EXPECT_EQ(l.value<uint8_t>(3, 7), 1);   // regular NMS
}

TEST(DetectionLowering, OptionalOptionsTakeTfliteDefaults) {
    const LoweredGraph l =
            lowerGraph(detectionGraph(flex(without(without(standardOptions(), "detections_per_class"), "use_regular_nms"))));
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.value<int32_t>(0, 10), 100);
    EXPECT_EQ(l.value<uint8_t>(0, 7), 0);
    // Integers written as doubles and scales as indirect floats read the same.
    const LoweredGraph other = lowerGraph(detectionGraph(
            flex(with(with(standardOptions(), "max_detections", Option::DOUBLE, 10), "y_scale", Option::INDIRECT_FLOAT, 10))));
    ASSERT_TRUE(other.ok) << other.error;
    EXPECT_EQ(other.value<int32_t>(0, 8), 10);
    EXPECT_EQ(other.value<float>(0, 3), 10.0f);
}

TEST(DetectionLowering, RefusesMalformedOptions) {
    const std::string node = "operator TFLite_Detection_PostProcess at node 0: ";
    const std::pair<std::vector<uint8_t>, std::string> cases[] = {
            {{}, "missing custom options (a FlexBuffers map)"},
            {{1, 2, 3, 4, 5, 6, 7}, "malformed custom options: "},
            {flex(without(standardOptions(), "y_scale")), "option y_scale is missing"},
            {flex(with(standardOptions(), "num_classes", Option::STRING, 0)), "option num_classes is not a number"},
            {flex(with(standardOptions(), "max_detections", Option::INT, 0)), "option max_detections = 0.000000 is not a count"},
            {flex(with(standardOptions(), "max_detections", Option::DOUBLE, 2.5)), "is not a count in [1, 2^20]"},
            {flex(with(standardOptions(), "h_scale", Option::FLOAT, -1)), "option h_scale must be positive"},
            {flex(with(standardOptions(), "nms_iou_threshold", Option::FLOAT, 1.5)), "nms_iou_threshold must be in (0, 1]"},
            {flex(with(standardOptions(), "x_scale", Option::DOUBLE, NAN)), "option x_scale is not finite"},
            {flex(with(standardOptions(), "max_classes_per_detection", Option::INT, 2)),
             "max_classes_per_detection = 2 has no NNAPI form"},
            {flex(with(standardOptions(), "max_detections", Option::INT, 12)), "outputs must have shapes [1, 12, 4]"},
    };
    for (const auto& [options, reason] : cases) {
        const LoweredGraph l = lowerGraph(detectionGraph(options));
        EXPECT_FALSE(l.ok) << reason;
        EXPECT_EQ(l.error.rfind(node, 0), 0u) << l.error;
        EXPECT_NE(l.error.find(reason), std::string::npos) << l.error;
    }
    // Without a background column NNAPI cannot tell TFLite's classes apart.
    const LoweredGraph noBackground = lowerGraph(detectionGraph(flex(standardOptions()), false, 3));
    EXPECT_NE(noBackground.error.find("class predictions must have shape [1, 6, num_classes + 1]"), std::string::npos)
            << noBackground.error;
}

// Any damage to the options of a whole model is a refusal with a reason or a valid lowering.
TEST(DetectionLowering, DamagedOptionsNeverCrash) {
    const std::vector<uint8_t> bytes = flex(standardOptions());
    for (size_t at = 0; at < bytes.size(); ++at) {
        std::vector<uint8_t> damaged = bytes;
        damaged[at] ^= 0x5a;
        const LoweredGraph l = lowerGraph(detectionGraph(damaged));
        if (!l.ok) {
            EXPECT_FALSE(l.error.empty()) << at;
        }
    }
}

TEST(DetectionLowering, UnknownCustomOperatorIsNamed) {
    GraphBuilder g;
    const int32_t in = g.tensor({4}, F32);
    const int32_t out = g.tensor({4}, F32);
    g.customOp("MyCustomOp", {in}, {out}, {});
    g.inputs = {in};
    g.outputs = {out};
    const LoweredGraph l = lowerGraph(g);
    // TFLite's message for an unresolved custom operator, then the node that failed.
    EXPECT_EQ(l.error, "Encountered unresolved custom op: MyCustomOp.\nSee instructions: "
                       "https://www.tensorflow.org/lite/guide/ops_custom \nNode number 0 (MyCustomOp) failed to prepare.");
}

}  // namespace
}  // namespace nnemu::tflite::test
