#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "Compilation.h"
#include "nnemu/props/Properties.h"

#include "NnapiDevices.h"

namespace nnemu {
namespace {

using test::deviceNamed;

// A device root of its own for the test binary, so properties start unset.
class DeviceRoot : public ::testing::Environment {
public:
    void SetUp() override {
        char pattern[] = "/tmp/nnemu-synap-test-XXXXXX";
        root_ = mkdtemp(pattern);
        setenv("NNEMU_ROOT", root_.c_str(), 1);
    }
    void TearDown() override { std::filesystem::remove_all(root_); }

private:
    std::string root_;
};
const auto* const kRoot = ::testing::AddGlobalTestEnvironment(new DeviceRoot);


void setDisable(const char* value) {
    const Status set = props::set("vendor.NNAPI_SYNAP_DISABLE", value);
    ASSERT_TRUE(set.isOk()) << set.message();
}

// conv 3x3 (1 -> 2 channels) -> RESIZE_NEAREST_NEIGHBOR x2 -> conv 1x1 (2 -> 1), float.
// The input's height and width may be left unknown (0) to exercise the first-inference JIT.
class MixedNetwork : public ::testing::Test {
protected:
    void build(uint32_t side) {
        ASSERT_EQ(ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR);
        const uint32_t inDims[4] = {1, side, side, 1}, midDims[4] = {1, side, side, 2};
        const uint32_t bigDims[4] = {1, side * 2, side * 2, 2}, outDims[4] = {1, side * 2, side * 2, 1};
        const uint32_t f1Dims[4] = {2, 3, 3, 1}, b1Dims[1] = {2}, f2Dims[4] = {1, 1, 1, 2}, b2Dims[1] = {1};
        auto tensor = [](const uint32_t* dims, uint32_t rank) {
            return ANeuralNetworksOperandType{ANEURALNETWORKS_TENSOR_FLOAT32, rank, dims, 0.0f, 0};
        };
        const ANeuralNetworksOperandType i32{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
        const ANeuralNetworksOperandType boolean{ANEURALNETWORKS_BOOL, 0, nullptr, 0.0f, 0};
        const ANeuralNetworksOperandType types[] = {
                tensor(inDims, 4), tensor(f1Dims, 4), tensor(b1Dims, 1), i32, i32, i32, i32,  // 0-6 conv 1
                tensor(midDims, 4),                                                       // 7
                i32, i32, boolean, tensor(bigDims, 4),                                    // 8-11 resize
                tensor(f2Dims, 4), tensor(b2Dims, 1), tensor(outDims, 4)};                // 12-14 conv 2
        for (const auto& type : types) ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &type), 0);
        const float f1[18] = {0.1f, 0.2f, -0.3f, 0.4f, 0.5f, 0.6f, -0.7f, 0.8f, 0.9f,
                              1.0f, -0.5f, 0.25f, 0.0f, 0.75f, -1.0f, 0.5f, 0.3f, 0.2f};
        const float b1[2] = {0.5f, -0.25f}, f2[2] = {1.5f, -2.0f}, b2[1] = {0.125f};
        const int32_t same = ANEURALNETWORKS_PADDING_SAME, one = 1, relu = ANEURALNETWORKS_FUSED_RELU;
        const int32_t size = static_cast<int32_t>(side * 2);
        const bool nhwc = false;
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 1, f1, sizeof f1), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 2, b1, sizeof b1), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 3, &same, sizeof same), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 4, &one, sizeof one), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 5, &one, sizeof one), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 6, &relu, sizeof relu), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 8, &size, sizeof size), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 9, &size, sizeof size), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 10, &nhwc, sizeof nhwc), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 12, f2, sizeof f2), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 13, b2, sizeof b2), 0);
        const uint32_t conv1In[7] = {0, 1, 2, 3, 4, 5, 6}, conv1Out[1] = {7};
        const uint32_t resizeIn[4] = {7, 8, 9, 10}, resizeOut[1] = {11};
        const uint32_t conv2In[7] = {11, 12, 13, 3, 4, 5, 6}, conv2Out[1] = {14};
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_CONV_2D, 7, conv1In, 1, conv1Out), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR, 4, resizeIn, 1,
                                                    resizeOut), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_CONV_2D, 7, conv2In, 1, conv2Out), 0);
        const uint32_t inputs[1] = {0}, outputs[1] = {14};
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, inputs, 1, outputs), 0);
        ASSERT_EQ(ANeuralNetworksModel_finish(model_), 0);
    }
    void TearDown() override {
        for (auto* compilation : compilations_) ANeuralNetworksCompilation_free(compilation);
        ANeuralNetworksModel_free(model_);
    }

    ANeuralNetworksCompilation* compile(std::vector<const char*> devices) {
        ANeuralNetworksCompilation* compilation = nullptr;
        if (devices.empty()) {
            EXPECT_EQ(ANeuralNetworksCompilation_create(model_, &compilation), 0);
        } else {
            std::vector<const ANeuralNetworksDevice*> handles;
            for (const char* name : devices) handles.push_back(deviceNamed(name));
            EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_, handles.data(),
                                                                  static_cast<uint32_t>(handles.size()), &compilation),
                      0);
        }
        EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
        compilations_.push_back(compilation);
        return compilation;
    }
    // Runs with an input of side x side (the model's dims may leave it open).
    int run(ANeuralNetworksCompilation* compilation, uint32_t side, std::vector<float>* out) {
        std::vector<float> in(side * side);
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 7) % 11) / 5.0f - 1.0f;
        out->assign(side * side * 4, 0.0f);
        const uint32_t dims[4] = {1, side, side, 1};
        const ANeuralNetworksOperandType type{ANEURALNETWORKS_TENSOR_FLOAT32, 4, dims, 0.0f, 0};
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution, 0, &type, in.data(), in.size() * sizeof(float)), 0);
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out->data(), out->size() * sizeof(float)),
                  0);
        const int status = ANeuralNetworksExecution_compute(execution);
        ANeuralNetworksExecution_free(execution);
        return status;
    }
    static std::vector<std::string> stepDevices(ANeuralNetworksCompilation* compilation) {
        const auto* plan = reinterpret_cast<runtime::Compilation*>(compilation)->plan();
        std::vector<std::string> names;
        for (size_t i = 0; i < plan->stepCount(); ++i) names.push_back(plan->step(i).device->name);
        return names;
    }
    // CTS float tolerance.
    static void expectClose(const std::vector<float>& expected, const std::vector<float>& actual) {
        ASSERT_EQ(expected.size(), actual.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            EXPECT_NEAR(actual[i], expected[i], 1e-5 + 5.96e-7 * std::abs(expected[i])) << i;
        }
    }

    ANeuralNetworksModel* model_ = nullptr;
    std::vector<ANeuralNetworksCompilation*> compilations_;
};

TEST_F(MixedNetwork, TheNpuDoesNotClaimNearestNeighbourResize) {
    build(4);
    const ANeuralNetworksDevice* npu[1] = {deviceNamed("synap-npu")};
    ASSERT_NE(npu[0], nullptr);
    bool supported[3] = {};
    ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_, npu, 1, supported), 0);
    EXPECT_TRUE(supported[0]);
    EXPECT_FALSE(supported[1]);
    EXPECT_TRUE(supported[2]);
}

TEST_F(MixedNetwork, RunsAsThreeStepsWithTheMiddleOnTheCpu) {
    build(4);
    ANeuralNetworksCompilation* mixed = compile({});
    EXPECT_EQ(stepDevices(mixed), (std::vector<std::string>{"synap-npu", "nnapi-reference", "synap-npu"}));
    std::vector<float> expected, actual;
    ASSERT_EQ(run(compile({"nnapi-reference"}), 4, &expected), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(run(mixed, 4, &actual), ANEURALNETWORKS_NO_ERROR);
    expectClose(expected, actual);
}

TEST_F(MixedNetwork, WithoutTheCpuTheNpuAloneCannotCompileIt) {
    build(4);
    ANeuralNetworksCompilation* compilation = nullptr;
    const ANeuralNetworksDevice* npu[1] = {deviceNamed("synap-npu")};
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model_, npu, 1, &compilation), 0);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksCompilation_free(compilation);
}

TEST_F(MixedNetwork, DisablingTheNpuRunsEverythingOnTheCpuWithTheSameResults) {
    build(4);
    std::vector<float> onNpu, onCpu;
    ASSERT_EQ(run(compile({}), 4, &onNpu), ANEURALNETWORKS_NO_ERROR);
    setDisable("1");
    ANeuralNetworksCompilation* disabled = compile({});
    EXPECT_EQ(stepDevices(disabled), (std::vector<std::string>{"nnapi-reference"}));
    ASSERT_EQ(run(disabled, 4, &onCpu), ANEURALNETWORKS_NO_ERROR);
    expectClose(onCpu, onNpu);
    setDisable("0");  // read again at the next compilation: no restart needed
    EXPECT_EQ(stepDevices(compile({})).front(), "synap-npu");
}

// A network whose input size is only known at the first inference: a convolution alone.
TEST(FirstInference, FreezesTheInputShape) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), 0);
    const uint32_t inDims[4] = {1, 0, 0, 1}, filterDims[4] = {1, 1, 1, 1}, biasDims[1] = {1}, outDims[4] = {1, 0, 0, 1};
    const ANeuralNetworksOperandType in{ANEURALNETWORKS_TENSOR_FLOAT32, 4, inDims, 0, 0};
    const ANeuralNetworksOperandType filter{ANEURALNETWORKS_TENSOR_FLOAT32, 4, filterDims, 0, 0};
    const ANeuralNetworksOperandType bias{ANEURALNETWORKS_TENSOR_FLOAT32, 1, biasDims, 0, 0};
    const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0, 0};
    const ANeuralNetworksOperandType out{ANEURALNETWORKS_TENSOR_FLOAT32, 4, outDims, 0, 0};
    for (const auto* type : {&in, &filter, &bias, &scalar, &scalar, &scalar, &scalar, &out}) {
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model, type), 0);
    }
    const float two = 2.0f, zero = 0.0f;
    const int32_t valid = ANEURALNETWORKS_PADDING_VALID, one = 1, none = 0;
    ANeuralNetworksModel_setOperandValue(model, 1, &two, sizeof two);
    ANeuralNetworksModel_setOperandValue(model, 2, &zero, sizeof zero);
    ANeuralNetworksModel_setOperandValue(model, 3, &valid, sizeof valid);
    ANeuralNetworksModel_setOperandValue(model, 4, &one, sizeof one);
    ANeuralNetworksModel_setOperandValue(model, 5, &one, sizeof one);
    ANeuralNetworksModel_setOperandValue(model, 6, &none, sizeof none);
    const uint32_t ins[7] = {0, 1, 2, 3, 4, 5, 6}, outs[1] = {7}, inputs[1] = {0};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, ins, 1, outs), 0);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, inputs, 1, outs), 0);
    ASSERT_EQ(ANeuralNetworksModel_finish(model), 0);
    const ANeuralNetworksDevice* npu[1] = {deviceNamed("synap-npu")};
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model, npu, 1, &compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);

    auto runWithSide = [&](uint32_t side, std::vector<float>* result) {
        std::vector<float> input(side * side, 1.5f);
        result->assign(side * side, 0.0f);
        const uint32_t dims[4] = {1, side, side, 1};
        const ANeuralNetworksOperandType type{ANEURALNETWORKS_TENSOR_FLOAT32, 4, dims, 0, 0};
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        ANeuralNetworksExecution_setInput(execution, 0, &type, input.data(), input.size() * sizeof(float));
        ANeuralNetworksExecution_setOutput(execution, 0, nullptr, result->data(), result->size() * sizeof(float));
        const int status = ANeuralNetworksExecution_compute(execution);
        uint32_t outShape[4] = {};
        if (status == ANEURALNETWORKS_NO_ERROR) {
            EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution, 0, outShape), 0);
            EXPECT_EQ(outShape[1], side);
        }
        ANeuralNetworksExecution_free(execution);
        return status;
    };
    std::vector<float> result;
    ASSERT_EQ(runWithSide(3, &result), ANEURALNETWORKS_NO_ERROR);
    for (float value : result) EXPECT_FLOAT_EQ(value, 3.0f);
    ASSERT_EQ(runWithSide(3, &result), ANEURALNETWORKS_NO_ERROR);  // same shape: reuses the program
    EXPECT_EQ(runWithSide(5, &result), ANEURALNETWORKS_OP_FAILED);  // frozen after the first inference
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
}

// An operation whose output nothing reads (the model keeps it, the network does not need it):
// its NPU layer still needs memory to write to, which XNNPACK does not give it.
TEST(UnreadOutput, AnOperationNothingReadsStillRunsOnTheNpu) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), 0);
    const uint32_t dims[2] = {2, 3};
    const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0, 0};
    for (int i = 0; i < 3; ++i) ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), 0);
    const uint32_t in[1] = {0}, used[1] = {1}, unused[1] = {2};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_RELU, 1, in, 1, used), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_LOGISTIC, 1, in, 1, unused), 0);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, in, 1, used), 0);
    ASSERT_EQ(ANeuralNetworksModel_finish(model), 0);
    const ANeuralNetworksDevice* npu[1] = {deviceNamed("synap-npu")};
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model, npu, 1, &compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    const float input[6] = {-2, -1, 0, 1, 2, 3};
    float output[6] = {};
    ANeuralNetworksExecution* execution = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, input, sizeof input), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output, sizeof output), 0);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(std::vector<float>(output, output + 6), (std::vector<float>{0, 0, 0, 1, 2, 3}));
    ANeuralNetworksExecution_free(execution);
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
}

}  // namespace
}  // namespace nnemu
