// ANeuralNetworksCompilation_*: creation over all devices or a device list, preference, caching
// and finish, with their null, state and data errors.
#include <android/NeuralNetworksOEM.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "AddModel.h"

namespace nnemu::apitest {
namespace {

class CompilationTest : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = makeAddModel();
        ASSERT_NE(model_, nullptr);
        reference_ = referenceDevice();
        ASSERT_NE(reference_, nullptr);
    }
    CompilationPtr create() {
        ANeuralNetworksCompilation* compilation = nullptr;
        EXPECT_EQ(ANeuralNetworksCompilation_create(model_.get(), &compilation), ANEURALNETWORKS_NO_ERROR);
        return CompilationPtr(compilation);
    }
    // Runs the ADD model through `compilation` and checks the sums.
    void expectRuns(ANeuralNetworksCompilation* compilation) {
        ExecutionPtr execution = newExecution(compilation);
        ASSERT_NE(execution, nullptr);
        AddBuffers buffers;
        ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(buffers.output[0], 11.0f);
        EXPECT_EQ(buffers.output[1], -18.0f);
    }

    ModelPtr model_;
    const ANeuralNetworksDevice* reference_ = nullptr;
};

// ---- create ------------------------------------------------------------------------------------

TEST_F(CompilationTest, CreateRejectsNull) {
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_create(nullptr, &compilation), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_create(model_.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(CompilationTest, FreeAcceptsNull) { ANeuralNetworksCompilation_free(nullptr); }

TEST_F(CompilationTest, FreeUnfinishedCompilation) {
    CompilationPtr compilation = create();
    ASSERT_NE(compilation, nullptr);
    compilation.reset();
}

TEST_F(CompilationTest, CreateOnUnfinishedModelIsBadState) {
    ModelPtr unfinished = makeAddModel({.finish = false});
    ASSERT_NE(unfinished, nullptr);
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_create(unfinished.get(), &compilation), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), &reference_, 1, &compilation),
              ANEURALNETWORKS_BAD_STATE);
    // Once finished, the same model compiles.
    ASSERT_EQ(ANeuralNetworksModel_finish(unfinished.get()), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr compiled = compile(unfinished.get());
    ASSERT_NE(compiled, nullptr);
    expectRuns(compiled.get());
}

// Compilations of one model are independent.
TEST_F(CompilationTest, SeveralCompilationsOfOneModel) {
    CompilationPtr first = compile(model_.get());
    CompilationPtr second = compile(model_.get());
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    expectRuns(first.get());
    expectRuns(second.get());
}

// ---- createForDevices --------------------------------------------------------------------------

TEST_F(CompilationTest, CreateForDevicesRejectsNull) {
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(nullptr, &reference_, 1, &compilation),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), nullptr, 1, &compilation),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), &reference_, 1, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    const ANeuralNetworksDevice* withNull[] = {reference_, nullptr};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), withNull, 2, &compilation),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(CompilationTest, CreateForDevicesRejectsEmptyList) {
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), &reference_, 0, &compilation),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(CompilationTest, CreateForDevicesRejectsDuplicates) {
    ANeuralNetworksCompilation* compilation = nullptr;
    const ANeuralNetworksDevice* twice[] = {reference_, reference_};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), twice, 2, &compilation),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(CompilationTest, CreateForDevicesRejectsUnknownHandle) {
    int notADevice = 0;
    const ANeuralNetworksDevice* bogus[] = {reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice)};
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), bogus, 1, &compilation),
              ANEURALNETWORKS_BAD_DATA);
    const ANeuralNetworksDevice* mixed[] = {reference_, bogus[0]};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), mixed, 2, &compilation),
              ANEURALNETWORKS_BAD_DATA);
}

// Unlike getSupportedOperationsForDevices, createForDevices reads the whole list before the
// model's state; a null list comes before its count.
TEST_F(CompilationTest, CreateForDevicesChecksTheListBeforeTheModelState) {
    ModelPtr unfinished = makeAddModel({.finish = false});
    ASSERT_NE(unfinished, nullptr);
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), nullptr, 0, &compilation),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), &reference_, 0, &compilation),
              ANEURALNETWORKS_BAD_DATA);
    const ANeuralNetworksDevice* withNull[] = {reference_, nullptr};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), withNull, 2, &compilation),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    const ANeuralNetworksDevice* twice[] = {reference_, reference_};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), twice, 2, &compilation),
              ANEURALNETWORKS_BAD_DATA);
    int notADevice = 0;
    const ANeuralNetworksDevice* bogus[] = {reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice)};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), bogus, 1, &compilation),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(compilation, nullptr);
}

// Entries are checked in list order: a null entry, or a repeat of an earlier entry; unknown
// handles only once every entry passed.
TEST_F(CompilationTest, CreateForDevicesChecksEntriesInOrder) {
    ANeuralNetworksCompilation* compilation = nullptr;
    const ANeuralNetworksDevice* repeatBeforeNull[] = {reference_, nullptr, reference_};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), repeatBeforeNull, 3, &compilation),
              ANEURALNETWORKS_BAD_DATA);
    int notADevice = 0;
    const ANeuralNetworksDevice* unknownThenNull[] = {reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice),
                                                      nullptr};
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model_.get(), unknownThenNull, 2, &compilation),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(compilation, nullptr);
}

// A create refused for the model's state leaves a null compilation, whatever the pointer held.
TEST_F(CompilationTest, CreateOnUnfinishedModelNullsTheResult) {
    ModelPtr unfinished = makeAddModel({.finish = false});
    ASSERT_NE(unfinished, nullptr);
    int sentinel = 0;
    auto* stale = reinterpret_cast<ANeuralNetworksCompilation*>(&sentinel);
    ANeuralNetworksCompilation* compilation = stale;
    EXPECT_EQ(ANeuralNetworksCompilation_create(unfinished.get(), &compilation), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(compilation, nullptr);
    compilation = stale;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), &reference_, 1, &compilation),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(compilation, nullptr);
}

TEST_F(CompilationTest, CreateForTheReferenceDeviceRuns) {
    CompilationPtr compilation = compileFor(model_.get(), {reference_});
    ASSERT_NE(compilation, nullptr);
    expectRuns(compilation.get());
}

TEST_F(CompilationTest, CreateForEveryDeviceRuns) {
    const std::vector<const ANeuralNetworksDevice*> devices = allDeviceHandles();
    CompilationPtr compilation = compileFor(model_.get(), devices);
    ASSERT_NE(compilation, nullptr);
    expectRuns(compilation.get());
}

// ---- setPreference -----------------------------------------------------------------------------

TEST_F(CompilationTest, SetPreferenceRejectsNull) {
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(nullptr, ANEURALNETWORKS_PREFER_LOW_POWER),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(CompilationTest, SetPreferenceAcceptsTheThreeCodes) {
    for (int32_t preference : {ANEURALNETWORKS_PREFER_LOW_POWER, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER,
                               ANEURALNETWORKS_PREFER_SUSTAINED_SPEED}) {
        CompilationPtr compilation = create();
        ASSERT_NE(compilation, nullptr);
        EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), preference), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_NO_ERROR);
        expectRuns(compilation.get());
    }
}

TEST_F(CompilationTest, SetPreferenceRejectsThreeAndAbove) {
    CompilationPtr compilation = create();
    ASSERT_NE(compilation, nullptr);
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), 3), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), 1000), ANEURALNETWORKS_BAD_DATA);
    // The rejected values left the default in place.
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_NO_ERROR);
    expectRuns(compilation.get());
}

// A negative preference is accepted by the call but fails when the devices prepare the model.
TEST_F(CompilationTest, NegativePreferenceFailsAtFinish) {
    CompilationPtr compilation = create();
    ASSERT_NE(compilation, nullptr);
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), -1), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_OP_FAILED);
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(compilation.get(), &execution), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksBurst* burst = nullptr;
    EXPECT_EQ(ANeuralNetworksBurst_create(compilation.get(), &burst), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(CompilationTest, SetPreferenceAfterFinishIsBadState) {
    CompilationPtr compilation = compile(model_.get());
    ASSERT_NE(compilation, nullptr);
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), ANEURALNETWORKS_PREFER_LOW_POWER),
              ANEURALNETWORKS_BAD_STATE);
}

// ---- setCaching --------------------------------------------------------------------------------

TEST_F(CompilationTest, SetCachingRejectsNull) {
    CompilationPtr compilation = create();
    ASSERT_NE(compilation, nullptr);
    const uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {};
    EXPECT_EQ(ANeuralNetworksCompilation_setCaching(nullptr, "/tmp", token), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), nullptr, token),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), "/tmp", nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(CompilationTest, SetCachingThenFinishRuns) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("nnemu-api-cache-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN];
    for (size_t i = 0; i < sizeof(token); ++i) token[i] = static_cast<uint8_t>(i * 7);
    for (int round = 0; round < 2; ++round) {  // the second round may be served from the cache
        CompilationPtr compilation = create();
        ASSERT_NE(compilation, nullptr);
        ASSERT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), dir.c_str(), token),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_NO_ERROR);
        expectRuns(compilation.get());
    }
    std::filesystem::remove_all(dir);
}

TEST_F(CompilationTest, SetCachingAfterFinishIsBadState) {
    CompilationPtr compilation = compile(model_.get());
    ASSERT_NE(compilation, nullptr);
    const uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {};
    EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), "/tmp", token), ANEURALNETWORKS_BAD_STATE);
}

// ---- finish ------------------------------------------------------------------------------------

// A finished compilation answers null arguments with UNEXPECTED_NULL and bad values with
// BAD_STATE: null pointers, then the state, then values.
TEST_F(CompilationTest, FinishedCompilationChecksNullThenStateThenValues) {
    CompilationPtr compilation = compile(model_.get());
    ASSERT_NE(compilation, nullptr);
    const uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {};
    EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), nullptr, token),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), "/tmp", nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), 3), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), 1000), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(CompilationTest, FinishRejectsNull) {
    EXPECT_EQ(ANeuralNetworksCompilation_finish(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(CompilationTest, FinishTwiceIsBadState) {
    CompilationPtr compilation = compile(model_.get());
    ASSERT_NE(compilation, nullptr);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_BAD_STATE);
    expectRuns(compilation.get());  // still usable
}

// A model whose only operation no device supports (an OEM operation) cannot be compiled.
TEST_F(CompilationTest, UnsupportedOperationFailsFinishWithBadData) {
    ModelPtr model = newModel();
    ASSERT_NE(model, nullptr);
    const std::vector<uint32_t> dims{4};
    const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_OEM_BYTE, dims);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &tensor), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &tensor), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0}, out[] = {1};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_OEM_OPERATION, 1, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model.get()), ANEURALNETWORKS_NO_ERROR);

    ANeuralNetworksCompilation* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr all(raw);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(all.get()), ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(all.get(), &execution), ANEURALNETWORKS_BAD_STATE);

    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &reference_, 1, &raw),
              ANEURALNETWORKS_NO_ERROR);
    CompilationPtr onReference(raw);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(onReference.get()), ANEURALNETWORKS_BAD_DATA);
}

}  // namespace
}  // namespace nnemu::apitest
