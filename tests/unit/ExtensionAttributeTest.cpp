// Feature level 8 extension attributes (nnapi-fl30plus.md §3.9) through the C API, every result
// code. nnemu's own devices support no extension, so a fake device that supports one (and runs
// nothing) is registered here; a compilation for it alone is what the attributes need.
#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksExtensions.h>
#include <gtest/gtest.h>

#include <string>

#include "../synap/NnapiDevices.h"
#include "nnemu/hal/DeviceRegistry.h"

namespace nnemu {
namespace {

using test::deviceNamed;

constexpr char kExtension[] = "com.example.nnemu_test_hints";

class HintedDevice final : public hal::IDevice {
public:
    std::string getName() const override { return "fake-hinted"; }
    std::string getVersionString() const override { return "1"; }
    hal::DeviceType getType() const override { return hal::DeviceType::ACCELERATOR; }
    int64_t getFeatureLevel() const override { return hal::kFeatureLevel8; }
    hal::Capabilities getCapabilities() const override { return {}; }
    std::vector<hal::Extension> getSupportedExtensions() const override { return {{kExtension}}; }
    std::pair<hal::ErrorStatus, std::vector<bool>> getSupportedOperations(const hal::Model& model) override {
        return {hal::ErrorStatus::NONE, std::vector<bool>(model.operations.size(), false)};
    }
    hal::PrepareResult prepareModel(const hal::Model&, hal::ExecutionPreference, const std::vector<int>&,
                                    const std::vector<int>&, const hal::CacheToken&) override {
        return {hal::ErrorStatus::INVALID_ARGUMENT, nullptr};
    }
};

const hal::DeviceRegistrar kHinted(20, [] { return std::make_shared<HintedDevice>(); });

// out = x + x over [2] floats: nnapi-reference runs it.
class ExtensionAttributes : public ::testing::Test {
protected:
    void SetUp() override {
        hinted_ = deviceNamed("fake-hinted");
        reference_ = deviceNamed("nnapi-reference");
        ASSERT_NE(hinted_, nullptr);
        ASSERT_NE(reference_, nullptr);
        ASSERT_EQ(ANeuralNetworksModel_create(&model_), 0);
        const uint32_t dims[1] = {2};
        const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
        const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &tensor), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &scalar), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &tensor), 0);
        const int32_t none = 0;
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 1, &none, sizeof none), 0);
        const uint32_t in[3] = {0, 0, 1}, out[1] = {2};
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_ADD, 3, in, 1, out), 0);
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, in, 1, out), 0);
        ASSERT_EQ(ANeuralNetworksModel_finish(model_), 0);
    }
    void TearDown() override {
        ANeuralNetworksExecution_free(execution_);
        ANeuralNetworksCompilation_free(compilation_);
        ANeuralNetworksModel_free(model_);
    }
    ANeuralNetworksCompilation* compileFor(std::vector<const ANeuralNetworksDevice*> devices) {
        EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_, devices.data(),
                                                              static_cast<uint32_t>(devices.size()), &compilation_),
                  0);
        return compilation_;
    }
    int addTo(ANeuralNetworksCompilation* c, uint16_t code, const char* extension = kExtension) {
        return ANeuralNetworksCompilation_addExtensionAttribute(c, extension, code, payload_, sizeof payload_);
    }
    int addTo(ANeuralNetworksExecution* e, uint16_t code, const char* extension = kExtension) {
        return ANeuralNetworksExecution_addExtensionAttribute(e, extension, code, payload_, sizeof payload_);
    }

    const ANeuralNetworksDevice* hinted_ = nullptr;
    const ANeuralNetworksDevice* reference_ = nullptr;
    ANeuralNetworksModel* model_ = nullptr;
    ANeuralNetworksCompilation* compilation_ = nullptr;
    ANeuralNetworksExecution* execution_ = nullptr;
    const uint8_t payload_[3] = {1, 2, 3};
};

TEST_F(ExtensionAttributes, TheExtensionIsSupportedByTheFakeDeviceOnly) {
    bool supported = false;
    ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(hinted_, kExtension, &supported), 0);
    EXPECT_TRUE(supported);
    ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(reference_, kExtension, &supported), 0);
    EXPECT_FALSE(supported);
}

TEST_F(ExtensionAttributes, CompilationResultCodes) {
    ANeuralNetworksCompilation* c = compileFor({reference_});
    EXPECT_EQ(addTo(c, 1), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addTo(c, 1), ANEURALNETWORKS_BAD_DATA);  // the same attribute twice
    EXPECT_EQ(addTo(c, 2), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addTo(c, 1, "com.example.unknown"), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksCompilation_addExtensionAttribute(c, kExtension, 3, nullptr, 0), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksCompilation_addExtensionAttribute(c, kExtension, 4, nullptr, 1),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_addExtensionAttribute(c, nullptr, 5, payload_, 3),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_addExtensionAttribute(nullptr, kExtension, 5, payload_, 3),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    // The attributes do not stop the compilation: drivers may ignore them.
    ASSERT_EQ(ANeuralNetworksCompilation_finish(c), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addTo(c, 6), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(ExtensionAttributes, CompilationNeedsExactlyOneExplicitDevice) {
    ASSERT_EQ(ANeuralNetworksCompilation_create(model_, &compilation_), 0);
    EXPECT_EQ(addTo(compilation_, 1), ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksCompilation_free(compilation_);
    compilation_ = nullptr;
    EXPECT_EQ(addTo(compileFor({reference_, hinted_}), 1), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ExtensionAttributes, ExecutionResultCodes) {
    ANeuralNetworksCompilation* c = compileFor({reference_});
    ASSERT_EQ(ANeuralNetworksCompilation_finish(c), 0);
    ASSERT_EQ(ANeuralNetworksExecution_create(c, &execution_), 0);
    EXPECT_EQ(addTo(execution_, 7), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addTo(execution_, 7), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addTo(execution_, 7, "com.example.unknown"), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_addExtensionAttribute(execution_, kExtension, 8, nullptr, 2),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_addExtensionAttribute(execution_, nullptr, 8, payload_, 3),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_addExtensionAttribute(nullptr, kExtension, 8, payload_, 3),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    const float x[2] = {1.5f, -2.0f};
    float out[2] = {};
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution_, 0, nullptr, x, sizeof x), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution_, 0, nullptr, out, sizeof out), 0);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_FLOAT_EQ(out[0], 3.0f);
    EXPECT_FLOAT_EQ(out[1], -4.0f);
    EXPECT_EQ(addTo(execution_, 9), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(ExtensionAttributes, ExecutionNeedsExactlyOneExplicitDevice) {
    ASSERT_EQ(ANeuralNetworksCompilation_create(model_, &compilation_), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation_), 0);
    ASSERT_EQ(ANeuralNetworksExecution_create(compilation_, &execution_), 0);
    EXPECT_EQ(addTo(execution_, 1), ANEURALNETWORKS_BAD_DATA);
}

}  // namespace
}  // namespace nnemu
