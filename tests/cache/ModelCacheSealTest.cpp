// The seals synap-npu keeps of NNAPI model cache files (ModelCacheSeals.h): a file the driver
// wrote, or checksummed once settled, is prepared from without its payload's checksum while it
// keeps its stamp and header; a file damaged in place is checksummed and refused as without a
// seal; and a seal file that is damaged, foreign, linked or unwritable only costs the checksum.
// Without the checksum, the file's pages are still mapped at once when it is loaded.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "../props/FilePermissionsApply.h"
#include "NnapiCacheTest.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/ProgramImage.h"
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

// The kB of `file`'s mapping in this process that are mapped to pages, and its size in kB
// (/proc/self/smaps: Rss and Size of the mapping that names the file); {0, 0} when not mapped.
std::pair<uint64_t, uint64_t> mappedKb(const std::string& file) {
    std::ifstream smaps("/proc/self/smaps");
    const std::string path = fs::canonical(file).string();
    bool inside = false;
    uint64_t size = 0;
    for (std::string line; std::getline(smaps, line);) {
        const bool header = line.find('-') < line.find(' ') && line.find(':') > line.find(' ');
        if (header) inside = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
        if (!inside) continue;
        std::istringstream fields(line);
        std::string name;
        uint64_t kb = 0;
        fields >> name >> kb;
        if (name == "Size:") size = kb;
        if (name == "Rss:") return {kb, size};
    }
    return {0, 0};
}

bool kernelPopulatesReads() {
    void* probe = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe == MAP_FAILED) return false;
    const bool populates = madvise(probe, 4096, MADV_POPULATE_READ) == 0;
    munmap(probe, 4096);
    return populates;
}

// A program mapped from its file has every page mapped before anything reads it (one
// MADV_POPULATE_READ, not 16 pages per fault as the core reads them), and the mapping holds the
// file's bytes.
TEST(ProgramImageTest, MapsEveryPageOfTheFileAtOnce) {
    const fs::path file = fs::temp_directory_path() / ("nnemu_program_image_" + std::to_string(getpid()));
    std::vector<uint8_t> bytes(1 << 20);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + (i >> 12));
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    Result<cache::ProgramImage> image = cache::ProgramImage::map(fd, bytes.size(), 128, bytes.size() - 128);
    close(fd);
    ASSERT_TRUE(image.isOk()) << image.message();
    const auto [rss, size] = mappedKb(file.string());
    fs::remove(file);
    EXPECT_EQ(size, 1024u);
    if (kernelPopulatesReads()) {
        EXPECT_EQ(rss, size) << "kB mapped before any read";
    }
    ASSERT_EQ(image->size(), bytes.size() - 128);
    EXPECT_TRUE(std::equal(image->bytes().begin(), image->bytes().end(), bytes.begin() + 128));
}

// A sealed file is not checksummed, and still every page of it is mapped when the compilation
// loads it (MADV_POPULATE_READ), not faulted in by the first inference; the network runs the
// same, also in a child forked with the compilation.
TEST_F(ModelCacheSealTest, ASealedFileIsMappedWholeAtTheLoad) {
    const bool populates = kernelPopulatesReads();
    ConvNetwork network({8, 64, {1, 2}});
    const auto expected = compileAndRun(network);
    ANeuralNetworksCompilation* compilation = network.compile(cacheDir_, token_.data());
    ASSERT_NE(compilation, nullptr);
    EXPECT_EQ(cacheCounters().modelCacheLoads, 1u);
    EXPECT_EQ(cacheCounters().modelCacheChecksums, 0u) << "read by no checksum";
    const auto [rss, size] = mappedKb(modelCacheFile(token_));
    EXPECT_GT(size, 8u);
    if (populates) {
        EXPECT_EQ(rss, size) << "kB mapped of the file's mapping";
    } else {
        std::cout << "this kernel has no MADV_POPULATE_READ (before 5.14): the pages fault in as read\n";
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(network.run(compilation) == expected ? 0 : 1);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the forked child's run, status " << status;
    EXPECT_EQ(network.run(compilation), expected);
    ANeuralNetworksCompilation_free(compilation);
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
