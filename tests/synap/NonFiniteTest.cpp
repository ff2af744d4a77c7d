// NaN and infinities give the same results on synap-npu as on nnapi-reference, whose behaviour
// defines them: a NaN stays NaN through every activation clamp (RELU, RELU1, RELU6 and the fused
// activations), and an infinity beyond a bound becomes the bound. The core's float layers would
// turn a NaN into a clamp bound, so synap-npu does not claim operations with non-finite float
// constants and takes inferences with non-finite float inputs through the reference kernels.
#include <cmath>
#include <functional>
#include <limits>

#include "OneOperationModel.h"

namespace nnemu::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Sixteen values: NaN of both signs, both infinities, and finite values inside and outside
// every activation's bounds.
const std::vector<float> kSpecial{kNaN, -kNaN, kInf, -kInf, 0.5f, -0.5f, 7.0f, -7.0f,
                                  3e38f, -3e38f, 0.0f, -0.0f, 2.0f, -2.0f, 1.0f, -1.0f};
// Infinities without NaN: the reference makes NaN of them where a layer multiplies one by 0 or
// adds opposite ones.
const std::vector<float> kInfinities{kInf, -kInf, 1.0f, -1.0f, kInf, kInf, -kInf, -kInf,
                                     0.25f, 4.0f, kInf, -3.0f, -kInf, 2.0f, 0.0f, 5.0f};

std::vector<float> floatsOf(const std::vector<uint8_t>& bytes) {
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
}

// Equal values, any NaN equal to any NaN (their bit patterns aside).
void expectSameFloats(const std::vector<float>& expected, const std::vector<float>& actual, const std::string& what) {
    ASSERT_EQ(expected.size(), actual.size()) << what;
    for (size_t i = 0; i < expected.size(); ++i) {
        const bool same = std::isnan(expected[i]) ? std::isnan(actual[i]) : expected[i] == actual[i];
        EXPECT_TRUE(same) << what << " [" << i << "]: nnapi-reference " << expected[i] << ", synap-npu " << actual[i];
    }
}

// Runs `model` on both devices with `inputs`; the NPU must claim it and agree.
void expectDevicesAgree(const OneOperationModel& model, const std::vector<std::vector<uint8_t>>& inputs,
                        const std::string& what) {
    ASSERT_TRUE(model.claimedBy("synap-npu")) << what;
    const std::vector<uint8_t> reference = model.run("nnapi-reference", inputs);
    const std::vector<uint8_t> npu = model.run("synap-npu", inputs);
    ASSERT_FALSE(reference.empty()) << what;
    ASSERT_FALSE(npu.empty()) << what;
    if (model.outputType() == ANEURALNETWORKS_TENSOR_FLOAT32) {
        expectSameFloats(floatsOf(reference), floatsOf(npu), what);
    } else {
        EXPECT_EQ(reference, npu) << what;
    }
}

TestOperand floatTensor(std::vector<uint32_t> dims, std::vector<float> value = {}) {
    return TestOperand(ANEURALNETWORKS_TENSOR_FLOAT32, std::move(dims), 0.0f, 0,
                       value.empty() ? std::vector<uint8_t>{} : bytesOf(value));
}

const std::vector<uint32_t> kImage{1, 2, 2, 4};

// A 1x1 convolution [1, 2, 2, 4] -> [1, 2, 2, 4] whose filter sums pairs of channels.
OneOperationModel convolution(int32_t fuse, std::vector<float> filter = {}, std::vector<float> bias = {}) {
    if (filter.empty()) filter = {1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1};
    if (bias.empty()) bias = {0.0f, 1.0f, -1.0f, 0.5f};
    return OneOperationModel(ANEURALNETWORKS_CONV_2D,
                             {floatTensor(kImage), floatTensor({4, 1, 1, 4}, filter), floatTensor({4}, bias),
                              int32Scalar(0), int32Scalar(0), int32Scalar(0), int32Scalar(0), int32Scalar(1),
                              int32Scalar(1), int32Scalar(fuse)},
                             floatTensor(kImage));
}

// Every float operation the NPU claims that a NaN or an infinity can reach, with each fused
// activation where it has one.
std::vector<std::pair<std::string, std::function<OneOperationModel()>>> floatModels() {
    std::vector<std::pair<std::string, std::function<OneOperationModel()>>> models;
    for (int32_t op : {ANEURALNETWORKS_RELU, ANEURALNETWORKS_RELU1, ANEURALNETWORKS_RELU6, ANEURALNETWORKS_LOGISTIC,
                       ANEURALNETWORKS_TANH}) {
        models.emplace_back("unary " + std::to_string(op),
                            [op] { return OneOperationModel(op, {floatTensor(kImage)}, floatTensor(kImage)); });
    }
    for (int32_t fuse = 0; fuse <= 3; ++fuse) {
        const std::string f = " fuse " + std::to_string(fuse);
        for (int32_t op : {ANEURALNETWORKS_ADD, ANEURALNETWORKS_SUB, ANEURALNETWORKS_MUL}) {
            models.emplace_back("binary " + std::to_string(op) + f, [op, fuse] {
                return OneOperationModel(op, {floatTensor(kImage), floatTensor({4}, {1.0f, 0.0f, -2.0f, 0.5f}),
                                              int32Scalar(fuse)},
                                         floatTensor(kImage));
            });
        }
        models.emplace_back("conv" + f, [fuse] { return convolution(fuse); });
        models.emplace_back("depthwise" + f, [fuse] {
            return OneOperationModel(ANEURALNETWORKS_DEPTHWISE_CONV_2D,
                                     {floatTensor(kImage), floatTensor({1, 2, 2, 4}, std::vector<float>(16, 0.5f)),
                                      floatTensor({4}, {0, 0, 0, 0}), int32Scalar(0), int32Scalar(0), int32Scalar(0),
                                      int32Scalar(0), int32Scalar(1), int32Scalar(1), int32Scalar(1),
                                      int32Scalar(fuse)},
                                     floatTensor({1, 1, 1, 4}));
        });
        models.emplace_back("fully connected" + f, [fuse] {
            return OneOperationModel(ANEURALNETWORKS_FULLY_CONNECTED,
                                     {floatTensor({4, 4}), floatTensor({2, 4}, {1, 0, 0, 1, 0, 1, 1, 0}),
                                      floatTensor({2}, {0, 0}), int32Scalar(fuse)},
                                     floatTensor({4, 2}));
        });
        for (int32_t op : {ANEURALNETWORKS_AVERAGE_POOL_2D, ANEURALNETWORKS_MAX_POOL_2D}) {
            models.emplace_back("pool " + std::to_string(op) + f, [op, fuse] {
                return OneOperationModel(op,
                                         {floatTensor(kImage), int32Scalar(0), int32Scalar(0), int32Scalar(0),
                                          int32Scalar(0), int32Scalar(1), int32Scalar(1), int32Scalar(2),
                                          int32Scalar(2), int32Scalar(fuse)},
                                         floatTensor({1, 1, 1, 4}));
            });
        }
    }
    for (int32_t op : {ANEURALNETWORKS_MAXIMUM, ANEURALNETWORKS_MINIMUM}) {
        models.emplace_back("maxmin " + std::to_string(op), [op] {
            return OneOperationModel(op, {floatTensor(kImage), floatTensor({4}, {0.0f, 1.0f, -1.0f, 6.0f})},
                                     floatTensor(kImage));
        });
    }
    models.emplace_back("softmax", [] {
        return OneOperationModel(ANEURALNETWORKS_SOFTMAX,
                                 {floatTensor({4, 4}), TestOperand(ANEURALNETWORKS_FLOAT32, {}, 0.0f, 0,
                                                                   bytesOf<float>({1.0f}))},
                                 floatTensor({4, 4}));
    });
    models.emplace_back("mean", [] {
        return OneOperationModel(ANEURALNETWORKS_MEAN,
                                 {floatTensor(kImage),
                                  TestOperand(ANEURALNETWORKS_TENSOR_INT32, {2}, 0.0f, 0, bytesOf<int32_t>({1, 2})),
                                  int32Scalar(1)},
                                 floatTensor({1, 1, 1, 4}));
    });
    models.emplace_back("argmax", [] {
        return OneOperationModel(ANEURALNETWORKS_ARGMAX, {floatTensor({4, 4}), int32Scalar(1)},
                                 TestOperand(ANEURALNETWORKS_TENSOR_INT32, {4}));
    });
    return models;
}

// The reference's clamp: NaN stays NaN, infinities become the bound they pass.
TEST(NonFinite, TheReferenceClampKeepsNaNAndBoundsInfinities) {
    const std::vector<float> input{kNaN, kInf, -kInf, -0.5f, 0.5f, 7.0f};
    const std::vector<std::pair<int32_t, std::vector<float>>> cases{
            {ANEURALNETWORKS_RELU, {kNaN, kInf, 0.0f, 0.0f, 0.5f, 7.0f}},
            {ANEURALNETWORKS_RELU1, {kNaN, 1.0f, -1.0f, -0.5f, 0.5f, 1.0f}},
            {ANEURALNETWORKS_RELU6, {kNaN, 6.0f, 0.0f, 0.0f, 0.5f, 6.0f}}};
    for (const auto& [op, expected] : cases) {
        OneOperationModel model(op, {floatTensor({6})}, floatTensor({6}));
        expectSameFloats(expected, floatsOf(model.run("nnapi-reference", {bytesOf(input)})),
                         "operation " + std::to_string(op));
        // The same clamp fused into an addition of 0 (FUSED_RELU is 1, FUSED_RELU1 2, FUSED_RELU6 3).
        const int32_t fuse = op - ANEURALNETWORKS_RELU + 1;
        OneOperationModel add(ANEURALNETWORKS_ADD, {floatTensor({6}), floatTensor({1}, {0.0f}), int32Scalar(fuse)},
                              floatTensor({6}));
        expectSameFloats(expected, floatsOf(add.run("nnapi-reference", {bytesOf(input)})),
                         "ADD fuse " + std::to_string(fuse));
    }
}

TEST(NonFinite, DevicesAgreeOnNaNAndInfiniteInputs) {
    for (const auto& [name, make] : floatModels()) {
        const OneOperationModel model = make();
        for (const auto* values : {&kSpecial, &kInfinities}) {
            std::vector<std::vector<uint8_t>> inputs{bytesOf(*values)};
            expectDevicesAgree(model, inputs, name + (values == &kSpecial ? " (NaN)" : " (infinities)"));
        }
    }
}

// A NaN in the second operand of a broadcasting binary operation.
TEST(NonFinite, DevicesAgreeOnNaNInEitherOperand) {
    for (int32_t fuse = 0; fuse <= 3; ++fuse) {
        const OneOperationModel model(ANEURALNETWORKS_ADD, {floatTensor(kImage), floatTensor({4}), int32Scalar(fuse)},
                                      floatTensor(kImage));
        const std::vector<float> finite(16, 0.25f), operand{kNaN, -kInf, 3.0f, kInf};
        expectDevicesAgree(model, {bytesOf(finite), bytesOf(operand)}, "ADD fuse " + std::to_string(fuse));
    }
}

// Finite inputs after non-finite ones still run, and agree, on the same compilation.
TEST(NonFinite, FiniteInputsAfterNonFiniteOnes) {
    const OneOperationModel model = convolution(ANEURALNETWORKS_FUSED_RELU6);
    std::vector<float> values(16);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 8.0f;
    const std::vector<float>& finite = values;
    const ANeuralNetworksDevice* device[1] = {deviceNamed("synap-npu")};
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.handle(), device, 1, &compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    auto run = [&](const std::vector<float>& input) {
        std::vector<float> output(16, -1.0f);
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, input.data(), input.size() * 4), 0);
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output.data(), output.size() * 4), 0);
        EXPECT_EQ(ANeuralNetworksExecution_compute(execution), 0);
        ANeuralNetworksExecution_free(execution);
        return output;
    };
    for (const auto* input : {&kSpecial, &finite, &kSpecial, &finite}) {
        expectSameFloats(floatsOf(model.run("nnapi-reference", {bytesOf(*input)})), run(*input), "conv relu6");
    }
    ANeuralNetworksCompilation_free(compilation);
}

// A layer whose float weights or bias hold NaN or an infinity stays on nnapi-reference.
TEST(NonFinite, NonFiniteConstantsAreNotClaimed) {
    std::vector<float> filter{1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1};
    EXPECT_TRUE(convolution(ANEURALNETWORKS_FUSED_RELU).claimedBy("synap-npu"));
    for (float bad : {kNaN, kInf, -kInf}) {
        std::vector<float> badFilter = filter;
        badFilter[5] = bad;
        EXPECT_FALSE(convolution(ANEURALNETWORKS_FUSED_RELU, badFilter).claimedBy("synap-npu")) << bad;
        EXPECT_FALSE(convolution(ANEURALNETWORKS_FUSED_NONE, {}, {0.0f, bad, 0.0f, 0.0f}).claimedBy("synap-npu"))
                << bad;
        const OneOperationModel add(ANEURALNETWORKS_ADD,
                                    {floatTensor({4}), floatTensor({4}, {1.0f, bad, 0.0f, 2.0f}), int32Scalar(0)},
                                    floatTensor({4}));
        EXPECT_FALSE(add.claimedBy("synap-npu")) << bad;
    }
}

}  // namespace
}  // namespace nnemu::test
