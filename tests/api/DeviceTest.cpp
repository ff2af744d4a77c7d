// ANeuralNetworks_getDevice*, ANeuralNetworksDevice_* and
// ANeuralNetworksModel_getSupportedOperationsForDevices.
#include <android/NeuralNetworksExtensions.h>
#include <android/NeuralNetworksOEM.h>

#include <set>
#include <string>

#include "AddModel.h"

namespace nnemu::apitest {
namespace {

uint32_t deviceCount() {
    uint32_t count = 0;
    EXPECT_EQ(ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_NO_ERROR);
    return count;
}

// ---- Enumeration -------------------------------------------------------------------------------

TEST(DeviceTest, GetDeviceCountRejectsNull) {
    EXPECT_EQ(ANeuralNetworks_getDeviceCount(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST(DeviceTest, AtLeastOneDevice) { EXPECT_GE(deviceCount(), 1u); }

TEST(DeviceTest, GetDeviceRejectsNullAndOutOfRange) {
    const uint32_t count = deviceCount();
    ANeuralNetworksDevice* device = nullptr;
    EXPECT_EQ(ANeuralNetworks_getDevice(0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworks_getDevice(count, &device), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworks_getDevice(count + 1, &device), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworks_getDevice(UINT32_MAX, &device), ANEURALNETWORKS_BAD_DATA);
}

TEST(DeviceTest, HandlesAreStable) {
    const uint32_t count = deviceCount();
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* first = nullptr;
        ANeuralNetworksDevice* second = nullptr;
        ASSERT_EQ(ANeuralNetworks_getDevice(i, &first), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworks_getDevice(i, &second), ANEURALNETWORKS_NO_ERROR);
        EXPECT_NE(first, nullptr);
        EXPECT_EQ(first, second);
    }
}

// Every device has a unique, non-empty name, a valid type, a version and a feature level.
TEST(DeviceTest, EveryDeviceDescribesItself) {
    const uint32_t count = deviceCount();
    std::set<std::string> names;
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        ASSERT_EQ(ANeuralNetworks_getDevice(i, &device), ANEURALNETWORKS_NO_ERROR);
        const char* name = nullptr;
        ASSERT_EQ(ANeuralNetworksDevice_getName(device, &name), ANEURALNETWORKS_NO_ERROR);
        ASSERT_NE(name, nullptr);
        EXPECT_NE(std::string(name), "");
        EXPECT_TRUE(names.insert(name).second) << "duplicate device name " << name;
        int32_t type = -1;
        ASSERT_EQ(ANeuralNetworksDevice_getType(device, &type), ANEURALNETWORKS_NO_ERROR);
        EXPECT_GE(type, ANEURALNETWORKS_DEVICE_UNKNOWN) << name;
        EXPECT_LE(type, ANEURALNETWORKS_DEVICE_ACCELERATOR) << name;
        const char* version = nullptr;
        ASSERT_EQ(ANeuralNetworksDevice_getVersion(device, &version), ANEURALNETWORKS_NO_ERROR);
        ASSERT_NE(version, nullptr);
        EXPECT_NE(std::string(version), "") << name;
        int64_t level = 0;
        ASSERT_EQ(ANeuralNetworksDevice_getFeatureLevel(device, &level), ANEURALNETWORKS_NO_ERROR);
        EXPECT_GE(level, 27) << name;
        EXPECT_LE(level, ANeuralNetworks_getRuntimeFeatureLevel()) << name;  // clamped to the runtime's
    }
}

// nnapi-reference is listed last, is a CPU and reports feature level 7: it runs every operation
// (feature level 8 added none).
TEST(DeviceTest, ReferenceDeviceIsLast) {
    const uint32_t count = deviceCount();
    ASSERT_GE(count, 1u);
    ANeuralNetworksDevice* device = nullptr;
    ASSERT_EQ(ANeuralNetworks_getDevice(count - 1, &device), ANEURALNETWORKS_NO_ERROR);
    const char* name = nullptr;
    ASSERT_EQ(ANeuralNetworksDevice_getName(device, &name), ANEURALNETWORKS_NO_ERROR);
    EXPECT_STREQ(name, "nnapi-reference");
    int32_t type = -1;
    ASSERT_EQ(ANeuralNetworksDevice_getType(device, &type), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(type, ANEURALNETWORKS_DEVICE_CPU);
    int64_t level = 0;
    ASSERT_EQ(ANeuralNetworksDevice_getFeatureLevel(device, &level), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(level, ANEURALNETWORKS_FEATURE_LEVEL_7);  // FL8's hints do not reach drivers
    const char* version = nullptr;
    ASSERT_EQ(ANeuralNetworksDevice_getVersion(device, &version), ANEURALNETWORKS_NO_ERROR);
    ASSERT_NE(version, nullptr);
    EXPECT_GT(std::string(version).size(), 0u);
}

TEST(DeviceTest, QueriesRejectNull) {
    const ANeuralNetworksDevice* device = referenceDevice();
    ASSERT_NE(device, nullptr);
    const char* text = nullptr;
    int32_t type = 0;
    int64_t level = 0;
    bool supported = true;
    EXPECT_EQ(ANeuralNetworksDevice_getName(nullptr, &text), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getName(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getType(nullptr, &type), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getType(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getVersion(nullptr, &text), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getVersion(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getFeatureLevel(nullptr, &level), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getFeatureLevel(device, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(nullptr, "com.example", &supported),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(device, nullptr, &supported),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(device, "com.example", nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST(DeviceTest, ReferenceDeviceHasNoExtensions) {
    const ANeuralNetworksDevice* device = referenceDevice();
    ASSERT_NE(device, nullptr);
    bool supported = true;
    EXPECT_EQ(ANeuralNetworksDevice_getExtensionSupport(device, "com.example.none", &supported),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_FALSE(supported);
}

// ---- getSupportedOperationsForDevices ----------------------------------------------------------

class SupportedOperationsTest : public ::testing::Test {
protected:
    void SetUp() override {
        reference_ = referenceDevice();
        ASSERT_NE(reference_, nullptr);
        model_ = makeAddModel();
        ASSERT_NE(model_, nullptr);
    }
    const ANeuralNetworksDevice* reference_ = nullptr;
    ModelPtr model_;
};

TEST_F(SupportedOperationsTest, RejectsNull) {
    bool supported[1] = {};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(nullptr, &reference_, 1, supported),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), nullptr, 1, supported),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), &reference_, 1, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    const ANeuralNetworksDevice* withNull[] = {reference_, nullptr};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), withNull, 2, supported),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(SupportedOperationsTest, RejectsBadDeviceLists) {
    bool supported[1] = {};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), &reference_, 0, supported),
              ANEURALNETWORKS_BAD_DATA);
    const ANeuralNetworksDevice* twice[] = {reference_, reference_};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), twice, 2, supported),
              ANEURALNETWORKS_BAD_DATA);
    int notADevice = 0;
    const ANeuralNetworksDevice* bogus[] = {reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice)};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), bogus, 1, supported),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(SupportedOperationsTest, UnfinishedModelIsBadState) {
    ModelPtr unfinished = makeAddModel({.finish = false});
    ASSERT_NE(unfinished, nullptr);
    bool supported[1] = {};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(unfinished.get(), &reference_, 1, supported),
              ANEURALNETWORKS_BAD_STATE);
}

// Android reads the list's count, then the model's state, and only then the list's entries.
TEST_F(SupportedOperationsTest, ModelStateBeforeListEntries) {
    ModelPtr unfinished = makeAddModel({.finish = false});
    ASSERT_NE(unfinished, nullptr);
    bool supported[1] = {};
    const ANeuralNetworksDevice* withNull[] = {reference_, nullptr};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(unfinished.get(), withNull, 2, supported),
              ANEURALNETWORKS_BAD_STATE);
    const ANeuralNetworksDevice* twice[] = {reference_, reference_};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(unfinished.get(), twice, 2, supported),
              ANEURALNETWORKS_BAD_STATE);
}

TEST_F(SupportedOperationsTest, NullAndEmptyListBeforeModelState) {
    ModelPtr unfinished = makeAddModel({.finish = false});
    ASSERT_NE(unfinished, nullptr);
    bool supported[1] = {};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(unfinished.get(), nullptr, 0, supported),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(unfinished.get(), &reference_, 0, supported),
              ANEURALNETWORKS_BAD_DATA);
}

// Entries are checked in list order: a null entry, or a repeat of an earlier entry; unknown
// handles only once every entry passed.
TEST_F(SupportedOperationsTest, ListEntriesInOrder) {
    bool supported[1] = {};
    const ANeuralNetworksDevice* repeatBeforeNull[] = {reference_, nullptr, reference_};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), repeatBeforeNull, 3, supported),
              ANEURALNETWORKS_BAD_DATA);
    int notADevice = 0;
    const ANeuralNetworksDevice* unknownThenNull[] = {reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice),
                                                      nullptr};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), unknownThenNull, 2, supported),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(SupportedOperationsTest, ReferenceSupportsAdd) {
    bool supported[2] = {false, false};
    ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), &reference_, 1, supported),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(supported[0]);
    EXPECT_FALSE(supported[1]);  // one operation: nothing written past it
}

// The flags follow the order in which the application added the operations, not the run order.
TEST_F(SupportedOperationsTest, FlagsFollowTheApplicationOrder) {
    ModelPtr model = newModel();
    ASSERT_NE(model, nullptr);
    // Added first: out = ADD(t, in1); added second: t = OEM(in0). The run order is the reverse.
    const std::vector<uint32_t> dims{2};
    const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
    const ANeuralNetworksOperandType scalar = scalarType(ANEURALNETWORKS_INT32);
    for (int i = 0; i < 4; ++i) {
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &tensor), ANEURALNETWORKS_NO_ERROR);  // in0 in1 t out
    }
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &scalar), ANEURALNETWORKS_NO_ERROR);  // 4
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 4, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t addIn[] = {2, 1, 4}, addOut[] = {3};
    const uint32_t oemIn[] = {0}, oemOut[] = {2};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, addIn, 1, addOut),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_OEM_OPERATION, 1, oemIn, 1, oemOut),
              ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0, 1}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 2, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model.get()), ANEURALNETWORKS_NO_ERROR);
    bool supported[2] = {false, true};
    ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), &reference_, 1, supported),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(supported[0]);   // ADD
    EXPECT_FALSE(supported[1]);  // OEM
}

}  // namespace
}  // namespace nnemu::apitest
