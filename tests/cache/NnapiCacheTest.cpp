// The NNAPI compilation cache end to end (nnapi-fl29.md §6, synap-behaviors.md §2.3): the
// runtime's per-device token and file names, synap-npu asking for a file only while
// vendor.npu.cache.model=1, writing its program after the first-inference JIT, preparing from
// the file later so the first inference has no JIT, and refusing a damaged file, which the
// runtime then recompiles and rewrites.
#include <filesystem>
#include <fstream>
#include <string>

#include "NnapiCacheTest.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/base/Digest.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;
using cache::cacheCounters;

TEST(CacheTokenTest, FileNamesUseLowNibbleFirstLetters) {
    EXPECT_EQ(runtime::cacheFileBaseName(tokenOf(0)), std::string(64, 'A'));
    hal::CacheToken token = tokenOf(0);
    token[0] = 0xF1;
    token[31] = 0x2E;
    const std::string name = runtime::cacheFileBaseName(token);
    EXPECT_EQ(name.substr(0, 2), "BP");
    EXPECT_EQ(name.substr(62), "OC");
}

TEST(CacheTokenTest, HashesTokenOperationsDeviceVersionAndPreference) {
    const hal::CacheToken app = tokenOf(9);
    const std::vector<uint32_t> operations = {0, 2};
    base::Digest digest(base::DigestAlgorithm::SHA256);
    digest.update(app.data(), app.size());
    for (uint32_t operation : operations) digest.updateValue(static_cast<int32_t>(operation));
    digest.update("synap-npu", 9);
    digest.update("v1", 2);
    digest.updateValue(int32_t{2});
    const auto expected = digest.finish();
    const auto derived = runtime::deriveCacheToken(app, operations, "synap-npu", "v1",
                                                   hal::ExecutionPreference::SUSTAINED_SPEED);
    ASSERT_TRUE(derived.has_value());
    EXPECT_EQ(std::vector<uint8_t>(derived->begin(), derived->end()), expected);
    // Each ingredient changes the token.
    const auto base = *derived;
    EXPECT_NE(*runtime::deriveCacheToken(tokenOf(8), operations, "synap-npu", "v1",
                                         hal::ExecutionPreference::SUSTAINED_SPEED), base);
    EXPECT_NE(*runtime::deriveCacheToken(app, {0}, "synap-npu", "v1", hal::ExecutionPreference::SUSTAINED_SPEED), base);
    EXPECT_NE(*runtime::deriveCacheToken(app, operations, "synap-npu", "v2",
                                         hal::ExecutionPreference::SUSTAINED_SPEED), base);
    EXPECT_NE(*runtime::deriveCacheToken(app, operations, "synap-npu", "v1", hal::ExecutionPreference::LOW_POWER),
              base);
}

TEST_F(NnapiCacheTest, IgnoredWhileTheHalPropertyIsOff) {
    ConvNetwork network({8, 16, {1}});
    compileAndRun(network);
    compileAndRun(network);
    EXPECT_EQ(filesInCacheDir(), 0u);
    EXPECT_EQ(cacheCounters().modelCacheWrites + cacheCounters().modelCacheLoads, 0u);
}

TEST_F(NnapiCacheTest, AHitLoadsTheProgramSoTheFirstInferenceHasNoJit) {
    setProperty("vendor.npu.cache.model", "1");
    setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");  // only the NNAPI cache can help
    ConvNetwork network({8, 16, {1, 2}});
    // Miss: the runtime creates the file, the driver fills it after the first inference.
    ANeuralNetworksCompilation* compilation = network.compile(cacheDir_, token_.data());
    ASSERT_NE(compilation, nullptr);
    const std::string file = modelCacheFile(token_);
    ASSERT_TRUE(fs::exists(file));
    EXPECT_EQ(fs::file_size(file), 0u);
    EXPECT_EQ(filesInCacheDir(), 1u) << "one model cache file, no data cache file";
    EXPECT_EQ((fs::status(file).permissions() & fs::perms::all), fs::perms::owner_read | fs::perms::owner_write);
    const auto first = network.run(compilation);
    ANeuralNetworksCompilation_free(compilation);
    EXPECT_EQ(cacheCounters().compiles, 1u);
    EXPECT_EQ(cacheCounters().modelCacheWrites, 1u);
    EXPECT_GT(fs::file_size(file), 1000u);

    // Hit: prepared from the file; the first inference neither compiles nor looks anything up.
    const auto second = compileAndRun(network);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 1u);
    EXPECT_EQ(cacheCounters().compiles, 1u);
    EXPECT_EQ(cacheCounters().modelCacheWrites, 1u);
    EXPECT_EQ(first, second);
}

// Whether this process maps `file` (/proc/self/maps names mapped files by their path).
bool processMaps(const std::string& file) {
    std::ifstream maps("/proc/self/maps");
    const std::string path = fs::canonical(file).string();
    for (std::string line; std::getline(maps, line);) {
        if (line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0) return true;
    }
    return false;
}

// A hit runs from a mapping of the file, shared with every process running the same network,
// not from a copy; the mapping goes with the compilation.
TEST_F(NnapiCacheTest, AHitRunsFromTheMappedFile) {
    setProperty("vendor.npu.cache.model", "1");
    setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");
    ConvNetwork network({8, 16, {1}});
    const auto expected = compileAndRun(network);
    const std::string file = modelCacheFile(token_);
    EXPECT_FALSE(processMaps(file));
    ANeuralNetworksCompilation* compilation = network.compile(cacheDir_, token_.data());
    ASSERT_NE(compilation, nullptr);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 1u);
    EXPECT_TRUE(processMaps(file));
    EXPECT_EQ(network.run(compilation), expected);
    ANeuralNetworksCompilation_free(compilation);
    EXPECT_FALSE(processMaps(file));
}

// A hit of a network with megabytes of arena and weights: a thread of the compilation reads
// their pages ahead of the first inference (FirstRunPages.h), which waits for the arena's and
// then runs beside the constants' reading (the TSan build checks the order); outputs as from
// the JIT, and a compilation freed before it ever ran stops that thread.
TEST_F(NnapiCacheTest, ALargeHitReadsItsPagesAheadAndGivesTheSameOutputs) {
    setProperty("vendor.npu.cache.model", "1");
    setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");
    ConvNetwork network({64, 64, {1, 2}});
    ASSERT_TRUE(network.valid());
    ANeuralNetworksCompilation* compilation = network.compile(cacheDir_, token_.data());
    ASSERT_NE(compilation, nullptr);
    const auto first = network.run(compilation);
    ANeuralNetworksCompilation_free(compilation);
    ASSERT_EQ(cacheCounters().modelCacheWrites, 1u);
    ANeuralNetworksCompilation_free(network.compile(cacheDir_, token_.data()));
    for (int i = 0; i < 3; ++i) {
        compilation = network.compile(cacheDir_, token_.data());
        ASSERT_NE(compilation, nullptr);
        EXPECT_EQ(network.run(compilation), first);
        EXPECT_EQ(network.run(compilation), first);
        ANeuralNetworksCompilation_free(compilation);
    }
    EXPECT_EQ(cacheCounters().modelCacheLoads, 4u);
    EXPECT_EQ(cacheCounters().compiles, 1u);
}

TEST_F(NnapiCacheTest, ADamagedFileIsRefusedRecompiledAndRewritten) {
    setProperty("vendor.npu.cache.model", "1");
    setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");
    ConvNetwork network({8, 16, {1}});
    const auto expected = compileAndRun(network);
    const std::string file = modelCacheFile(token_);
    auto bytes = readFile(file);
    ASSERT_GT(bytes.size(), 200u);
    bytes[bytes.size() / 2] ^= 0x01;
    writeFile(file, bytes);

    testing::internal::CaptureStderr();
    const auto output = compileAndRun(network);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("checksum"), std::string::npos) << log;
    EXPECT_EQ(cacheCounters().modelCacheRejects, 1u);
    EXPECT_EQ(cacheCounters().compiles, 2u);
    EXPECT_EQ(cacheCounters().modelCacheWrites, 2u);
    EXPECT_EQ(output, expected);
    // Rewritten whole: the next compilation loads it.
    compileAndRun(network);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 1u);
    EXPECT_EQ(cacheCounters().compiles, 2u);

    // Truncated (a torn write) or grown: refused the same way.
    for (size_t size : {fs::file_size(file) - 1, fs::file_size(file) + 1, size_t{3}}) {
        fs::resize_file(file, size);
        testing::internal::CaptureStderr();
        EXPECT_EQ(compileAndRun(network), expected);
        testing::internal::GetCapturedStderr();
    }
    EXPECT_EQ(cacheCounters().modelCacheRejects, 4u);
}

TEST_F(NnapiCacheTest, AFileOfACompilationThatNeverRanIsCompiledAgain) {
    setProperty("vendor.npu.cache.model", "1");
    ConvNetwork network({8, 16, {1}});
    compileAndRun(network, /*run=*/false);
    EXPECT_EQ(fs::file_size(modelCacheFile(token_)), 0u);
    testing::internal::CaptureStderr();
    compileAndRun(network);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(countOccurrences(log, "WARNING") + countOccurrences(log, "W:SyNAP:"), 0u) << "an empty file is not damage: " << log;
    EXPECT_EQ(cacheCounters().modelCacheWrites, 1u);
    compileAndRun(network);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 1u);
}

TEST_F(NnapiCacheTest, AnotherTokenOrPreferenceIsAnotherFile) {
    setProperty("vendor.npu.cache.model", "1");
    ConvNetwork network({8, 16, {1}});
    compileAndRun(network);
    token_ = tokenOf(0x5B);
    compileAndRun(network);
    EXPECT_EQ(filesInCacheDir(), 2u);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 0u);
    // A file copied under another token's name fails the token check.
    fs::copy_file(modelCacheFile(tokenOf(0x5A)), modelCacheFile(tokenOf(0x5C)));
    token_ = tokenOf(0x5C);
    testing::internal::CaptureStderr();
    compileAndRun(network);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("another cache token"), std::string::npos) << log;
    EXPECT_EQ(cacheCounters().modelCacheRejects, 1u);
}

// conv (NPU) -> FLOOR (only the CPU has it) -> conv (NPU): a plan of three steps. Each NPU step
// gets its own token (with its operation's index) and file; the CPU step none.
TEST_F(NnapiCacheTest, EachNpuStepOfAPartitionedModelHasItsOwnFile) {
    setProperty("vendor.npu.cache.model", "1");
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), 0);
    const uint32_t actDims[4] = {1, 4, 4, 2}, filterDims[4] = {2, 1, 1, 2}, biasDims[1] = {2};
    const ANeuralNetworksOperandType act{ANEURALNETWORKS_TENSOR_FLOAT32, 4, actDims, 0, 0};
    const ANeuralNetworksOperandType filter{ANEURALNETWORKS_TENSOR_FLOAT32, 4, filterDims, 0, 0};
    const ANeuralNetworksOperandType bias{ANEURALNETWORKS_TENSOR_FLOAT32, 1, biasDims, 0, 0};
    const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0, 0};
    for (const auto* type : {&act, &filter, &bias, &scalar, &scalar, &scalar, &act, &act, &act}) {
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model, type), 0);
    }
    const float weights[4] = {1.5f, -0.5f, 0.25f, 2.0f}, biases[2] = {0.1f, -0.2f};
    const int32_t same = ANEURALNETWORKS_PADDING_SAME, one = 1, none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 1, weights, sizeof weights), 0);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 2, biases, sizeof biases), 0);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 3, &same, sizeof same), 0);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 4, &one, sizeof one), 0);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 5, &none, sizeof none), 0);
    const uint32_t conv1[7] = {0, 1, 2, 3, 4, 4, 5}, conv2[7] = {7, 1, 2, 3, 4, 4, 5}, floorIn = 6, conv1Out = 6,
                   floorOut = 7, output = 8, input = 0;
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, conv1, 1, &conv1Out), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_FLOOR, 1, &floorIn, 1, &floorOut), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, conv2, 1, &output), 0);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, &input, 1, &output), 0);
    ASSERT_EQ(ANeuralNetworksModel_finish(model), 0);

    auto compileAndRunAll = [&] {
        ANeuralNetworksCompilation* compilation = nullptr;
        EXPECT_EQ(ANeuralNetworksCompilation_create(model, &compilation), 0);
        EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation, cacheDir_.c_str(), token_.data()), 0);
        EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
        std::vector<float> in(32), out(32);
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) / 7.0f - 2.0f;
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, in.data(), 128), 0);
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), 128), 0);
        EXPECT_EQ(ANeuralNetworksExecution_compute(execution), 0);
        ANeuralNetworksExecution_free(execution);
        ANeuralNetworksCompilation_free(compilation);
        return out;
    };
    const auto first = compileAndRunAll();
    for (uint32_t operation : {0u, 2u}) {
        const auto derived = runtime::deriveCacheToken(token_, {operation}, "synap-npu", synapVersion(),
                                                       hal::ExecutionPreference::FAST_SINGLE_ANSWER);
        EXPECT_TRUE(fs::exists(cacheDir_ + "/" + runtime::cacheFileBaseName(*derived) + "10")) << operation;
    }
    EXPECT_EQ(filesInCacheDir(), 2u);
    EXPECT_EQ(cacheCounters().modelCacheWrites, 2u);
    EXPECT_EQ(compileAndRunAll(), first);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 2u);
    ANeuralNetworksModel_free(model);
}

}  // namespace
}  // namespace nnemu::cachetest
