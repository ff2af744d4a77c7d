// The SyNAP cache as synap-npu uses it, through the NNAPI C API in one process: the first
// inference compiles and stores, a later compilation of the same network finds it; capacity 0
// means no file at all; shared layers are stored once; and a cache that cannot be used only
// costs one warning, never an inference.
#include <sched.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../props/FilePermissionsApply.h"
#include "CacheTestSupport.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;
using cache::cacheCounters;

class DriverSynapCacheTest : public CacheTest {
protected:
    // Compiles `network` anew for synap-npu and runs it once.
    std::vector<float> compileAndRun(const ConvNetwork& network) {
        ANeuralNetworksCompilation* compilation = network.compile();
        EXPECT_NE(compilation, nullptr);
        if (compilation == nullptr) return {};
        auto output = network.run(compilation);
        ANeuralNetworksCompilation_free(compilation);
        EXPECT_FALSE(output.empty());
        return output;
    }
    std::vector<float> onCpu(const ConvNetwork& network) {
        ANeuralNetworksCompilation* compilation = network.compile("", nullptr, "nnapi-reference");
        auto output = network.run(compilation);
        ANeuralNetworksCompilation_free(compilation);
        return output;
    }
    void expectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
        ASSERT_EQ(actual.size(), expected.size());
        for (size_t i = 0; i < actual.size(); ++i) ASSERT_NEAR(actual[i], expected[i], 1e-4f + 1e-4f * std::fabs(expected[i]));
    }
    cache::CacheTotals totalsOf(const std::string& file) {
        std::string error;
        auto opened = openSynapCache(file, false, error);
        EXPECT_NE(opened, nullptr) << error;
        return opened ? opened->totals() : cache::CacheTotals{};
    }
};

// The same workloads on both boards: Android's shared file, a Yocto board's file per program.
class DriverSynapCacheBoardTest : public DriverSynapCacheTest, public ::testing::WithParamInterface<const char*> {
protected:
    void SetUp() override {
        DriverSynapCacheTest::SetUp();
        setenv("NNEMU_BOARD", GetParam(), 1);
    }
};

INSTANTIATE_TEST_SUITE_P(Boards, DriverSynapCacheBoardTest, ::testing::Values("android", "yocto"));

TEST_P(DriverSynapCacheBoardTest, TheFirstInferenceStoresAndALaterCompilationHits) {
    ConvNetwork network({8, 16, {1, 2}});
    ASSERT_TRUE(network.valid());
    const auto first = compileAndRun(network);
    EXPECT_EQ(cacheCounters().compiles, 1u);
    EXPECT_EQ(cacheCounters().synapStores, 1u);
    EXPECT_EQ(cacheCounters().synapHits, 0u);
    ASSERT_TRUE(fs::exists(defaultCacheFile()));

    const auto second = compileAndRun(network);
    EXPECT_EQ(cacheCounters().compiles, 1u) << "the hit must skip the compiler";
    EXPECT_EQ(cacheCounters().synapHits, 1u);
    EXPECT_EQ(first, second);
    expectNear(second, onCpu(network));
    EXPECT_EQ(totalsOf(defaultCacheFile()).hits, 1u);
}

// Weights in a file: a later compilation finds the program by the file's identity (an alias
// entry), without hashing them; the same bytes rewritten are another identity, found again by
// their content.
TEST_F(DriverSynapCacheTest, WeightsInAFileAreKnownByItsIdentity) {
    const std::string weights = root() + "/weights.bin";
    const ConvNetworkSpec spec{8, 16, {1, 2}};
    { ConvNetwork writer(spec, weights); }
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // a file changed just now counts by value
    ConvNetwork network(spec, weights);
    ASSERT_TRUE(network.valid());
    const auto first = compileAndRun(network);
    EXPECT_EQ(cacheCounters().compiles, 1u);
    auto totals = totalsOf(defaultCacheFile());
    EXPECT_EQ(totals.entries, 2u) << "the content key and the file identity's";
    EXPECT_EQ(totals.programs, 1u);
    EXPECT_EQ(compileAndRun(network), first);
    EXPECT_EQ(cacheCounters().compiles, 1u);
    EXPECT_EQ(cacheCounters().synapHits, 1u);
    expectNear(first, onCpu(network));

    const std::vector<char> bytes(fs::file_size(weights));
    {
        std::ifstream in(weights, std::ios::binary);
        in.read(const_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    fs::remove(weights);
    std::ofstream(weights, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    ConvNetwork rewritten(spec, weights);
    EXPECT_EQ(compileAndRun(rewritten), first);
    EXPECT_EQ(cacheCounters().compiles, 1u);
    EXPECT_EQ(cacheCounters().synapHits, 2u);
    totals = totalsOf(defaultCacheFile());
    EXPECT_EQ(totals.entries, 3u);
    EXPECT_EQ(totals.programs, 1u);
}

// A weight in a file that holds NaN: the claim does not read it (a warm start reads no weight in
// a file), so the NPU claims the layer; the JIT finds it before compiling, runs every inference
// on the reference kernels and stores nothing, so no later hit ever vouches for it.
TEST_F(DriverSynapCacheTest, NonFiniteWeightsInAFileRunOnTheReferenceKernelsAndAreNotStored) {
    const std::string weights = root() + "/weights.bin";
    std::vector<float> filter(16 * 9 * 16, 0.125f);
    filter[100] = std::nanf("");
    filter[700] = INFINITY;
    writeFile(weights, std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(filter.data()),
                                            reinterpret_cast<const uint8_t*>(filter.data() + filter.size())));
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // settled: given by its identity
    ConvNetwork network({8, 16, {1}}, weights);
    ASSERT_TRUE(network.valid());
    const ANeuralNetworksDevice* npu = deviceNamed("synap-npu");
    bool claimed[1] = {false};
    ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(network.model(), &npu, 1, claimed), 0);
    EXPECT_TRUE(claimed[0]);
    const std::vector<float> expected = onCpu(network);
    ASSERT_FALSE(expected.empty());
    ASSERT_TRUE(std::any_of(expected.begin(), expected.end(), [](float v) { return std::isnan(v); }));
    for (int run = 0; run < 2; ++run) {
        const std::vector<float> actual = compileAndRun(network);
        ASSERT_EQ(actual.size(), expected.size());
        for (size_t i = 0; i < actual.size(); ++i) {
            EXPECT_TRUE(std::isnan(expected[i]) ? std::isnan(actual[i]) : actual[i] == expected[i]) << i;
        }
    }
    EXPECT_EQ(cacheCounters().compiles, 2u) << "nothing stored, nothing found";
    EXPECT_EQ(cacheCounters().synapStores, 0u);
    EXPECT_EQ(cacheCounters().synapHits, 0u);
}

TEST_P(DriverSynapCacheBoardTest, OtherShapesOrWeightsAreOtherEntries) {
    ConvNetwork a({8, 16, {1}}), b({8, 16, {2}}), c({12, 16, {1}});
    compileAndRun(a);
    compileAndRun(b);
    compileAndRun(c);
    EXPECT_EQ(cacheCounters().compiles, 3u);
    EXPECT_EQ(cacheCounters().synapHits, 0u);
    EXPECT_EQ(totalsOf(defaultCacheFile()).entries, 3u);
}

// A Yocto board reads no property: only the environment configures its cache.
TEST_F(DriverSynapCacheTest, AYoctoBoardTakesItsCacheSettingsFromTheEnvironmentOnly) {
    setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");
    setProperty("vendor.SYNAP_CACHE_PATH", "/data/local/tmp/my.cache");
    setenv("NNEMU_BOARD", "yocto", 1);
    ConvNetwork network({8, 16, {1}});
    compileAndRun(network);
    EXPECT_EQ(cacheCounters().synapStores, 1u) << "the capacity property is not read";
    EXPECT_TRUE(fs::exists(root() + "/tmp/synap-cache.nnemu_cache_tests"));
    EXPECT_FALSE(fs::exists(root() + "/data/local/tmp/my.cache"));
    setenv("SYNAP_CACHE_PATH", (root() + "/from-env.cache").c_str(), 1);
    setenv("SYNAP_CACHE_CAPACITY", "0", 1);
    compileAndRun(network);
    EXPECT_FALSE(fs::exists(root() + "/from-env.cache"));
    setenv("SYNAP_CACHE_CAPACITY", "3", 1);
    compileAndRun(network);
    EXPECT_TRUE(fs::exists(root() + "/from-env.cache"));
}

// A Yocto board has no NNAPI compilation cache: the app's directory stays empty.
TEST_F(DriverSynapCacheTest, AYoctoBoardHasNoNnapiCompilationCache) {
    setProperty("vendor.npu.cache.model", "1");
    setenv("NNEMU_BOARD", "yocto", 1);
    const std::string dir = root() + "/app-cache/";
    fs::create_directories(dir);
    const uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {7};
    ConvNetwork network({8, 16, {1}});
    for (int i = 0; i < 2; ++i) {
        ANeuralNetworksCompilation* compilation = network.compile(dir, token);
        ASSERT_NE(compilation, nullptr);
        EXPECT_FALSE(network.run(compilation).empty());
        ANeuralNetworksCompilation_free(compilation);
    }
    EXPECT_TRUE(fs::is_empty(dir));
    EXPECT_EQ(cacheCounters().modelCacheLoads, 0u);
    unsetenv("NNEMU_BOARD");  // the same on an Android board writes the file
    ANeuralNetworksCompilation* compilation = network.compile(dir, token);
    ASSERT_NE(compilation, nullptr);
    EXPECT_FALSE(network.run(compilation).empty());
    ANeuralNetworksCompilation_free(compilation);
    EXPECT_FALSE(fs::is_empty(dir));
}

TEST_F(DriverSynapCacheTest, CapacityZeroMeansNoCacheAndNoFile) {
    setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");
    ConvNetwork network({8, 16, {1}});
    compileAndRun(network);
    compileAndRun(network);
    EXPECT_EQ(cacheCounters().compiles, 2u);
    EXPECT_EQ(cacheCounters().synapLookups, 0u);
    EXPECT_FALSE(fs::exists(defaultCacheFile()));
    EXPECT_FALSE(fs::exists(root() + "/data/vendor/synap"));
    // The environment overrides the property, in both directions.
    setenv("SYNAP_CACHE_CAPACITY", "5", 1);
    compileAndRun(network);
    EXPECT_TRUE(fs::exists(defaultCacheFile()));
}

TEST_F(DriverSynapCacheTest, PathFromThePropertyOrTheEnvironment) {
    setProperty("vendor.SYNAP_CACHE_PATH", "/data/local/tmp/my.cache");
    ConvNetwork network({8, 16, {1}});
    compileAndRun(network);
    EXPECT_TRUE(fs::exists(root() + "/data/local/tmp/my.cache"));
    setenv("SYNAP_CACHE_PATH", (root() + "/from-env.cache").c_str(), 1);
    compileAndRun(network);
    EXPECT_TRUE(fs::exists(root() + "/from-env.cache"));
    EXPECT_FALSE(fs::exists(defaultCacheFile()));
}

TEST_F(DriverSynapCacheTest, NetworksSharingLayersTakeLessSpaceThanBothAlone) {
    // Four 3x3x32x32 layers (37 KB of weights each); three are common to both networks.
    ConvNetwork a({8, 32, {1, 2, 3, 4}}), b({8, 32, {1, 2, 3, 5}});
    setenv("SYNAP_CACHE_PATH", (root() + "/a.cache").c_str(), 1);
    compileAndRun(a);
    setenv("SYNAP_CACHE_PATH", (root() + "/b.cache").c_str(), 1);
    compileAndRun(b);
    setenv("SYNAP_CACHE_PATH", (root() + "/both.cache").c_str(), 1);
    compileAndRun(a);
    compileAndRun(b);
    const auto alone = totalsOf(root() + "/a.cache").storedBytes + totalsOf(root() + "/b.cache").storedBytes;
    const auto both = totalsOf(root() + "/both.cache");
    EXPECT_EQ(both.entries, 2u);
    EXPECT_EQ(both.entryBytes, alone);
    const uint64_t layerBytes = 32 * 9 * 32 * sizeof(float);
    EXPECT_LT(both.storedBytes, alone - 2 * layerBytes) << "stored " << both.storedBytes << " of " << alone;
    // Both still come back whole.
    cacheCounters().reset();
    compileAndRun(a);
    compileAndRun(b);
    EXPECT_EQ(cacheCounters().synapHits, 2u);
    EXPECT_EQ(cacheCounters().compiles, 0u);
}

TEST_F(DriverSynapCacheTest, ACorruptEntryIsDroppedAndRecompiled) {
    ConvNetwork network({8, 16, {1, 2}});
    const auto expected = compileAndRun(network);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(defaultCacheFile().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE chunks SET data = zeroblob(size) WHERE rowid = (SELECT max(rowid) FROM chunks)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    // The program's own file (ProgramFileTest) would serve the hit: the database is on test here.
    for (const auto& entry : fs::directory_iterator(fs::path(defaultCacheFile()).parent_path())) {
        if (entry.path().extension() == ".npu") fs::remove(entry.path());
    }
    testing::internal::CaptureStderr();
    const auto again = compileAndRun(network);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(countOccurrences(log, "dropped SyNAP cache entry"), 1u) << log;
    EXPECT_EQ(cacheCounters().synapDrops, 1u);
    EXPECT_EQ(cacheCounters().compiles, 2u);
    EXPECT_EQ(again, expected);
    // Stored again, good this time.
    compileAndRun(network);
    EXPECT_EQ(cacheCounters().synapHits, 1u);
    EXPECT_EQ(cacheCounters().compiles, 2u);
}

// Two networks of the same shapes whose stored programs trade places: each program is intact,
// but running it for the other network would give wrong answers. Both are recompiled.
TEST_F(DriverSynapCacheTest, ProgramsSwappedBetweenEntriesAreRecompiledNotRun) {
    ConvNetwork first({8, 16, {1, 2}}), second({8, 16, {3, 4}});
    const auto firstOutput = compileAndRun(first), secondOutput = compileAndRun(second);
    ASSERT_NE(firstOutput, secondOutput);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(defaultCacheFile().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TEMP TABLE swap AS SELECT key, program, seal FROM entries;"
                           "UPDATE entries SET program = (SELECT program FROM swap WHERE swap.key != entries.key),"
                           "  seal = (SELECT seal FROM swap WHERE swap.key != entries.key);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    // Without their entry indexes (which still name the right programs) the lookups read the
    // swapped entries from the database.
    for (const auto& file : fs::directory_iterator(fs::path(defaultCacheFile()).parent_path())) {
        if (file.path().extension() == ".entry") fs::remove(file.path());
    }
    testing::internal::CaptureStderr();
    const auto firstAgain = compileAndRun(first), secondAgain = compileAndRun(second);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(countOccurrences(log, "does not match its key"), 2u) << log;
    EXPECT_EQ(cacheCounters().compiles, 4u);
    EXPECT_EQ(cacheCounters().synapHits, 0u);
    expectNear(firstAgain, onCpu(first));
    expectNear(secondAgain, onCpu(second));
    EXPECT_EQ(firstAgain, firstOutput);
    EXPECT_EQ(secondAgain, secondOutput);
    // Stored again under the right keys.
    compileAndRun(first);
    EXPECT_EQ(cacheCounters().synapHits, 1u);
}

// Each way the cache can be unusable: one warning per process, correct results, no retries.
void expectDisabledWithOneWarning(DriverSynapCacheTest* test, const std::string& file, const std::string& reason) {
    ConvNetwork network({8, 16, {1}});
    testing::internal::CaptureStderr();
    ANeuralNetworksCompilation* first = network.compile();
    ASSERT_NE(first, nullptr);
    const auto output = network.run(first);
    ANeuralNetworksCompilation* second = network.compile();
    const auto again = network.run(second);
    ANeuralNetworksCompilation_free(first);
    ANeuralNetworksCompilation_free(second);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(countOccurrences(log, "disabled for this process"), 1u) << log;
    EXPECT_NE(log.find(file), std::string::npos) << log;
    EXPECT_NE(log.find(reason), std::string::npos) << log;
    EXPECT_EQ(countOccurrences(log, "ERROR") + countOccurrences(log, "E:SyNAP:"), 0u) << log;
    EXPECT_FALSE(output.empty());
    EXPECT_EQ(output, again);
    EXPECT_EQ(cacheCounters().compiles, 2u);
    (void)test;
}

TEST_F(DriverSynapCacheTest, AnUnwritablePathDisablesTheCache) {
    writeFile(root() + "/plain-file", {1, 2, 3});
    const std::string file = root() + "/plain-file/nnhal.cache";
    setenv("SYNAP_CACHE_PATH", file.c_str(), 1);
    expectDisabledWithOneWarning(this, file, "not a directory");
}

TEST_F(DriverSynapCacheTest, AMissingHostDirectoryDisablesTheCache) {
    const std::string file = "/nonexistent-nnemu-dir/" + fs::path(root()).filename().string() + "/nnhal.cache";
    setenv("SYNAP_CACHE_PATH", file.c_str(), 1);
    expectDisabledWithOneWarning(this, file, "does not exist");
    EXPECT_FALSE(fs::exists(fs::path(file).parent_path()));
}

TEST_F(DriverSynapCacheTest, ACorruptDatabaseFileDisablesTheCache) {
    fs::create_directories(fs::path(defaultCacheFile()).parent_path());
    writeFile(defaultCacheFile(), std::vector<uint8_t>(8192, 0xA5));
    expectDisabledWithOneWarning(this, defaultCacheFile(), "not a database");
    EXPECT_EQ(readFile(defaultCacheFile()), std::vector<uint8_t>(8192, 0xA5)) << "a damaged file is left alone";
}

TEST_F(DriverSynapCacheTest, AFullDiskCostsOneWarningNamingTheCauseAndNoClearAdvice) {
    // A worker process whose files cannot grow past 64 KiB: a new cache (16 KiB pages) cannot be
    // built, so the cache is off, said once with the cause.
    const std::vector<std::string> worker = {NNEMU_CACHE_WORKER, "run", "--layers", "1,2,3,4", "--channels", "32",
                                             "--compilations", "2"};
    auto result = runProcess(worker, 64 * 1024);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    auto report = parseReport(result.out);
    EXPECT_EQ(report.at("cpu_match"), "1");
    EXPECT_EQ(report.at("synap_stores"), "0");
    EXPECT_EQ(report.at("compiles"), "2");
    EXPECT_EQ(countOccurrences(result.err, "disabled for this process: cannot create it: File too large"), 1u)
            << result.err;
    // The cache warns in the driver's SyNAP format (W:SyNAP:), anything else in nnemu's.
    EXPECT_EQ(countOccurrences(result.err, "WARNING") + countOccurrences(result.err, "W:SyNAP:"), 1u) << result.err;
    EXPECT_EQ(countOccurrences(result.err, "--clear"), 0u) << result.err;

    // An existing cache that cannot grow: the stores stop with one warning naming the cause,
    // nothing is damaged, nothing advises clearing it.
    {
        std::string error;
        ASSERT_NE(openSynapCache(defaultCacheFile(), true, error), nullptr) << error;
    }
    result = runProcess(worker, 64 * 1024);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    report = parseReport(result.out);
    EXPECT_EQ(report.at("cpu_match"), "1");
    EXPECT_EQ(report.at("synap_stores"), "0");
    EXPECT_EQ(countOccurrences(result.err, "cannot be written: File too large"), 1u) << result.err;
    // The cache warns in the driver's SyNAP format (W:SyNAP:), anything else in nnemu's.
    EXPECT_EQ(countOccurrences(result.err, "WARNING") + countOccurrences(result.err, "W:SyNAP:"), 1u) << result.err;
    EXPECT_EQ(countOccurrences(result.err, "--clear"), 0u) << result.err;
    EXPECT_EQ(countOccurrences(result.err, "disabled for this process"), 0u) << result.err;
    // Whatever reached the file is a consistent database.
    std::string error;
    if (auto opened = openSynapCache(defaultCacheFile(), false, error)) {
        EXPECT_EQ(opened->verify().integrity, "ok");
        EXPECT_EQ(opened->totals().entries, 0u);
    }
}


// A cache whose directory cannot be written (mode 0555, with root's override dropped) is opened
// read-only: a program another process stored is still found, not compiled again; a new program
// is not stored, with one warning naming the cause and no advice to clear a cache that is not
// damaged.
TEST_F(DriverSynapCacheTest, AnUnwritableCacheIsStillReadAndStoresAreSkippedWithOneWarning) {
    const auto filled = runProcess({NNEMU_CACHE_WORKER, "run", "--layers", "1", "--channels", "16"});
    ASSERT_EQ(filled.exitCode, 0) << filled.err;
    ASSERT_EQ(parseReport(filled.out).at("synap_stores"), "1");
    ConvNetwork stored({8, 16, {1}}), fresh({8, 16, {2}}), another({12, 16, {1}});
    const fs::path directory = fs::path(defaultCacheFile()).parent_path();
    fs::permissions(directory, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                       fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    std::vector<float> found;
    std::string log;
    {
        props::testing::FilePermissionsApply permissions;
        if (!permissions.active()) GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE: root would write anyway";
        testing::internal::CaptureStderr();
        found = compileAndRun(stored);
        compileAndRun(fresh);
        compileAndRun(another);
        log = testing::internal::GetCapturedStderr();
    }
    fs::permissions(directory, fs::perms::owner_all, fs::perm_options::add);
    expectNear(found, onCpu(stored));
    EXPECT_EQ(cacheCounters().synapHits, 1u) << log;
    EXPECT_EQ(cacheCounters().compiles, 2u) << "the stored program is not compiled again";
    EXPECT_EQ(cacheCounters().synapStores, 0u);
    EXPECT_EQ(countOccurrences(log, "cannot be written: Permission denied"), 1u) << log;
    EXPECT_EQ(countOccurrences(log, "SyNAP cache"), 1u) << log;
    EXPECT_EQ(countOccurrences(log, "--clear"), 0u) << log;
    EXPECT_EQ(countOccurrences(log, "disabled for this process"), 0u) << log;
    EXPECT_EQ(totalsOf(defaultCacheFile()).entries, 1u);
}

// Only real damage advises synap_cache --clear: a cache whose pages are corrupt (its header intact).
TEST_F(DriverSynapCacheTest, OnlyADamagedCacheAdvisesClearingIt) {
    const std::string file = root() + "/damaged.cache";
    {
        std::string error;
        ASSERT_NE(openSynapCache(file, true, error), nullptr) << error;
    }
    auto bytes = readFile(file);
    ASSERT_GT(bytes.size(), 16384u);
    std::fill(bytes.begin() + 16384, bytes.end(), 0xA5);  // every page but the first (header, schema)
    writeFile(file, bytes);
    setenv("SYNAP_CACHE_PATH", file.c_str(), 1);
    ConvNetwork network({8, 16, {1}});
    testing::internal::CaptureStderr();
    compileAndRun(network);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(countOccurrences(log, "disabled for this process"), 1u) << log;
    EXPECT_EQ(countOccurrences(log, "synap_cache --clear"), 1u) << log;
}

// A warm start: the compilation of a network the cache holds looks it up and loads it in the
// background from prepare on, and the first inference takes that core (one lookup in all, no
// compile). What the first inference reads decides: properties changed in between drop it.
TEST_F(DriverSynapCacheTest, AWarmCompilationLooksUpAndLoadsBeforeItsFirstInference) {
    ConvNetwork network({8, 16, {1, 2}});
    ASSERT_TRUE(network.valid());
    const auto expected = compileAndRun(network);
    ASSERT_EQ(cacheCounters().compiles, 1u);
    ASSERT_EQ(cacheCounters().synapHits, 0u);

    ANeuralNetworksCompilation* compilation = network.compile();
    ASSERT_NE(compilation, nullptr);
    // No inference yet: the hit comes from the prefetch (bounded wait: a stuck one fails).
    for (int i = 0; i < 2000 && cacheCounters().synapHits == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(cacheCounters().synapHits, 1u) << "the lookup must not wait for the first inference";
    EXPECT_EQ(network.run(compilation), expected);
    EXPECT_EQ(network.run(compilation), expected);
    ANeuralNetworksCompilation_free(compilation);
    EXPECT_EQ(cacheCounters().synapHits, 1u) << "the first inference takes the prefetched core";
    EXPECT_EQ(cacheCounters().compiles, 1u);

    // Freed before it ever ran: nothing hangs, nothing leaks (sanitizer builds), nothing runs.
    ANeuralNetworksCompilation_free(network.compile());

    // The cache turned off between compiling and the first inference: the JIT compiles.
    compilation = network.compile();
    ASSERT_NE(compilation, nullptr);
    setenv("SYNAP_CACHE_CAPACITY", "0", 1);
    EXPECT_EQ(network.run(compilation), expected);
    ANeuralNetworksCompilation_free(compilation);
    unsetenv("SYNAP_CACHE_CAPACITY");
    EXPECT_EQ(cacheCounters().compiles, 2u) << "a prefetched core the first inference would not load is dropped";
}

// A process limited to one CPU: the prefetch thread cannot start beside the preparing thread,
// and starts as any thread would; it still looks up and loads before the first inference.
TEST_F(DriverSynapCacheTest, AWarmCompilationOnOneCpuStillLooksUpBeforeItsFirstInference) {
    ConvNetwork network({8, 16, {1, 2}});
    ASSERT_TRUE(network.valid());
    const auto expected = compileAndRun(network);
    struct OneCpu {  // this thread on its current CPU alone until the case ends
        cpu_set_t allowed;
        bool set = false;
        OneCpu() {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(sched_getcpu(), &one);
            set = sched_getaffinity(0, sizeof allowed, &allowed) == 0 && sched_setaffinity(0, sizeof one, &one) == 0;
        }
        ~OneCpu() {
            if (set) sched_setaffinity(0, sizeof allowed, &allowed);
        }
    } oneCpu;
    ASSERT_TRUE(oneCpu.set);
    ANeuralNetworksCompilation* compilation = network.compile();
    ASSERT_NE(compilation, nullptr);
    // The preparing thread sleeps here, which lets the prefetch run on its CPU.
    for (int i = 0; i < 2000 && cacheCounters().synapHits == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(cacheCounters().synapHits, 1u);
    EXPECT_EQ(network.run(compilation), expected);
    ANeuralNetworksCompilation_free(compilation);
    EXPECT_EQ(cacheCounters().synapHits, 1u) << "the first inference takes the prefetched core";
    EXPECT_EQ(cacheCounters().compiles, 1u);
}

// An application that compiles a cached network and exits at once: the exit waits for the
// prefetch still running, nothing hangs or crashes.
TEST_F(DriverSynapCacheTest, ExitingRightAfterAWarmCompilationIsClean) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    ConvNetwork network({8, 16, {1}});
    ASSERT_TRUE(network.valid());
    compileAndRun(network);
    EXPECT_EXIT(
            {
                alarm(30);  // a hang fails the case
                static ANeuralNetworksCompilation* kept = network.compile();  // never freed, still reachable
                std::exit(kept != nullptr ? 0 : 1);
            },
            ::testing::ExitedWithCode(0), "");
}

// A child forked between compiling and the first inference runs the network by itself (the
// parent's prefetch thread does not exist there), and so does the parent.
TEST_F(DriverSynapCacheTest, AChildForkedBeforeTheFirstInferenceRunsOnItsOwn) {
    ConvNetwork network({8, 16, {1}});
    ASSERT_TRUE(network.valid());
    const auto expected = compileAndRun(network);
    ANeuralNetworksCompilation* compilation = network.compile();
    ASSERT_NE(compilation, nullptr);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        alarm(30);  // a hang fails the case
        const bool same = network.run(compilation) == expected;
        ANeuralNetworksCompilation_free(compilation);
        _exit(same ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_EQ(network.run(compilation), expected);
    ANeuralNetworksCompilation_free(compilation);
}

}  // namespace
}  // namespace nnemu::cachetest
