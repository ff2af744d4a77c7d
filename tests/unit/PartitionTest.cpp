// Partitioning and fallback, seen through the C API with a fake accelerator registered next to
// nnapi-reference: it claims only ADD, runs it with the reference executor and can be made
// to fail.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <atomic>

#include "../synap/NnapiDevices.h"
#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/DeviceRegistry.h"
#include "nnemu/hal/Validation.h"

namespace nnemu {
namespace {

std::atomic<int> gFakeExecutions{0};
std::atomic<bool> gFakeFails{false};

class FakePreparedModel final : public hal::IPreparedModel {
public:
    explicit FakePreparedModel(hal::Model model) : model_(std::move(model)) {}
    std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> executeSynchronously(
            const hal::Request& request, hal::MeasureTiming) override {
        ++gFakeExecutions;
        if (gFakeFails) return {hal::ErrorStatus::GENERAL_FAILURE, {}, {}};
        auto [status, shapes] = cpu::executeModel(model_, request);
        return {status, shapes, {}};
    }

private:
    hal::Model model_;
};

class FakeAccelerator final : public hal::IDevice {
public:
    std::string getName() const override { return "fake-accelerator"; }
    std::string getVersionString() const override { return "1"; }
    hal::DeviceType getType() const override { return hal::DeviceType::ACCELERATOR; }
    hal::Capabilities getCapabilities() const override {
        hal::Capabilities capabilities;
        capabilities.operandPerformance.push_back({hal::OperandType::TENSOR_FLOAT32, {0.5f, 0.5f}});
        return capabilities;
    }
    std::pair<hal::ErrorStatus, std::vector<bool>> getSupportedOperations(const hal::Model& model) override {
        std::vector<bool> supported;
        for (const auto& operation : model.operations) supported.push_back(operation.type == hal::OperationType::ADD);
        return {hal::ErrorStatus::NONE, supported};
    }
    hal::PrepareResult prepareModel(const hal::Model& model, hal::ExecutionPreference, const std::vector<int>&,
                                    const std::vector<int>&, const hal::CacheToken&) override {
        for (const auto& operation : model.operations) {
            if (operation.type != hal::OperationType::ADD) return {hal::ErrorStatus::INVALID_ARGUMENT, nullptr};
        }
        if (!hal::validateModel(model).isOk()) return {hal::ErrorStatus::INVALID_ARGUMENT, nullptr};
        return {hal::ErrorStatus::NONE, std::make_shared<FakePreparedModel>(model)};
    }
};

using test::deviceNamed;

const hal::DeviceRegistrar kFake(10, [] { return std::make_shared<FakeAccelerator>(); });

// out = ((x + y) * y) + x over [4] floats: ADD, MUL, ADD — the MUL only nnapi-reference runs.
class MixedModel : public ::testing::Test {
protected:
    void SetUp() override {
        gFakeExecutions = 0;
        gFakeFails = false;
        ASSERT_EQ(ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR);
        const uint32_t dims[1] = {4};
        const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
        const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
        // 0 x, 1 y, 2 fuse, 3 sum, 4 product, 5 out
        for (int i = 0; i < 6; ++i) ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, i == 2 ? &scalar : &tensor), 0);
        const int32_t none = 0;
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 2, &none, sizeof none), 0);
        const uint32_t add1[3] = {0, 1, 2}, sum[1] = {3}, mul[3] = {3, 1, 2}, product[1] = {4};
        const uint32_t add2[3] = {4, 0, 2}, out[1] = {5};
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_ADD, 3, add1, 1, sum), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_MUL, 3, mul, 1, product), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_ADD, 3, add2, 1, out), 0);
        const uint32_t inputs[2] = {0, 1}, outputs[1] = {5};
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, 2, inputs, 1, outputs), 0);
        ASSERT_EQ(ANeuralNetworksModel_finish(model_), 0);
    }
    void TearDown() override { ANeuralNetworksModel_free(model_); }

    int run(ANeuralNetworksCompilation* compilation, float* out) {
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        ANeuralNetworksExecution_setInput(execution, 0, nullptr, x_, sizeof x_);
        ANeuralNetworksExecution_setInput(execution, 1, nullptr, y_, sizeof y_);
        ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out, 4 * sizeof(float));
        const int status = ANeuralNetworksExecution_compute(execution);
        ANeuralNetworksExecution_free(execution);
        return status;
    }
    void expectCorrect(const float* out) {
        for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[i], (x_[i] + y_[i]) * y_[i] + x_[i]) << i;
    }

    ANeuralNetworksModel* model_ = nullptr;
    const float x_[4] = {1, 2, 3, 4};
    const float y_[4] = {0.5f, -1, 2, 10};
};

TEST_F(MixedModel, SplitsIntoThreeStepsAcrossDevices) {
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model_, &compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    float out[4] = {};
    ASSERT_EQ(run(compilation, out), ANEURALNETWORKS_NO_ERROR);
    expectCorrect(out);
    EXPECT_EQ(gFakeExecutions, 2);  // both ADD steps, the MUL step ran on nnapi-reference
    ANeuralNetworksCompilation_free(compilation);
}

TEST_F(MixedModel, ReportsPerDeviceSupportInTheApplicationsOrder) {
    const ANeuralNetworksDevice* fake[1] = {deviceNamed("fake-accelerator")};
    ASSERT_NE(fake[0], nullptr);
    bool supported[3] = {};
    ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_, fake, 1, supported), 0);
    EXPECT_TRUE(supported[0]);
    EXPECT_FALSE(supported[1]);
    EXPECT_TRUE(supported[2]);
}

TEST_F(MixedModel, WithoutFallbackAnUnsupportedOperationFailsCompilation) {
    const ANeuralNetworksDevice* fake[1] = {deviceNamed("fake-accelerator")};
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model_, fake, 1, &compilation), 0);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksCompilation_free(compilation);
}

TEST_F(MixedModel, AFailingAcceleratorStepFallsBackToTheCpu) {
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model_, &compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    gFakeFails = true;
    float out[4] = {};
    ASSERT_EQ(run(compilation, out), ANEURALNETWORKS_NO_ERROR);
    expectCorrect(out);
    EXPECT_GE(gFakeExecutions, 2);
    ANeuralNetworksCompilation_free(compilation);
}

TEST_F(MixedModel, WithoutFallbackAFailingStepReportsOpFailed) {
    const ANeuralNetworksDevice* both[2] = {deviceNamed("fake-accelerator"), deviceNamed("nnapi-reference")};
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model_, both, 2, &compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    gFakeFails = true;
    float out[4] = {};
    EXPECT_EQ(run(compilation, out), ANEURALNETWORKS_OP_FAILED);
    ANeuralNetworksCompilation_free(compilation);
}

TEST(Devices, AcceleratorsComeBeforeTheReferenceDevice) {
    uint32_t count = 0;
    ASSERT_EQ(ANeuralNetworks_getDeviceCount(&count), 0);
    ASSERT_GE(count, 2u);
    ANeuralNetworksDevice* last = nullptr;
    ASSERT_EQ(ANeuralNetworks_getDevice(count - 1, &last), 0);
    const char* name = nullptr;
    ANeuralNetworksDevice_getName(last, &name);
    EXPECT_STREQ(name, "nnapi-reference");
}

// nnapi-fl30plus.md §2.4: an operation is offered only to devices whose feature level covers its
// minimum. The fake accelerator keeps IDevice's default level (29) and claims every ADD, but an
// ADD of TENSOR_INT32 needs feature level 30.
TEST(DeviceFeatureLevel, LaterOperationsAreNotOfferedToAnOlderDevice) {
    ANeuralNetworksDevice* fake = deviceNamed("fake-accelerator");
    ASSERT_NE(fake, nullptr);
    int64_t level = 0;
    ASSERT_EQ(ANeuralNetworksDevice_getFeatureLevel(fake, &level), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(level, 29);
    for (const int32_t code : {ANEURALNETWORKS_TENSOR_FLOAT32, ANEURALNETWORKS_TENSOR_INT32}) {
        SCOPED_TRACE(code);
        gFakeExecutions = 0;
        ANeuralNetworksModel* model = nullptr;
        ASSERT_EQ(ANeuralNetworksModel_create(&model), 0);
        const uint32_t dims[1] = {2};
        const ANeuralNetworksOperandType tensor{code, 1, dims, 0.0f, 0};
        const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
        for (int i = 0; i < 4; ++i) ASSERT_EQ(ANeuralNetworksModel_addOperand(model, i == 2 ? &scalar : &tensor), 0);
        const int32_t none = 0;
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 2, &none, sizeof none), 0);
        const uint32_t in[3] = {0, 1, 2}, out[1] = {3};
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, in, 1, out), 0);
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, in, 1, out), 0);
        ASSERT_EQ(ANeuralNetworksModel_finish(model), 0);
        const bool isFloat = code == ANEURALNETWORKS_TENSOR_FLOAT32;

        const ANeuralNetworksDevice* only[1] = {fake};
        bool supported = !isFloat;
        ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model, only, 1, &supported), 0);
        EXPECT_EQ(supported, isFloat);
        ANeuralNetworksCompilation* compilation = nullptr;
        ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model, only, 1, &compilation), 0);
        EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation),
                  isFloat ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_BAD_DATA);
        ANeuralNetworksCompilation_free(compilation);

        // Over every device the INT32 ADD goes to nnapi-reference, the float one to the accelerator.
        ASSERT_EQ(ANeuralNetworksCompilation_create(model, &compilation), 0);
        ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
        ANeuralNetworksExecution* execution = nullptr;
        ASSERT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        int32_t ints[2] = {3, -4}, intOut[2] = {};
        float floats[2] = {1.5f, 2.0f}, floatOut[2] = {};
        void* data = isFloat ? static_cast<void*>(floats) : static_cast<void*>(ints);
        void* result = isFloat ? static_cast<void*>(floatOut) : static_cast<void*>(intOut);
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, data, 8), 0);
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 1, nullptr, data, 8), 0);
        ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, result, 8), 0);
        ASSERT_EQ(ANeuralNetworksExecution_compute(execution), ANEURALNETWORKS_NO_ERROR);
        if (isFloat) {
            EXPECT_FLOAT_EQ(floatOut[1], 4.0f);
        } else {
            EXPECT_EQ(intOut[0], 6);
            EXPECT_EQ(intOut[1], -8);
        }
        EXPECT_EQ(gFakeExecutions, isFloat ? 1 : 0);
        ANeuralNetworksExecution_free(execution);
        ANeuralNetworksCompilation_free(compilation);
        ANeuralNetworksModel_free(model);
    }
}

}  // namespace
}  // namespace nnemu
