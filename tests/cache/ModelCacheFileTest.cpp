// The NNAPI model cache file: what is written reads back only for the same token and compiler,
// and any flipped bit, appended byte or truncation is refused.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "CacheTestSupport.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/ModelCacheFile.h"

namespace nnemu::cache {
namespace {

class ModelCacheFileTest : public cachetest::CacheTest {
protected:
    void SetUp() override {
        CacheTest::SetUp();
        path_ = root() + "/model_cache";
        fd_ = open(path_.c_str(), O_RDWR | O_CREAT, 0600);
        ASSERT_GE(fd_, 0);
        token_.fill(7);
        std::mt19937 random(1);
        payload_.resize(50000);
        for (auto& byte : payload_) byte = static_cast<uint8_t>(random());
    }
    void TearDown() override {
        close(fd_);
        CacheTest::TearDown();
    }
    // Writes `payload` to `fd` for `token` and compiler 3; `error`: why the write failed (empty when
    // it did not).
    static bool writeFile(int fd, const CacheToken& token, const std::vector<uint8_t>& payload, std::string& error) {
        const Status written = writeModelCacheFile(fd, token, 3, payload);
        error = written.message();
        return written.isOk();
    }
    // Reads the file and maps it; both must agree.
    // `error`: why the read failed (empty when it did not).
    bool readBack(std::string& error, const CacheToken* token = nullptr, uint32_t version = 3) {
        const Result<std::vector<uint8_t>> payload = readModelCacheFile(fd_, token ? *token : token_, version);
        error = payload.message();
        if (payload.isOk()) {
            EXPECT_EQ(*payload, payload_);
        }
        const Result<ProgramImage> image = mapModelCacheFile(fd_, token ? *token : token_, version);
        EXPECT_EQ(image.isOk(), payload.isOk()) << image.message();
        if (image.isOk()) {
            EXPECT_TRUE(std::equal(payload_.begin(), payload_.end(), image->data(), image->data() + image->size()));
            EXPECT_EQ(image->size(), payload_.size());
        }
        return payload.isOk();
    }

    std::string path_;
    int fd_ = -1;
    CacheToken token_{};
    std::vector<uint8_t> payload_;
};

TEST_F(ModelCacheFileTest, ReadsBackWhatWasWritten) {
    std::string error;
    // Whatever was in the file before, and wherever the fd's position is.
    ASSERT_EQ(write(fd_, "stale content that is longer than nothing", 41), 41);
    ASSERT_TRUE(writeFile(fd_, token_, payload_, error)) << error;
    EXPECT_EQ(lseek(fd_, 0, SEEK_END), static_cast<off_t>(kModelCacheHeaderSize + payload_.size()));
    EXPECT_TRUE(readBack(error)) << error;
}

TEST_F(ModelCacheFileTest, RefusesAnotherTokenOrCompiler) {
    std::string error;
    ASSERT_TRUE(writeFile(fd_, token_, payload_, error)) << error;
    CacheToken other = token_;
    other[31] ^= 1;
    EXPECT_FALSE(readBack(error, &other));
    EXPECT_NE(error.find("token"), std::string::npos) << error;
    EXPECT_FALSE(readBack(error, nullptr, 4));
    EXPECT_NE(error.find("compiler version 3"), std::string::npos) << error;
}

TEST_F(ModelCacheFileTest, RefusesEveryFlippedByte) {
    std::string error;
    ASSERT_TRUE(writeFile(fd_, token_, payload_, error)) << error;
    const auto good = cachetest::readFile(path_);
    // Every header byte and a spread of payload bytes.
    for (size_t at = 0; at < good.size(); at += at < kModelCacheHeaderSize ? 1 : 997) {
        auto bad = good;
        bad[at] ^= 0x10;
        ASSERT_EQ(pwrite(fd_, bad.data(), bad.size(), 0), static_cast<ssize_t>(bad.size()));
        EXPECT_FALSE(readBack(error)) << "flipped byte " << at;
    }
}

TEST_F(ModelCacheFileTest, RefusesAppendedAndMissingBytes) {
    std::string error;
    ASSERT_TRUE(writeFile(fd_, token_, payload_, error)) << error;
    const auto size = lseek(fd_, 0, SEEK_END);
    ASSERT_EQ(pwrite(fd_, "x", 1, size), 1);
    EXPECT_FALSE(readBack(error));
    ASSERT_EQ(ftruncate(fd_, size - 100), 0);  // a write torn by a crash
    EXPECT_FALSE(readBack(error));
    ASSERT_EQ(ftruncate(fd_, 10), 0);
    EXPECT_FALSE(readBack(error));
    ASSERT_EQ(ftruncate(fd_, 0), 0);
    EXPECT_FALSE(readBack(error));
}

// A hit maps the file: the program is 64-byte aligned (its packed data is aligned from its start)
// and no writer of ours truncates the file under the mapping: one that finds it mapped leaves it
// as it is, and writes once the mapping is gone.
TEST_F(ModelCacheFileTest, AMappedFileIsLeftAloneByWriters) {
    std::string error;
    ASSERT_TRUE(writeFile(fd_, token_, payload_, error)) << error;
    std::vector<uint8_t> other(payload_.rbegin(), payload_.rend());
    other.resize(1000);
    const int writer = open(path_.c_str(), O_RDWR);  // another compilation's descriptor
    ASSERT_GE(writer, 0);
    {
        const Result<ProgramImage> mapped = mapModelCacheFile(fd_, token_, 3);
        ASSERT_TRUE(mapped.isOk()) << mapped.message();
        const ProgramImage& image = *mapped;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(image.data()) % 64, 0u);
        EXPECT_FALSE(writeFile(writer, token_, other, error));
        EXPECT_NE(error.find("maps the file"), std::string::npos) << error;
        EXPECT_EQ(lseek(writer, 0, SEEK_END), static_cast<off_t>(kModelCacheHeaderSize + payload_.size()));
        EXPECT_TRUE(std::equal(payload_.begin(), payload_.end(), image.data(), image.data() + image.size()));
        const Result<ProgramImage> second = mapModelCacheFile(writer, token_, 3);  // readers share the file
        EXPECT_TRUE(second.isOk()) << second.message();
    }
    EXPECT_TRUE(writeFile(writer, token_, other, error)) << error;
    payload_ = other;
    EXPECT_TRUE(readBack(error)) << error;
    close(writer);
}

// Files of format version 1 (payload at 88) are refused, so the runtime compiles and rewrites them.
TEST_F(ModelCacheFileTest, RefusesTheFirstFormatVersion) {
    std::string error;
    ASSERT_TRUE(writeFile(fd_, token_, payload_, error)) << error;
    const uint8_t one[4] = {1, 0, 0, 0};
    ASSERT_EQ(pwrite(fd_, one, sizeof one, 8), 4);
    EXPECT_FALSE(readBack(error));
    EXPECT_NE(error.find("format version 2"), std::string::npos) << error;
}

// A seal (the file's stamp and header checksum when it was known right) lets a map skip the
// payload's checksum only while the file keeps both; a write in place changes the times (the
// change time even when the modification time is put back), and the checksum catches the damage.
TEST_F(ModelCacheFileTest, ASealSkipsTheChecksumOnlyWhileTheFileKeepsIt) {
    ModelCacheSeal seal;
    ASSERT_TRUE(writeModelCacheFile(fd_, token_, 3, payload_, &seal).isOk());
    struct stat info {};
    ASSERT_EQ(fstat(fd_, &info), 0);
    EXPECT_EQ(seal.stamp, FileStamp::of(info));
    std::array<uint8_t, 32> header{};
    ASSERT_EQ(pread(fd_, header.data(), header.size(), 56), 32);
    EXPECT_EQ(seal.checksum, header);
    auto map = [&](const ModelCacheSeal& known, ModelCacheSeal* verified = nullptr) {
        const Result<ProgramImage> image = mapModelCacheFile(fd_, token_, 3, known, verified);
        if (image.isOk()) {
            EXPECT_TRUE(std::equal(payload_.begin(), payload_.end(), image->data()));
        }
        return image.isOk() ? std::string() : image.message();
    };
    CacheCounters& counters = cacheCounters();
    ModelCacheSeal verified;
    EXPECT_EQ(map(seal, &verified), "");
    EXPECT_EQ(counters.modelCacheChecksums, 0u);
    EXPECT_EQ(verified, seal) << "a matching seal may be kept";
    EXPECT_EQ(map({}, &verified), "");
    EXPECT_EQ(counters.modelCacheChecksums, 1u);
    EXPECT_TRUE(verified.empty()) << "a file written just now is not sealed by a reader";
    ModelCacheSeal other = seal;
    other.checksum[5] ^= 1;
    EXPECT_EQ(map(other), "");
    other = seal;
    other.stamp.mtimeNs += 1;
    EXPECT_EQ(map(other), "");
    EXPECT_EQ(counters.modelCacheChecksums, 3u);

    // Damage in place, the same size, once the clock has moved past the sealed times.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    uint8_t byte = 0;
    ASSERT_EQ(pread(fd_, &byte, 1, kModelCacheHeaderSize + 1000), 1);
    byte ^= 0x10;
    ASSERT_EQ(pwrite(fd_, &byte, 1, kModelCacheHeaderSize + 1000), 1);
    EXPECT_NE(map(seal).find("checksum"), std::string::npos);
    const timespec times[2] = {info.st_atim, info.st_mtim};  // the modification time put back
    ASSERT_EQ(futimens(fd_, times), 0);
    ASSERT_EQ(fstat(fd_, &info), 0);
    EXPECT_EQ(FileStamp::of(info).mtimeNs, seal.stamp.mtimeNs);
    EXPECT_NE(map(seal).find("checksum"), std::string::npos);
    EXPECT_EQ(counters.modelCacheChecksums, 5u);
}

}  // namespace
}  // namespace nnemu::cache
