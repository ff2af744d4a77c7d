// The oracles of ../shared/models/README.md that need no image tools, each run on TFLite's CPU
// path and through the NNAPI delegate on nnapi-reference.
#include <cmath>
#include <cstring>
#include <sstream>

#include "TestSupport.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

class SharedModelOracle : public testing::TestWithParam<RunMode> {
protected:
    void SetUp() override { NNEMU_REQUIRE_SHARED_MODELS(); }

    // Runs a one-input classifier on a preprocessed input file; returns the uint8 scores.
    std::vector<uint8_t> classify(const std::string& model, const std::string& input) {
        std::unique_ptr<Model> loaded = loadModel(modelsDir() + "/models/" + model);
        if (loaded == nullptr) return {};
        std::unique_ptr<Interpreter> interpreter = makeInterpreter(*loaded, GetParam().options);
        if (interpreter == nullptr) return {};
        const std::vector<uint8_t> bytes = readFile(modelsDir() + "/inputs/" + input);
        EXPECT_EQ(bytes.size(), interpreter->inputTensor(0).byteSize());
        if (bytes.size() != interpreter->inputTensor(0).byteSize()) return {};
        std::memcpy(interpreter->inputData(0), bytes.data(), bytes.size());
        EXPECT_TRUE(isOk(interpreter->invoke()));
        EXPECT_EQ(interpreter->outputTensor(0).type, ElementType::UINT8);
        const size_t count = interpreter->outputTensor(0).byteSize();
        return std::vector<uint8_t>(interpreter->outputData(0), interpreter->outputData(0) + count);
    }

    // label is among the top `rank` scores, with score >= minScore (score = q / 256).
    void expectLabel(const std::vector<uint8_t>& scores, size_t label, size_t rank, double minScore) {
        ASSERT_EQ(scores.size(), 1001u);
        const std::vector<size_t> top = topIndexes(scores.data(), scores.size(), rank);
        std::ostringstream seen;
        for (size_t i : top) seen << i << " (" << scores[i] / 256.0 << ") ";
        EXPECT_NE(std::find(top.begin(), top.end(), label), top.end()) << "top-" << rank << ": " << seen.str();
        EXPECT_GE(scores[label] / 256.0, minScore) << "top-" << rank << ": " << seen.str();
    }
};

TEST_P(SharedModelOracle, MobileNetV1Quarter128CatIsTigerCat) {
    expectLabel(classify("mobilenet_v1_0.25_128_quant.tflite", "cat_128x128x3_u8.bin"), 283, 3, 0.25);
}

TEST_P(SharedModelOracle, MobileNetV1Quarter128BirdIsChickadee) {
    expectLabel(classify("mobilenet_v1_0.25_128_quant.tflite", "bird_128x128x3_u8.bin"), 20, 1, 0.0);
}

TEST_P(SharedModelOracle, MobileNetV1Half160CatIsEgyptianCat) {
    expectLabel(classify("mobilenet_v1_0.5_160_quant.tflite", "cat_160x160x3_u8.bin"), 286, 1, 0.51);
}

TEST_P(SharedModelOracle, MobileNetV2CatIsEgyptianCat) {
    expectLabel(classify("mobilenet_v2_1.0_224_quant.tflite", "cat_224x224x3_u8.bin"), 286, 1, 0.7);
}

TEST_P(SharedModelOracle, MobileNetV2BirdIsChickadee) {
    expectLabel(classify("mobilenet_v2_1.0_224_quant.tflite", "bird_224x224x3_u8.bin"), 20, 1, 0.0);
}

TEST_P(SharedModelOracle, Tf2MobileNetV2PtqCatIsEgyptianCat) {
    // The libcoral threshold is 0.6; the independent engine lands one LSB below: allow 2 LSB.
    expectLabel(classify("tf2_mobilenet_v2_1.0_224_ptq.tflite", "cat_224x224x3_u8.bin"), 286, 1, 0.6 - 2.0 / 256);
}

TEST_P(SharedModelOracle, Tf2MobileNetV2PtqBirdIsChickadee) {
    expectLabel(classify("tf2_mobilenet_v2_1.0_224_ptq.tflite", "bird_224x224x3_u8.bin"), 20, 1, 0.0);
}

TEST_P(SharedModelOracle, PersonDetection) {
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/person_detect.tflite");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, GetParam().options);
    ASSERT_NE(interpreter, nullptr);
    ASSERT_EQ(interpreter->inputTensor(0).type, ElementType::INT8);
    ASSERT_EQ(interpreter->outputTensor(0).type, ElementType::INT8);
    for (const char* input : {"person_96x96x1_i8.bin", "no_person_96x96x1_i8.bin"}) {
        const std::vector<uint8_t> bytes = readFile(modelsDir() + "/inputs/" + input);
        ASSERT_EQ(bytes.size(), interpreter->inputTensor(0).byteSize());
        std::memcpy(interpreter->inputData(0), bytes.data(), bytes.size());  // already int8 values
        ASSERT_TRUE(isOk(interpreter->invoke()));
        const auto* scores = reinterpret_cast<const int8_t*>(interpreter->outputData(0));
        const bool person = std::strncmp(input, "person", 6) == 0;
        if (person) {
            EXPECT_GT(scores[1], scores[0]) << input << ": " << int{scores[0]} << ", " << int{scores[1]};
        } else {
            EXPECT_GT(scores[0], scores[1]) << input << ": " << int{scores[0]} << ", " << int{scores[1]};
        }
    }
}

TEST_P(SharedModelOracle, HelloWorldFloat) {
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/hello_world_float.tflite");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, GetParam().options);
    ASSERT_NE(interpreter, nullptr);
    for (float x : {0.0f, 1.0f, 3.0f, 5.0f}) {
        std::memcpy(interpreter->inputData(0), &x, sizeof x);
        ASSERT_TRUE(isOk(interpreter->invoke()));
        float y;
        std::memcpy(&y, interpreter->outputData(0), sizeof y);
        EXPECT_NEAR(y, std::sin(x), 0.05) << "x = " << x;
    }
}

TEST_P(SharedModelOracle, HelloWorldInt8) {
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/hello_world_int8.tflite");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, GetParam().options);
    ASSERT_NE(interpreter, nullptr);
    const struct {
        int8_t xq;
        float x;
    } cases[] = {{-96, 0.77f}, {-63, 1.57f}, {-34, 2.3f}, {0, 3.14f}};
    for (const auto& c : cases) {
        std::memcpy(interpreter->inputData(0), &c.xq, 1);
        ASSERT_TRUE(isOk(interpreter->invoke()));
        const auto yq = static_cast<int8_t>(interpreter->outputData(0)[0]);
        const float y = static_cast<float>(yq - 5) * 0.00829096f;
        EXPECT_NEAR(y, std::sin(c.x), 0.05) << "x_q = " << int{c.xq} << ", y_q = " << int{yq};
    }
}

TEST_P(SharedModelOracle, SplitConcatExactOutputs) {
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/split_concat.tflite");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, GetParam().options);
    ASSERT_NE(interpreter, nullptr);
    ASSERT_EQ(interpreter->inputCount(), 3u);
    ASSERT_EQ(interpreter->outputCount(), 5u);
    // Distinct values everywhere: input1[1,8,8,3], rnn1[1,8,8,1], rnn2[1,8,8,2].
    const size_t pixels = 64;
    const size_t depths[] = {3, 1, 2};
    for (size_t i = 0; i < 3; ++i) {
        ASSERT_EQ(interpreter->inputTensor(i).byteSize(), pixels * depths[i]);
        for (size_t k = 0; k < pixels * depths[i]; ++k) interpreter->inputData(i)[k] = static_cast<uint8_t>(k * 7 + 50 * i + 1);
    }
    ASSERT_TRUE(isOk(interpreter->invoke()));
    const auto in = [&](size_t input, size_t pixel, size_t channel) {
        return interpreter->inputData(input)[pixel * depths[input] + channel];
    };
    // outputs = [input1[..,0], input1[..,2], rnn2[..,0], input1[..,1], concat(rnn1[..,0], rnn2[..,1])]
    for (size_t p = 0; p < pixels; ++p) {
        EXPECT_EQ(interpreter->outputData(0)[p], in(0, p, 0)) << p;
        EXPECT_EQ(interpreter->outputData(1)[p], in(0, p, 2)) << p;
        EXPECT_EQ(interpreter->outputData(2)[p], in(2, p, 0)) << p;
        EXPECT_EQ(interpreter->outputData(3)[p], in(0, p, 1)) << p;
        EXPECT_EQ(interpreter->outputData(4)[2 * p], in(1, p, 0)) << p;
        EXPECT_EQ(interpreter->outputData(4)[2 * p + 1], in(2, p, 1)) << p;
    }
}

TEST_P(SharedModelOracle, SimpleAddInt8MatchesRequantizedSum) {
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/simple_add_model.tflite");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, GetParam().options);
    ASSERT_NE(interpreter, nullptr);
    const Tensor& a = interpreter->inputTensor(0);
    const Tensor& b = interpreter->inputTensor(1);
    const Tensor& out = interpreter->outputTensor(0);
    for (size_t k = 0; k < a.byteSize(); ++k) {
        interpreter->inputData(0)[k] = static_cast<uint8_t>(k * 13);
        interpreter->inputData(1)[k] = static_cast<uint8_t>(k * 29 + 7);
    }
    ASSERT_TRUE(isOk(interpreter->invoke()));
    for (size_t k = 0; k < out.byteSize(); ++k) {
        const float x = a.scale * (static_cast<int8_t>(interpreter->inputData(0)[k]) - a.zeroPoint);
        const float y = b.scale * (static_cast<int8_t>(interpreter->inputData(1)[k]) - b.zeroPoint);
        const float expected = std::clamp(std::round((x + y) / out.scale) + out.zeroPoint, -128.0f, 127.0f);
        ASSERT_NEAR(static_cast<int8_t>(interpreter->outputData(0)[k]), expected, 1.0) << "element " << k;
    }
}

TEST_P(SharedModelOracle, ModelInvokingErrorIsRejectedCleanly) {
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/negative/model_invoking_error.tflite");
    ASSERT_NE(model, nullptr);  // the file itself is well formed
    const std::string error = failureOf(Interpreter::create(*model, GetParam().options));
    EXPECT_NE(error.find("fake-op-double"), std::string::npos) << error;
    // TFLite's words, as libcoral's test expects them.
    EXPECT_NE(error.find("Encountered unresolved custom op: fake-op-double."), std::string::npos) << error;
    EXPECT_NE(error.find("Node number 0 (fake-op-double) failed to prepare."), std::string::npos) << error;
}

// Cross-check against an independent engine (Arm NN CpuRef, expected/armnn_cpuref): same top
// class and scores close. Not TFLite-exact kernels on either side, so a few LSB apart at the
// peak, but a wrong layout, shift or quantization would be far off.
TEST_P(SharedModelOracle, AgreesWithIndependentEngine) {
    const char* cases[][2] = {{"mobilenet_v1_0.25_128_quant", "cat_128x128x3_u8"},
                              {"mobilenet_v1_0.25_128_quant", "bird_128x128x3_u8"},
                              {"mobilenet_v1_0.5_160_quant", "cat_160x160x3_u8"},
                              {"mobilenet_v1_0.5_160_quant", "bird_160x160x3_u8"},
                              {"mobilenet_v2_1.0_224_quant", "resized_cat_224x224x3_u8"},
                              {"tf2_mobilenet_v2_1.0_224_ptq", "resized_cat_224x224x3_u8"},
                              {"person_detect", "person_96x96x1_i8"},
                              {"person_detect", "no_person_96x96x1_i8"}};
    for (const auto& c : cases) {
        const std::string model = c[0];
        const bool signedOutput = model == "person_detect";
        const std::vector<uint8_t> expected =
                readFile(modelsDir() + "/expected/armnn_cpuref/" + model + "__" + c[1] +
                         (signedOutput ? ".out0.int8.bin" : ".out0.uint8.bin"));
        std::unique_ptr<Model> loaded = loadModel(modelsDir() + "/models/" + model + ".tflite");
        ASSERT_NE(loaded, nullptr);
        std::unique_ptr<Interpreter> interpreter = makeInterpreter(*loaded, GetParam().options);
        ASSERT_NE(interpreter, nullptr);
        const std::vector<uint8_t> input = readFile(modelsDir() + "/inputs/" + c[1] + ".bin");
        ASSERT_EQ(input.size(), interpreter->inputTensor(0).byteSize());
        std::memcpy(interpreter->inputData(0), input.data(), input.size());
        ASSERT_TRUE(isOk(interpreter->invoke()));
        ASSERT_EQ(expected.size(), interpreter->outputTensor(0).byteSize()) << model;
        const auto value = [signedOutput](uint8_t byte) { return signedOutput ? int{static_cast<int8_t>(byte)} : int{byte}; };
        size_t ours = 0, theirs = 0;
        int worst = 0;
        double sum = 0;
        for (size_t i = 0; i < expected.size(); ++i) {
            const int a = value(interpreter->outputData(0)[i]);
            const int b = value(expected[i]);
            if (a > value(interpreter->outputData(0)[ours])) ours = i;
            if (b > value(expected[theirs])) theirs = i;
            worst = std::max(worst, std::abs(a - b));
            sum += std::abs(a - b);
        }
        EXPECT_EQ(ours, theirs) << model << " " << c[1];
        EXPECT_LE(worst, 24) << model << " " << c[1];
        if (expected.size() > 2) {
            EXPECT_LE(sum / static_cast<double>(expected.size()), 1.0) << model << " " << c[1];
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Modes, SharedModelOracle, testing::ValuesIn(runModes()), runModeName);

}  // namespace
}  // namespace nnemu::tflite::test
