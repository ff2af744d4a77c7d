// Generated MobileNets on synap-npu with their convolution + depthwise pairs in row bands
// (driver/synap/core/BandedLayers.h): outputs equal, to the bit, those of the same network with the
// pairs run apart (NNEMU_NPU_BANDS=0) and, 8-bit ones, those of nnapi-reference, on a few random inputs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu {
namespace {

// The first output's bytes for `input` on `accelerator`, compiled with NNEMU_NPU_BANDS=`bands`.
std::vector<uint8_t> classify(const tflite::Model& model, const char* accelerator, const char* bands,
                              const std::vector<uint8_t>& input) {
    setenv("NNEMU_NPU_BANDS", bands, 1);  // read when the core loads, at the first inference
    tflite::DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = accelerator;
    auto interpreter = tflite::test::expectValue(tflite::Interpreter::create(model, options));
    EXPECT_NE(interpreter, nullptr);
    if (interpreter == nullptr) return {};
    EXPECT_EQ(interpreter->inputTensor(0).byteSize(), input.size());
    std::memcpy(interpreter->inputData(0), input.data(), std::min(input.size(), interpreter->inputTensor(0).byteSize()));
    EXPECT_TRUE(tflite::test::isOk(interpreter->invoke()));
    unsetenv("NNEMU_NPU_BANDS");
    return std::vector<uint8_t>(interpreter->outputData(0),
                                interpreter->outputData(0) + interpreter->outputTensor(0).byteSize());
}

// The catalog's model `name`, parsed; null (with a failure) if it cannot be.
std::unique_ptr<tflite::Model> generated(const char* name) {
    std::vector<uint8_t> bytes;
    EXPECT_EQ(modelgen::generateModel(name, &bytes), nnemu::StatusCode::OK);
    return tflite::test::expectValue(tflite::Model::fromBuffer(std::move(bytes)));
}

std::string paramName(const testing::TestParamInfo<const char*>& info) {
    std::string name = info.param;
    for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

class BandedMobileNet : public testing::TestWithParam<const char*> {};

TEST_P(BandedMobileNet, MatchesTheLayersRunApartAndTheReference) {
    const auto model = generated(GetParam());
    ASSERT_NE(model, nullptr);
    std::mt19937 random(11);
    for (int example = 0; example < 2; ++example) {
        std::vector<uint8_t> input(224 * 224 * 3);
        for (uint8_t& b : input) b = static_cast<uint8_t>(random());
        const auto banded = classify(*model, "synap-npu", "1", input);
        EXPECT_EQ(banded, classify(*model, "synap-npu", "0", input)) << "example " << example;
        EXPECT_EQ(banded, classify(*model, "nnapi-reference", "1", input)) << "example " << example;
    }
}

// Float MobileNets (strict float32): their blocks whose values hold a float band run in bands
// (the first convolution's, the 1x1 convolutions' at 112x112 and 56x56), on one thread or more;
// the outputs are those of the layers run apart, to the bit (each output the same sum in the same
// order). nnapi-reference sums in other orders: it is no bitwise oracle for float networks.
class BandedFloatMobileNet : public testing::TestWithParam<const char*> {};

TEST_P(BandedFloatMobileNet, MatchesTheLayersRunApart) {
    const auto model = generated(GetParam());
    ASSERT_NE(model, nullptr);
    std::mt19937 random(12);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> image(224 * 224 * 3);
    for (float& v : image) v = value(random);
    std::vector<uint8_t> input(image.size() * sizeof(float));
    std::memcpy(input.data(), image.data(), input.size());
    const auto banded = classify(*model, "synap-npu", "1", input);
    ASSERT_EQ(banded.size(), 1001 * sizeof(float));
    EXPECT_EQ(banded, classify(*model, "synap-npu", "0", input));
}

INSTANTIATE_TEST_SUITE_P(Generated, BandedFloatMobileNet,
                         testing::Values("mobilenet_v1_1.0_224_float", "mobilenet_v2_1.0_224_float"), paramName);

INSTANTIATE_TEST_SUITE_P(Generated, BandedMobileNet,
                         testing::Values("mobilenet_v1_1.0_224_quant", "mobilenet_v2_1.0_224_int8",
                                         "mobilenet_v2_1.0_224_quant"), paramName);

}  // namespace
}  // namespace nnemu
