// A SyNAP cache hit without SQLite (EntryIndex.h, HitLog.h): the store writes the entry's index,
// a later lookup maps the program file it names and logs the hit; an index that is missing,
// truncated, foreign, planted as a link, sealed for another key, written for another database or
// stale, or a program file that is missing or damaged, sends the lookup to the database (which
// repairs), never to a wrong program; a program file that keeps the stamp its index records is
// not checksummed again, and one that does not (rewritten, touched) is; logged hits reach the
// database exactly once and in order (hit counts, LRU order, synap_cache's output), also from
// processes hitting at once; a read-only cache gets no file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "../props/FilePermissionsApply.h"
#include "CacheTestSupport.h"
#include "EntryIndex.h"
#include "HitLog.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/Crc32c.h"
#include "nnemu/synap/cache/SharedSynapCache.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;
using cache::SynapCache;

constexpr uint32_t kVersion = 7;
constexpr size_t kIndexSize = 232, kIndexCrcOffset = 216;  // format version 2
using cache::cacheCounters;

std::vector<uint8_t> programOf(uint8_t seed, size_t size = 30011) {
    std::vector<uint8_t> bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(seed * 7 + i * 13 + (i >> 8));
    return bytes;
}

// The directory's files (names and bytes) but the database's own (SQLite may map its WAL
// index even read-only): what the cache itself wrote.
std::map<std::string, std::string> ownFiles(const fs::path& directory) {
    auto files = snapshotDirectory(directory.string());
    for (const char* name : {"nnhal.cache", "nnhal.cache-wal", "nnhal.cache-shm"}) files.erase(name);
    return files;
}

std::vector<std::string> namesOf(const std::map<std::string, std::string>& files) {
    std::vector<std::string> names;
    for (const auto& [name, bytes] : files) names.push_back(name + " (" + std::to_string(bytes.size()) + " bytes)");
    return names;
}

class EntryIndexTest : public CacheTest {
protected:
    void SetUp() override {
        CacheTest::SetUp();
        file_ = root() + "/data/vendor/synap/nnhal.cache";
        fs::create_directories(fs::path(file_).parent_path());
        cache_ = open();
        ASSERT_NE(cache_, nullptr);
        ASSERT_EQ(cache_->store("key", program_, kVersion, 10), StatusCode::OK);
        ASSERT_TRUE(fs::is_regular_file(indexOf("key"))) << "the store writes the entry's index";
    }
    std::unique_ptr<SynapCache> open() {
        std::string error;
        auto opened = openSynapCache(file_, true, error, root());
        EXPECT_NE(opened, nullptr) << error;
        return opened;
    }
    std::string indexOf(const std::string& key) const { return file_ + "." + key + ".entry"; }
    std::string hitLog() const { return file_ + ".hits"; }
    std::string programFile(const std::vector<uint8_t>& program) const {
        return file_ + "." + cache::programIdentity(program) + ".npu";
    }
    // A lookup through the index alone (no SQLite).
    Status indexed(const std::string& key = "key", std::vector<uint8_t>* bytes = nullptr, uint32_t version = kVersion,
                   cache::ProgramFileStamp* recheck = nullptr) {
        cache::ProgramImage image;
        bool foldDue = false;
        const Status status = SynapCache::findIndexed(file_, root(), key, version, &image, &foldDue, recheck);
        if (status.isOk()) {
            EXPECT_TRUE(image.mapped());
            if (bytes != nullptr) bytes->assign(image.data(), image.data() + image.size());
        }
        return status;
    }
    // The lookup through the database, which checks and repairs.
    void throughDatabase(const std::string& key = "key") {
        cache::ProgramImage image;
        ASSERT_TRUE(cache_->findImage(key, kVersion, &image).isOk());
        ASSERT_EQ(image.size(), program_.size());
        EXPECT_TRUE(std::equal(program_.begin(), program_.end(), image.data()));
    }
    // The index refused, the database serves and writes it again, the index serves.
    void expectRefusedThenRepaired(const char* what) {
        SCOPED_TRACE(what);
        EXPECT_FALSE(indexed().isOk());
        throughDatabase();
        ASSERT_TRUE(fs::is_regular_file(fs::symlink_status(indexOf("key"))));
        std::vector<uint8_t> bytes;
        ASSERT_TRUE(indexed("key", &bytes).isOk());
        EXPECT_EQ(bytes, program_);
    }
    uint64_t hitsOf(const std::string& key) {
        for (const auto& entry : cache_->entries()) {
            if (entry.key == key) return entry.hits;
        }
        return ~uint64_t{0};
    }
    std::vector<std::string> lruOrder() {
        std::vector<std::string> keys;
        for (const auto& entry : cache_->entries()) keys.push_back(entry.key);
        return keys;
    }

    std::string file_;
    std::unique_ptr<SynapCache> cache_;
    std::vector<uint8_t> program_ = programOf(3);
};

TEST_F(EntryIndexTest, AHitThroughTheIndexMapsTheProgramAndLogsTheHit) {
    EXPECT_EQ(fs::file_size(indexOf("key")), kIndexSize);
    EXPECT_EQ(fs::status(indexOf("key")).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(indexed("key", &bytes).isOk());
    EXPECT_EQ(bytes, program_);
    ASSERT_TRUE(fs::is_regular_file(hitLog()));
    EXPECT_EQ(fs::status(hitLog()).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(fs::file_size(hitLog()), 2 * 128u) << "a header and one hit";
    EXPECT_EQ(hitsOf("key"), 1u);
    EXPECT_EQ(cache_->totals().hits, 1u);
    // Another compiler's lookup does not use it.
    EXPECT_FALSE(indexed("key", nullptr, kVersion + 1).isOk());
}

TEST_F(EntryIndexTest, AMissingIndexIsWrittenByTheNextHitThroughTheDatabase) {
    fs::remove(indexOf("key"));
    expectRefusedThenRepaired("missing");
}

TEST_F(EntryIndexTest, ATruncatedIndexIsRefused) {
    fs::resize_file(indexOf("key"), 100);
    expectRefusedThenRepaired("truncated");
}

TEST_F(EntryIndexTest, AForeignIndexIsRefused) {
    writeFile(indexOf("key"), std::vector<uint8_t>(kIndexSize, 'x'));
    expectRefusedThenRepaired("foreign");
}

TEST_F(EntryIndexTest, APlantedSymbolicLinkIsNotFollowed) {
    const std::string target = root() + "/elsewhere";
    writeFile(target, readFile(indexOf("key")));
    fs::remove(indexOf("key"));
    fs::create_symlink(target, indexOf("key"));
    expectRefusedThenRepaired("link");
    EXPECT_EQ(readFile(target).size(), kIndexSize) << "the link's target is left alone";
}

TEST_F(EntryIndexTest, AnIndexSealedForAnotherKeyIsRefused) {
    // Moved to another key's name: it names its own key.
    ASSERT_EQ(cache_->store("other", programOf(4), kVersion, 10), StatusCode::OK);
    fs::copy_file(indexOf("other"), indexOf("key"), fs::copy_options::overwrite_existing);
    expectRefusedThenRepaired("another key's");
    // The right key with a wrong seal (its checksum made to agree).
    auto bytes = readFile(indexOf("key"));
    bytes[120] ^= 1;  // the seal's first digit
    const cache::LaneCrcs crc = cache::laneCrc32c({bytes.data(), kIndexCrcOffset});
    std::memcpy(bytes.data() + kIndexCrcOffset, crc.data(), 16);
    writeFile(indexOf("key"), bytes);
    expectRefusedThenRepaired("wrong seal");
    // A damaged byte fails its checksum.
    bytes = readFile(indexOf("key"));
    bytes[100] ^= 1;
    writeFile(indexOf("key"), bytes);
    expectRefusedThenRepaired("damaged");
}

TEST_F(EntryIndexTest, AnIndexOfAnotherDatabaseFileIsRefused) {
    cache_.reset();
    // The same bytes under a new inode (e.g. a cache deleted and created again).
    const std::string copy = file_ + ".copy";
    fs::copy_file(file_, copy);
    fs::rename(copy, file_);
    fs::remove(file_ + "-wal");
    fs::remove(file_ + "-shm");
    cache_ = open();
    ASSERT_NE(cache_, nullptr);
    expectRefusedThenRepaired("another database");
}

TEST_F(EntryIndexTest, AMissingOrDamagedProgramFileIsNeverUsed) {
    fs::remove(programFile(program_));
    expectRefusedThenRepaired("program file missing");
    waitPastChangeTime(programFile(program_));  // changed later than the index's stamp
    auto bytes = readFile(programFile(program_));
    bytes[1000] ^= 0x40;
    writeFile(programFile(program_), bytes);
    EXPECT_FALSE(indexed().isOk());
    EXPECT_TRUE(fs::exists(programFile(program_))) << "the index path removes nothing";
    expectRefusedThenRepaired("program file damaged");
}

TEST_F(EntryIndexTest, AProgramFileThatKeepsItsStampIsNotChecksummedAgain) {
    // The store wrote the file and recorded its stamp; an alias records the same.
    ASSERT_EQ(cache_->alias("alias", "key", 10), StatusCode::OK);
    cacheCounters().reset();
    for (const char* key : {"key", "alias", "key"}) {
        std::vector<uint8_t> bytes;
        cache::ProgramFileStamp recheck;
        ASSERT_TRUE(indexed(key, &bytes, kVersion, &recheck).isOk()) << key;
        EXPECT_EQ(bytes, program_);
        EXPECT_TRUE(recheck.empty()) << "nothing to record again";
    }
    EXPECT_EQ(cacheCounters().programFileChecksums, 0u);
    // The database's path checks in full, whatever the stamp.
    throughDatabase();
    EXPECT_EQ(cacheCounters().programFileChecksums, 1u);
}

TEST_F(EntryIndexTest, AProgramFileRewrittenInPlaceIsChecksummedAndRefused) {
    const std::string path = programFile(program_);
    struct stat before {};
    ASSERT_EQ(stat(path.c_str(), &before), 0);
    waitPastChangeTime(path);
    auto bytes = readFile(path);
    bytes[bytes.size() / 2] ^= 0x10;  // same size, same inode: only its times tell
    writeFile(path, bytes);
    struct stat after {};
    ASSERT_EQ(stat(path.c_str(), &after), 0);
    ASSERT_EQ(after.st_ino, before.st_ino);
    ASSERT_EQ(after.st_size, before.st_size);
    cacheCounters().reset();
    const Status refused = indexed();
    EXPECT_EQ(refused.code(), StatusCode::DAMAGED);
    EXPECT_NE(refused.message().find("fails its checksum"), std::string::npos) << refused;
    EXPECT_EQ(cacheCounters().programFileChecksums, 1u);
    expectRefusedThenRepaired("rewritten in place");  // removed by the database's path, written again
}

TEST_F(EntryIndexTest, AnIndexOfTheFirstFormatIsRefusedAndRewritten) {
    // Version 1: the same fields up to the database's inode (no program file stamp), 192 bytes.
    auto bytes = readFile(indexOf("key"));
    ASSERT_EQ(bytes.size(), kIndexSize);
    bytes.resize(192);
    const uint32_t first = 1;
    std::memcpy(bytes.data() + 8, &first, sizeof first);
    const cache::LaneCrcs crc = cache::laneCrc32c({bytes.data(), 176});
    std::memcpy(bytes.data() + 176, crc.data(), 16);
    writeFile(indexOf("key"), bytes);
    const Status refused = indexed();
    EXPECT_EQ(refused.code(), StatusCode::DAMAGED);
    EXPECT_NE(refused.message().find("has format version 1, not 2"), std::string::npos) << refused;
    expectRefusedThenRepaired("first format");
    EXPECT_EQ(fs::file_size(indexOf("key")), kIndexSize);
}

// touch(1) gives the file new times: checksummed again; once settled, the hit records the new
// stamp through the database and the next hits skip the checksum again.
TEST_F(EntryIndexTest, ATouchedProgramFileIsChecksummedUntilItsNewStampIsRecorded) {
    cache_.reset();
    const std::string path = programFile(program_);
    waitPastChangeTime(path);
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), nullptr, 0), 0);  // what touch(1) does
    cacheCounters().reset();
    cache::ProgramFileStamp recheck;
    ASSERT_TRUE(indexed("key", nullptr, kVersion, &recheck).isOk());
    EXPECT_EQ(cacheCounters().programFileChecksums, 1u);
    EXPECT_TRUE(recheck.empty()) << "changed just now: not recorded";
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    const cache::SynapCacheLocation location{file_, 10, root()};
    cache::ProgramImage image;
    ASSERT_TRUE(cache::findCompiledProgram(location, "key", kVersion, &image));
    EXPECT_EQ(cacheCounters().programFileChecksums, 2u);
    for (int i = 0; i < 2; ++i) {
        ASSERT_TRUE(cache::findCompiledProgram(location, "key", kVersion, &image));
        ASSERT_EQ(image.size(), program_.size());
        EXPECT_TRUE(std::equal(program_.begin(), program_.end(), image.data()));
    }
    EXPECT_EQ(cacheCounters().programFileChecksums, 2u) << "the settled stamp was recorded";
    EXPECT_EQ(cacheCounters().synapMapped, 3u);
    cache_ = open();
    EXPECT_EQ(hitsOf("key"), 4u);
}

TEST_F(EntryIndexTest, EvictionRemovesTheIndexAndAStaleOneFallsBack) {
    const auto saved = readFile(indexOf("key"));
    ASSERT_EQ(cache_->store("newer", programOf(5), kVersion, 1), StatusCode::OK);
    EXPECT_FALSE(fs::exists(indexOf("key"))) << "evicted with its entry";
    // A stale index (left by a process that could not remove it) whose program is gone.
    writeFile(indexOf("key"), saved);
    EXPECT_FALSE(indexed().isOk());
    cache::ProgramImage image;
    EXPECT_EQ(cache_->findImage("key", kVersion, &image).code(), StatusCode::NOT_FOUND);
    EXPECT_FALSE(fs::exists(indexOf("key"))) << "the database's miss removes it";
}

TEST_F(EntryIndexTest, AHitOfAnEntryRemovedMeanwhileIsDroppedAtTheFold) {
    // An alias names the same program; its entry goes behind the index's back (an older build).
    ASSERT_EQ(cache_->alias("alias", "key", 10), StatusCode::OK);
    ASSERT_TRUE(fs::exists(indexOf("alias")));
    const auto saved = readFile(indexOf("alias"));
    ASSERT_EQ(cache_->drop("alias"), StatusCode::OK);
    EXPECT_FALSE(fs::exists(indexOf("alias")));
    writeFile(indexOf("alias"), saved);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(indexed("alias", &bytes).isOk()) << "still the program compiled from its key";
    EXPECT_EQ(bytes, program_);
    ASSERT_TRUE(indexed("key").isOk());
    EXPECT_EQ(cache_->totals().hits, 1u) << "the alias's hit is dropped, the key's counts";
    EXPECT_FALSE(fs::exists(indexOf("alias"))) << "the fold removes the stale index";
    EXPECT_EQ(cache_->entries().size(), 1u);
}

TEST_F(EntryIndexTest, LoggedHitsCountOnceInTheirOrderAndDecideEviction) {
    ASSERT_EQ(cache_->store("b", programOf(6), kVersion, 10), StatusCode::OK);
    ASSERT_EQ(cache_->store("c", programOf(7), kVersion, 10), StatusCode::OK);
    // key is the oldest use; hits make it the most recent, then b.
    for (const char* key : {"c", "key", "c", "key", "b"}) ASSERT_TRUE(indexed(key).isOk()) << key;
    EXPECT_EQ(lruOrder(), (std::vector<std::string>{"b", "key", "c"}));  // folded by entries()
    EXPECT_EQ(lruOrder(), (std::vector<std::string>{"b", "key", "c"}));  // and not twice
    EXPECT_EQ(hitsOf("key"), 2u);
    EXPECT_EQ(hitsOf("c"), 2u);
    EXPECT_EQ(hitsOf("b"), 1u);
    // Unfolded hits decide the next eviction: a store folds them first.
    ASSERT_TRUE(indexed("c").isOk());
    ASSERT_EQ(cache_->store("d", programOf(8), kVersion, 3), StatusCode::OK);
    EXPECT_EQ(lruOrder(), (std::vector<std::string>{"d", "c", "b"}));
    EXPECT_EQ(cache_->totals().hits, 4u) << "key's two hits went with it";
    EXPECT_FALSE(fs::exists(indexOf("key")));
}

// A process dying between a fold's commit and the log's replacement leaves the folded log in
// place: the database's (generation, offset) keeps its records from counting twice.
TEST_F(EntryIndexTest, AFoldedLogLeftInPlaceIsNotCountedTwice) {
    const uint64_t many = cache::kHitLogRestartRecords + 6;  // the fold replaces this log
    for (uint64_t i = 0; i < many; ++i) ASSERT_TRUE(indexed().isOk());
    const auto folded = readFile(hitLog());
    EXPECT_EQ(hitsOf("key"), many);
    EXPECT_EQ(fs::file_size(hitLog()), 128u) << "replaced by an empty log after the fold";
    writeFile(hitLog(), folded);  // as if the replacement never happened
    ASSERT_TRUE(indexed().isOk());
    ASSERT_TRUE(indexed().isOk());
    EXPECT_EQ(hitsOf("key"), many + 2);
    EXPECT_EQ(cache_->totals().hits, many + 2);
}

TEST_F(EntryIndexTest, ADamagedOrTornLogLosesOnlyItsDamagedRecords) {
    ASSERT_TRUE(indexed().isOk());
    ASSERT_TRUE(indexed().isOk());
    auto bytes = readFile(hitLog());
    bytes[128 + 40] ^= 1;  // the first hit's key
    bytes.insert(bytes.end(), 50, 'x');  // a torn record after the second
    writeFile(hitLog(), bytes);
    EXPECT_EQ(hitsOf("key"), 1u);
    EXPECT_EQ(fs::file_size(hitLog()), 128u) << "a damaged log is replaced once folded";
    ASSERT_TRUE(indexed().isOk());
    EXPECT_EQ(hitsOf("key"), 2u);
}

TEST_F(EntryIndexTest, AReadOnlyViewCountsTheUnfoldedHitsWithoutWriting) {
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(indexed().isOk());
    cache_.reset();
    const fs::path directory = fs::path(file_).parent_path();
    const auto before = ownFiles(directory);
    fs::permissions(file_, fs::perms::owner_read);
    {
        props::testing::FilePermissionsApply permissions;
        if (!permissions.active()) GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE: root would write anyway";
        cache_ = open();
        ASSERT_NE(cache_, nullptr);
        ASSERT_FALSE(cache_->readOnly().empty());
        EXPECT_EQ(hitsOf("key"), 3u);
        EXPECT_EQ(cache_->totals().hits, 3u);
        // Hits of a read-only cache are served, not counted.
        ASSERT_TRUE(indexed().isOk());
        cache_.reset();
    }
    fs::permissions(file_, fs::perms::owner_read | fs::perms::owner_write);
    const auto after = ownFiles(directory);
    EXPECT_TRUE(after == before) << testing::PrintToString(namesOf(before)) << " became "
                                 << testing::PrintToString(namesOf(after));
}

TEST_F(EntryIndexTest, AReadOnlyDirectoryGetsNoIndexNorLog) {
    cache_.reset();
    fs::remove(indexOf("key"));
    fs::remove(hitLog());
    const fs::path directory = fs::path(file_).parent_path();
    const auto before = snapshotDirectory(directory.string());
    fs::permissions(directory, fs::perms::owner_read | fs::perms::owner_exec);
    {
        props::testing::FilePermissionsApply permissions;
        if (!permissions.active()) {
            fs::permissions(directory, fs::perms::owner_all);
            GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE: root would write anyway";
        }
        cache::ProgramImage image;
        const cache::SynapCacheLocation location{file_, 10, root()};
        EXPECT_TRUE(cache::findCompiledProgram(location, "key", kVersion, &image));
        EXPECT_TRUE(cache::findCompiledProgram(location, "key", kVersion, &image));
    }
    fs::permissions(directory, fs::perms::owner_all);
    const auto after = snapshotDirectory(directory.string());
    EXPECT_TRUE(after == before) << testing::PrintToString(namesOf(before)) << " became "
                                 << testing::PrintToString(namesOf(after));
}

TEST_F(EntryIndexTest, TheHittingProcessFoldsALongLog) {
    cache_.reset();
    const cache::SynapCacheLocation location{file_, 10, root()};
    const uint64_t lookups = 3 * cache::kHitLogFoldRecords + 5;
    uintmax_t longest = 0;
    for (uint64_t i = 0; i < lookups; ++i) {
        cache::ProgramImage image;
        ASSERT_TRUE(cache::findCompiledProgram(location, "key", kVersion, &image));
        longest = std::max(longest, fs::file_size(hitLog()));
    }
    EXPECT_LE(longest, (cache::kHitLogFoldRecords + 1) * 128);
    cache_ = open();
    EXPECT_EQ(hitsOf("key"), lookups);
}

// Processes hitting at once, each through its index and log, some folding: every hit counts once.
TEST_F(EntryIndexTest, ProcessesHittingAtOnceCountEveryHit) {
    ASSERT_EQ(cache_->store("second", programOf(9), kVersion, 10), StatusCode::OK);
    cache_.reset();
    constexpr int kProcesses = 4, kRounds = 150;  // 1200 hits: the log is folded several times
    std::vector<ProcessResult> results(kProcesses);
    std::vector<std::thread> workers;
    for (int i = 0; i < kProcesses; ++i) {
        workers.emplace_back([&, i] {
            results[i] = runProcess({NNEMU_CACHE_WORKER, "hit", file_, root(), std::to_string(kVersion),
                                     std::to_string(kRounds), "key", "second"});
        });
    }
    for (auto& worker : workers) worker.join();
    for (const auto& result : results) {
        EXPECT_EQ(result.exitCode, 0) << result.err;
        EXPECT_EQ(result.out, "hits=" + std::to_string(2 * kRounds) + "\n") << result.err;
    }
    // Then one process hits "key" last: it is the most recent use.
    const auto last = runProcess({NNEMU_CACHE_WORKER, "hit", file_, root(), std::to_string(kVersion), "1", "second", "key"});
    EXPECT_EQ(last.out, "hits=2\n") << last.err;
    cache_ = open();
    EXPECT_EQ(hitsOf("key"), kProcesses * kRounds + 1u);
    EXPECT_EQ(hitsOf("second"), kProcesses * kRounds + 1u);
    EXPECT_EQ(lruOrder(), (std::vector<std::string>{"key", "second"}));
    const auto report = cache_->verify();
    EXPECT_EQ(report.integrity, "ok");
    // synap_cache agrees, and --clear removes the indexes and the log.
    setenv("SYNAP_CACHE_PATH", file_.c_str(), 1);
    cache_.reset();
    const auto stats = runProcess({NNEMU_SYNAP_CACHE_TOOL, "--stats"});
    EXPECT_NE(stats.out.find("hits:           " + std::to_string(2 * (kProcesses * kRounds + 1))), std::string::npos)
            << stats.out;
    const auto cleared = runProcess({NNEMU_SYNAP_CACHE_TOOL, "--clear"});
    EXPECT_EQ(cleared.exitCode, 0) << cleared.err;
    unsetenv("SYNAP_CACHE_PATH");
    EXPECT_FALSE(fs::exists(indexOf("key")));
    EXPECT_FALSE(fs::exists(indexOf("second")));
}

}  // namespace
}  // namespace nnemu::cachetest
