// Partitioning and fallback, seen through the C API with a fake accelerator registered next to
// nnapi-reference: it claims only ADD, runs it with the reference executor and can be made
// to fail.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <atomic>

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
        std::string why;
        if (!hal::validateModel(model, &why)) return {hal::ErrorStatus::INVALID_ARGUMENT, nullptr};
        return {hal::ErrorStatus::NONE, std::make_shared<FakePreparedModel>(model)};
    }
};

const hal::DeviceRegistrar kFake(10, [] { return std::make_shared<FakeAccelerator>(); });

ANeuralNetworksDevice* deviceNamed(const char* wanted) {
    uint32_t count = 0;
    ANeuralNetworks_getDeviceCount(&count);
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        const char* name = nullptr;
        ANeuralNetworks_getDevice(i, &device);
        ANeuralNetworksDevice_getName(device, &name);
        if (std::string(name) == wanted) return device;
    }
    return nullptr;
}

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

}  // namespace
}  // namespace nnemu
