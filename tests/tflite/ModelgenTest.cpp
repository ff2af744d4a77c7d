// nnemu_modelgen's catalog: every model loads and runs, generation is deterministic, quantized
// flavors agree with the float one, and outputs are not saturated.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>

#include "GeneratedModels.h"
#include "TestSupport.h"
#include "TfliteKernelForms.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

// Fills every input with a deterministic pattern over its whole range.
void fillInputs(Interpreter& interpreter) {
    for (size_t i = 0; i < interpreter.inputCount(); ++i) {
        const Tensor& tensor = interpreter.inputTensor(i);
        uint8_t* data = interpreter.inputData(i);
        const size_t count = tensor.byteSize() / elementSize(tensor.type);
        for (size_t k = 0; k < count; ++k) {
            const float unit = std::sin(static_cast<float>(k) * 0.37f + static_cast<float>(i));   // [-1, 1]
            if (tensor.type == ElementType::FLOAT32) {
                std::memcpy(data + 4 * k, &unit, 4);
            } else {
                data[k] = static_cast<uint8_t>(std::lround(127.5f + 127.5f * unit));
                if (tensor.type == ElementType::INT8) data[k] ^= 0x80u;
            }
        }
    }
}

std::vector<std::string> catalogNames() {
    std::vector<std::string> names;
    for (const modelgen::ModelInfo& info : modelgen::modelCatalog()) names.push_back(info.name);
    return names;
}

// The name of a flavor of a small model or network ("mixed_resize_nearest" is the uint8 one).
std::string flavorName(const std::string& base, const std::string& suffix) {
    return base == "mixed_resize_nearest" && suffix == "_quant" ? base : base + suffix;
}

class ModelgenRoundTrip : public testing::TestWithParam<std::string> {};

TEST_P(ModelgenRoundTrip, LoadsAndRunsOnBothPaths) {
    const std::vector<uint8_t> bytes = generatedBytes(GetParam());
    ASSERT_FALSE(bytes.empty());
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->fileSize(), bytes.size());
    std::vector<std::vector<uint8_t>> results;
    std::string nnapiForms;   // delegated nodes whose NNAPI result is not TFLite's (TfliteKernelForms.h)
    for (const RunMode& mode : runModes()) {
        std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, mode.options);
        ASSERT_NE(interpreter, nullptr) << mode.name;
        for (const Partition& partition : interpreter->partitions()) {
            for (uint32_t n : partition.delegated ? partition.nodes : std::vector<uint32_t>{}) {
                if (tfliteKernelDiffersFromNnapi(*model, model->nodes()[n])) nnapiForms += " " + model->nodes()[n].opName;
            }
        }
        fillInputs(*interpreter);
        const Status status = interpreter->invoke();
        if (!status.isOk() && mode.options.useNnapi && !nnapiForms.empty()) {
            // A delegated form Android's runtime refuses at execution (a rescaling RELU before a
            // bias-scale check); RealTfliteModelsTest checks real TFLite's delegate fails too.
            std::cout << "[ REFUSED  ] " << GetParam() << " " << mode.name << ": " << status.message() << "\n";
            return;
        }
        ASSERT_TRUE(status.isOk()) << mode.name << ": " << status.message();
        std::vector<uint8_t> outputs;
        for (size_t o = 0; o < interpreter->outputCount(); ++o) {
            outputs.insert(outputs.end(), interpreter->outputData(o),
                           interpreter->outputData(o) + interpreter->outputTensor(o).byteSize());
        }
        results.push_back(outputs);
    }
    // Same device, same kernels: the CPU path and the delegate agree exactly, except where the
    // delegate takes a form whose NNAPI result is not TFLite's (the CPU path runs TFLite's).
    if (!nnapiForms.empty()) {
        std::cout << "[ NNAPI    ] " << GetParam() << ": delegated" << nnapiForms
                  << " computes NNAPI's semantics, the CPU path TFLite's\n";
        return;
    }
    EXPECT_EQ(results[0], results[1]);
}

INSTANTIATE_TEST_SUITE_P(Catalog, ModelgenRoundTrip, testing::ValuesIn(catalogNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name) {
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             }
                             return name;
                         });

TEST(Modelgen, IsDeterministic) {
    for (const char* name : {"conv_int8", "mobilenet_v1_0.25_128_quant", "mixed_resize_nearest"}) {
        EXPECT_EQ(generatedBytes(name), generatedBytes(name)) << name;
    }
}

TEST(Modelgen, UnknownNameIsAnError) {
    std::vector<uint8_t> bytes;
    const Status generated = modelgen::generateModel("no_such_model", &bytes);
    EXPECT_FALSE(generated.isOk());
    EXPECT_NE(generated.message().find("no_such_model"), std::string::npos);
}

TEST(Modelgen, CatalogHasThePublishedNames) {
    std::vector<std::string> names;
    for (const modelgen::ModelInfo& info : modelgen::modelCatalog()) names.push_back(info.name);
    for (const char* name : {"mobilenet_v1_1.0_224_quant", "mobilenet_v1_0.25_224_quant", "mobilenet_v2_1.0_224_quant",
                             "mobilenet_v1_1.0_224_float", "mobilenet_v1_0.25_224_float", "mobilenet_v2_1.0_224_float",
                             "mobilenet_v1_1.0_224_int8", "mobilenet_v2_1.0_224_int8", "conv_quant", "add_float",
                             "mixed_resize_nearest"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    }
}

// Dequantized outputs of the uint8 and int8 flavors against the float flavor of the same
// network (same weights): the quantization parameters the generator chose are sane.
class QuantizedFlavor : public testing::TestWithParam<std::string> {};

// Runs a flavor on the same real-valued inputs (quantized with each input's parameters) and
// returns output 0 dequantized.
std::vector<float> runDequantized(const std::string& name) {
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(generatedBytes(name)));
    EXPECT_NE(model, nullptr);
    if (model == nullptr) return {};
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    if (interpreter == nullptr) return {};
    for (size_t i = 0; i < interpreter->inputCount(); ++i) {
        const Tensor& in = interpreter->inputTensor(i);
        const size_t count = in.byteSize() / elementSize(in.type);
        for (size_t k = 0; k < count; ++k) {
            const float value = 0.9f * std::sin(static_cast<float>(k) * 0.61f + 1.3f * static_cast<float>(i));
            if (in.type == ElementType::FLOAT32) {
                std::memcpy(interpreter->inputData(i) + 4 * k, &value, 4);
            } else {
                const long q = std::lround(value / in.scale) + in.zeroPoint;
                const long low = in.type == ElementType::INT8 ? -128 : 0;
                interpreter->inputData(i)[k] = static_cast<uint8_t>(std::clamp(q, low, low + 255));
            }
        }
    }
    EXPECT_TRUE(isOk(interpreter->invoke()));
    const Tensor& out = interpreter->outputTensor(0);
    std::vector<float> values(out.byteSize() / elementSize(out.type));
    for (size_t k = 0; k < values.size(); ++k) {
        const uint8_t* data = interpreter->outputData(0);
        if (out.type == ElementType::FLOAT32) {
            std::memcpy(&values[k], data + 4 * k, 4);
        } else {
            const int q = out.type == ElementType::INT8 ? static_cast<int8_t>(data[k]) : data[k];
            values[k] = out.scale * static_cast<float>(q - out.zeroPoint);
        }
    }
    return values;
}

TEST_P(QuantizedFlavor, AgreesWithFloat) {
    const std::string base = GetParam();
    const std::vector<float> expected = runDequantized(flavorName(base, "_float"));
    float low = 0, high = 0;
    for (float v : expected) {
        low = std::min(low, v);
        high = std::max(high, v);
    }
    ASSERT_GT(high - low, 1e-3f) << "the float output is constant";
    for (const char* suffix : {"_quant", "_int8"}) {
        const std::vector<float> actual = runDequantized(flavorName(base, suffix));
        ASSERT_EQ(actual.size(), expected.size()) << suffix;
        double sumError = 0;
        for (size_t k = 0; k < actual.size(); ++k) sumError += std::fabs(actual[k] - expected[k]);
        // Mean error within 3% of the output's span: quantized, not saturated or off-scale.
        EXPECT_LT(sumError / static_cast<double>(actual.size()), 0.03 * (high - low)) << base << suffix;
    }
}

INSTANTIATE_TEST_SUITE_P(SmallModels, QuantizedFlavor,
                         testing::Values("conv", "depthwise_conv", "fully_connected", "add", "mul", "sub", "average_pool",
                                         "max_pool", "softmax", "logistic", "tanh", "relu", "relu6", "concat", "reshape",
                                         "squeeze", "pad", "mean", "resize_bilinear", "resize_nearest",
                                         "mixed_resize_nearest", "mobilenet_v1_0.25_128", "mobilenet_v2_1.0_224",
                                         "transpose_conv", "gather", "tile", "expand_dims", "maximum", "minimum", "prelu",
                                         "select_greater"));

TEST(Modelgen, MobileNetScoresAreNotSaturated) {
    for (const char* name : {"mobilenet_v1_0.25_128_quant", "mobilenet_v1_0.25_128_int8"}) {
        std::unique_ptr<Model> model = expectValue(Model::fromBuffer(generatedBytes(name)));
        ASSERT_NE(model, nullptr);
        std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
        ASSERT_NE(interpreter, nullptr);
        fillInputs(*interpreter);
        ASSERT_TRUE(isOk(interpreter->invoke()));
        const uint8_t* scores = interpreter->outputData(0);
        const std::vector<size_t> top = topIndexes(scores, 1001, 5);
        EXPECT_LT(scores[top[0]], 250) << name << ": one class takes everything";
        EXPECT_GT(scores[top[0]], 2) << name << ": no class stands out";
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
