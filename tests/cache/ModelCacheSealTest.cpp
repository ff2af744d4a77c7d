// The seals synap-npu keeps of NNAPI model cache files (ModelCacheSeals.h): a file the driver
// wrote, or checksummed once settled, is prepared from without its payload's checksum while it
// keeps its stamp and header; a file damaged in place is checksummed and refused as without a
// seal; and a seal file that is damaged, foreign, linked or unwritable only costs the checksum.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "../props/FilePermissionsApply.h"
#include "NnapiCacheTest.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/synap/cache/ModelCacheSeals.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;
using cache::cacheCounters;

class ModelCacheSealTest : public NnapiCacheTest {
protected:
    void SetUp() override {
        NnapiCacheTest::SetUp();
        setProperty("vendor.npu.cache.model", "1");
        setProperty("vendor.SYNAP_CACHE_CAPACITY", "0");  // only the NNAPI cache can help
    }
    fs::path sealDirectory() const { return fs::path(defaultCacheFile()).parent_path(); }
    // The seal file of the model cache file of token_.
    std::string sealFile() const {
        struct stat info {};
        EXPECT_EQ(stat(modelCacheFile(token_).c_str(), &info), 0);
        return (sealDirectory() / cache::modelCacheSealName(fs::path(defaultCacheFile()).filename(), info.st_dev,
                                                             info.st_ino)).string();
    }
    // Flips one payload byte of the cache file in place (same inode, same size), once the clock
    // has moved past the times the file was sealed with.
    void damageInPlace() const {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const int fd = open(modelCacheFile(token_).c_str(), O_RDWR | O_CLOEXEC);
        ASSERT_GE(fd, 0);
        uint8_t byte = 0;
        ASSERT_EQ(pread(fd, &byte, 1, 300), 1);
        byte ^= 0x01;
        ASSERT_EQ(pwrite(fd, &byte, 1, 300), 1);
        close(fd);
    }
};

TEST_F(ModelCacheSealTest, AFileTheDriverWroteIsNotChecksummedAgain) {
    ConvNetwork network({8, 16, {1, 2}});
    const auto expected = compileAndRun(network);
    ASSERT_EQ(cacheCounters().modelCacheWrites, 1u);
    EXPECT_TRUE(fs::is_regular_file(sealFile())) << "the SyNAP cache's directory is made for the seal";
    EXPECT_EQ(fs::file_size(sealFile()), 104u);
    for (int hit = 1; hit <= 2; ++hit) {
        EXPECT_EQ(compileAndRun(network), expected);
        EXPECT_EQ(cacheCounters().modelCacheLoads, static_cast<uint64_t>(hit));
    }
    EXPECT_EQ(cacheCounters().modelCacheChecksums, 0u);
    EXPECT_EQ(cacheCounters().compiles, 1u);
}

TEST_F(ModelCacheSealTest, BytesDamagedInPlaceAreChecksummedAndRefused) {
    ConvNetwork network({8, 16, {1}});
    const auto expected = compileAndRun(network);
    damageInPlace();
    testing::internal::CaptureStderr();
    EXPECT_EQ(compileAndRun(network), expected);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("checksum"), std::string::npos) << log;
    EXPECT_EQ(cacheCounters().modelCacheChecksums, 1u);
    EXPECT_EQ(cacheCounters().modelCacheRejects, 1u);
    EXPECT_EQ(cacheCounters().compiles, 2u);
    EXPECT_EQ(cacheCounters().modelCacheWrites, 2u) << "rewritten, and sealed again";
    EXPECT_EQ(compileAndRun(network), expected);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 1u);
    EXPECT_EQ(cacheCounters().modelCacheChecksums, 1u);
}

// Whatever is in the seal's place, the file is checksummed in full and loads; nothing crashes.
TEST_F(ModelCacheSealTest, ADamagedForeignOrLinkedSealMeansAFullCheck) {
    ConvNetwork network({8, 16, {1}});
    const auto expected = compileAndRun(network);
    const std::string seal = sealFile();
    const std::vector<uint8_t> good = readFile(seal);
    ASSERT_EQ(good.size(), 104u);
    const std::string elsewhere = root() + "/elsewhere.nnapi";
    writeFile(elsewhere, good);
    std::vector<uint8_t> flipped = good, foreign(good.size(), 0x5A), shorter(good.begin(), good.end() - 1);
    flipped[40] ^= 0x01;  // inside the recorded stamp: its record checksum fails
    const std::vector<std::function<void()>> plants = {
            [&] { writeFile(seal, flipped); },
            [&] { writeFile(seal, foreign); },
            [&] { writeFile(seal, shorter); },
            [&] { fs::create_symlink(elsewhere, seal); },  // a planted link to a good seal
            [&] { fs::create_directory(seal); },
            [&] { ASSERT_EQ(mkfifo(seal.c_str(), 0600), 0); },
    };
    uint64_t checksums = 0;
    for (size_t i = 0; i < plants.size(); ++i) {
        fs::remove_all(seal);
        plants[i]();
        EXPECT_EQ(compileAndRun(network), expected) << i;
        EXPECT_EQ(cacheCounters().modelCacheChecksums, ++checksums) << i;
        EXPECT_EQ(cacheCounters().modelCacheLoads, checksums) << i;
    }
    EXPECT_EQ(cacheCounters().modelCacheRejects, 0u);
    EXPECT_EQ(readFile(elsewhere), good) << "nothing is written through a link";
}

// A directory of the SyNAP cache that cannot be written (mode 0555, root's override dropped)
// or a link in its place: no seal is recorded, every hit checksums in full and loads.
TEST_F(ModelCacheSealTest, AnUnwritableOrLinkedDirectoryMeansAFullCheck) {
    ConvNetwork network({8, 16, {1}});
    const auto expected = compileAndRun(network);
    const fs::path directory = sealDirectory();
    fs::remove(sealFile());
    fs::permissions(directory, fs::perms::owner_read | fs::perms::owner_exec);
    {
        props::testing::FilePermissionsApply permissions;
        if (!permissions.active()) {
            fs::permissions(directory, fs::perms::owner_all);
            GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE: root would write anyway";
        }
        EXPECT_EQ(compileAndRun(network), expected);
    }
    fs::permissions(directory, fs::perms::owner_all);
    EXPECT_TRUE(fs::is_empty(directory));
    EXPECT_EQ(cacheCounters().modelCacheChecksums, 1u);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 1u);

    // The directory moved away and a link planted in its place (with a good seal behind it).
    ASSERT_EQ(cacheCounters().modelCacheWrites, 1u);
    const fs::path moved = root() + "/moved";
    fs::rename(directory, moved);
    fs::create_directory_symlink(moved, directory);
    token_ = tokenOf(0x77);
    EXPECT_EQ(compileAndRun(network), expected);  // written; no seal through the link
    EXPECT_EQ(compileAndRun(network), expected);
    EXPECT_EQ(cacheCounters().modelCacheChecksums, 2u);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 2u);
    EXPECT_TRUE(fs::is_empty(moved));
}

// A file checksummed in full once its times are settled is sealed by the reader.
TEST_F(ModelCacheSealTest, ASettledFileCheckedInFullIsSealed) {
    ConvNetwork network({8, 16, {1}});
    const auto expected = compileAndRun(network);
    fs::remove(sealFile());
    EXPECT_EQ(compileAndRun(network), expected);
    EXPECT_FALSE(fs::exists(sealFile())) << "a file written just now is not sealed by a reader";
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    EXPECT_EQ(compileAndRun(network), expected);
    EXPECT_TRUE(fs::exists(sealFile()));
    EXPECT_EQ(compileAndRun(network), expected);
    EXPECT_EQ(cacheCounters().modelCacheChecksums, 2u);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 3u);
}

TEST_F(ModelCacheSealTest, SealFilesAreBoundedInNumber) {
    const std::string database = defaultCacheFile();
    fs::create_directories(sealDirectory());
    struct stat file {};
    ASSERT_EQ(stat(database.substr(0, database.rfind('/')).c_str(), &file), 0);
    cache::ModelCacheSeal seal;
    seal.stamp = {static_cast<uint64_t>(file.st_dev), 0, 1000, 1, 1};
    const size_t count = cache::kMaxModelCacheSeals + 10;
    for (size_t i = 1; i <= count; ++i) {
        seal.stamp.inode = i;
        cache::recordModelCacheSeal(database, root(), seal);
    }
    EXPECT_EQ(static_cast<size_t>(std::distance(fs::directory_iterator(sealDirectory()), fs::directory_iterator())),
              cache::kMaxModelCacheSeals);
    file.st_ino = count;
    EXPECT_EQ(cache::recordedModelCacheSeal(database, root(), file), seal) << "the last one written stays";
}

}  // namespace
}  // namespace nnemu::cachetest
