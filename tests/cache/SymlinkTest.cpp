// Symbolic links planted for the caches are never followed: the SyNAP cache file, a directory
// on its way below the device root, its WAL files, and the NNAPI cache files in the app's cache
// directory. Each is refused with a clear message, and whatever the link points at outside is
// left exactly as it was (a file, another cache, or nothing at all: nothing is created there).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "CacheTestSupport.h"
#include "CompilationCache.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/ModelCacheFile.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;
using cache::SynapCache;

class SymlinkTest : public CacheTest {
protected:
    void SetUp() override {
        CacheTest::SetUp();
        outside_ = root() + "-outside";
        fs::create_directories(outside_);
        fs::create_directories(fs::path(defaultCacheFile()).parent_path());
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(outside_, ec);
        CacheTest::TearDown();
    }
    // Opening the default cache through the link fails, mentioning the link, and changes nothing
    // outside the root.
    void expectRefused(const std::string& file) {
        const auto before = snapshotDirectory(outside_);
        std::string error;
        EXPECT_EQ(openSynapCache(file, true, error, root()), nullptr);
        EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
        EXPECT_EQ(snapshotDirectory(outside_), before);
    }
    // One compilation and inference on synap-npu: it works, and the log says why the cache is
    // off.
    void expectInferenceWithoutTheCache() {
        std::string log;
        ASSERT_NO_FATAL_FAILURE(runSmallConvCapturingLog(&log));
        EXPECT_NE(log.find("symbolic link"), std::string::npos) << log;
    }

    std::string outside_;
};

TEST_F(SymlinkTest, ACacheFileLinkedToAFileOutsideIsRefused) {
    writeFile(outside_ + "/victim", std::vector<uint8_t>(1000, 'v'));
    fs::create_symlink(outside_ + "/victim", defaultCacheFile());
    expectRefused(defaultCacheFile());
    const auto before = snapshotDirectory(outside_);
    expectInferenceWithoutTheCache();
    EXPECT_EQ(snapshotDirectory(outside_), before);
    EXPECT_TRUE(fs::is_symlink(defaultCacheFile()));
}

TEST_F(SymlinkTest, ADanglingLinkCreatesNothingOutside) {
    fs::create_symlink(outside_ + "/created", defaultCacheFile());
    expectRefused(defaultCacheFile());
    expectInferenceWithoutTheCache();
    EXPECT_TRUE(snapshotDirectory(outside_).empty());
}

TEST_F(SymlinkTest, EvenALinkToARealCacheIsRefused) {
    std::string error;
    ASSERT_NE(openSynapCache(outside_ + "/real.cache", true, error), nullptr) << error;
    fs::create_symlink(outside_ + "/real.cache", defaultCacheFile());
    expectRefused(defaultCacheFile());
}

TEST_F(SymlinkTest, ALinkedDirectoryBelowTheRootIsRefused) {
    fs::remove_all(root() + "/data");
    fs::create_directories(root() + "/data");
    fs::create_symlink(outside_, root() + "/data/vendor");
    expectRefused(defaultCacheFile());
    expectInferenceWithoutTheCache();
    EXPECT_TRUE(snapshotDirectory(outside_).empty());
}

TEST_F(SymlinkTest, TheRootItselfMayBeALink) {
    // The root and the path above it are the user's choice.
    const std::string linkedRoot = outside_ + "/root-link";
    fs::create_symlink(root(), linkedRoot);
    std::string error;
    auto cache = openSynapCache(linkedRoot + "/data/vendor/synap/nnhal.cache", true, error, linkedRoot);
    ASSERT_NE(cache, nullptr) << error;
    EXPECT_EQ(cache->store("k", std::vector<uint8_t>(100, 1), 1, 10), nnemu::StatusCode::OK);
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(defaultCacheFile())));
}

TEST_F(SymlinkTest, ALinkedWalFileIsNotWrittenThrough) {
    {
        std::string error;
        auto cache = openSynapCache(defaultCacheFile(), true, error, root());
        ASSERT_NE(cache, nullptr) << error;
    }
    ASSERT_FALSE(fs::exists(defaultCacheFile() + "-wal"));
    writeFile(outside_ + "/victim", std::vector<uint8_t>(5000, 'v'));
    fs::create_symlink(outside_ + "/victim", defaultCacheFile() + "-wal");
    fs::create_symlink(outside_ + "/shm", defaultCacheFile() + "-shm");
    const auto before = snapshotDirectory(outside_);
    std::string error;
    auto cache = openSynapCache(defaultCacheFile(), false, error, root());
    if (cache != nullptr) {
        EXPECT_NE(cache->store("k", std::vector<uint8_t>(20000, 2), 1, 10), nnemu::StatusCode::OK);
    }
    EXPECT_EQ(snapshotDirectory(outside_), before);
}

TEST_F(SymlinkTest, ALinkOutsideAnyRootIsRefusedToo) {
    // $SYNAP_CACHE_PATH names a host path: its directory resolves normally, its name is not
    // followed.
    writeFile(outside_ + "/victim", std::vector<uint8_t>(100, 'v'));
    fs::create_symlink(outside_ + "/victim", outside_ + "/linked.cache");
    std::string error;
    EXPECT_EQ(openSynapCache(outside_ + "/linked.cache", true, error), nullptr);
    EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
    EXPECT_EQ(readFile(outside_ + "/victim"), std::vector<uint8_t>(100, 'v'));
}

TEST_F(SymlinkTest, TheToolRefusesALinkedCacheEvenToClear) {
    writeFile(outside_ + "/victim", std::vector<uint8_t>(100, 'v'));
    fs::create_symlink(outside_ + "/victim", defaultCacheFile());
    for (const char* action : {"--stats", "--clear"}) {
        const auto result = runProcess({NNEMU_SYNAP_CACHE_TOOL, action});
        EXPECT_EQ(result.exitCode, 1) << action << ": " << result.out;
        EXPECT_NE(result.err.find("symbolic link"), std::string::npos) << result.err;
    }
    EXPECT_TRUE(fs::is_symlink(defaultCacheFile()));
    EXPECT_EQ(readFile(outside_ + "/victim"), std::vector<uint8_t>(100, 'v'));
}

class NnapiCacheSymlinkTest : public SymlinkTest {
protected:
    void SetUp() override {
        SymlinkTest::SetUp();
        cacheDir_ = root() + "/app-cache/";
        fs::create_directories(cacheDir_);
        token_.fill(0x33);
        setProperty("vendor.npu.cache.model", "1");
        setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");
    }
    std::string modelCacheFile() const {
        const char* version = nullptr;
        ANeuralNetworksDevice_getVersion(deviceNamed("synap-npu"), &version);
        const auto derived = runtime::deriveCacheToken(token_, {}, "synap-npu", version,
                                                       hal::ExecutionPreference::FAST_SINGLE_ANSWER);
        return cacheDir_ + runtime::cacheFileBaseName(*derived) + "10";
    }
    // Compiles with caching and runs twice; both work, neither through the cache.
    void compileAndRunTwice() {
        ConvNetwork network({8, 8, {1}});
        for (int i = 0; i < 2; ++i) {
            ANeuralNetworksCompilation* compilation = network.compile(cacheDir_, token_.data());
            ASSERT_NE(compilation, nullptr);
            EXPECT_FALSE(network.run(compilation).empty());
            ANeuralNetworksCompilation_free(compilation);
        }
        EXPECT_EQ(cache::cacheCounters().modelCacheLoads, 0u);
        EXPECT_EQ(cache::cacheCounters().compiles, 2u);
    }

    std::string cacheDir_;
    hal::CacheToken token_{};
};

TEST_F(NnapiCacheSymlinkTest, ALinkedModelCacheFileIsNotWrittenThrough) {
    writeFile(outside_ + "/victim", std::vector<uint8_t>(1000, 'v'));
    fs::create_symlink(outside_ + "/victim", modelCacheFile());
    testing::internal::CaptureStderr();
    compileAndRunTwice();
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("symbolic link"), std::string::npos) << log;
    EXPECT_EQ(readFile(outside_ + "/victim"), std::vector<uint8_t>(1000, 'v'));
}

TEST_F(NnapiCacheSymlinkTest, ADanglingLinkCreatesNothing) {
    fs::create_symlink(outside_ + "/created", modelCacheFile());
    testing::internal::CaptureStderr();
    compileAndRunTwice();
    testing::internal::GetCapturedStderr();
    EXPECT_TRUE(snapshotDirectory(outside_).empty());
}

TEST_F(NnapiCacheSymlinkTest, AFifoIsNeitherReadNorWritten) {
    ASSERT_EQ(mkfifo(modelCacheFile().c_str(), 0600), 0);
    compileAndRunTwice();
    const int fd = ::open(modelCacheFile().c_str(), O_RDWR | O_NONBLOCK);
    ASSERT_GE(fd, 0);
    const Result<std::vector<uint8_t>> payload = cache::readModelCacheFile(fd, token_, 1);
    EXPECT_FALSE(payload.isOk());
    EXPECT_EQ(payload.message(), "not a regular file");
    const std::vector<uint8_t> written{1, 2, 3};
    EXPECT_FALSE(cache::writeModelCacheFile(fd, token_, 1, written).isOk());
    ::close(fd);
}

}  // namespace
}  // namespace nnemu::cachetest
