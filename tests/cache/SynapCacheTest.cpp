// The SyNAP cache database through its own interface: store and find, LRU eviction by entry
// count, content stored once, and damage (corrupt, lost or foreign programs, a truncated or
// foreign file) detected and dropped, never trusted.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "CacheTestSupport.h"
#include "nnemu/base/Digest.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cache {
using base::md5;
using base::toHex;
namespace {

using cachetest::openSynapCache;

using Status = nnemu::StatusCode;

std::vector<uint8_t> randomBytes(size_t size, uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<uint8_t> bytes(size);
    for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
    return bytes;
}

std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
    std::vector<uint8_t> all;
    for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
    return all;
}

class SynapCacheTest : public cachetest::CacheTest {
protected:
    void SetUp() override {
        CacheTest::SetUp();
        file_ = root() + "/test.cache";
        reopen();
    }
    void reopen() {
        cache_.reset();
        std::string error;
        cache_ = openSynapCache(file_, true, error);
        ASSERT_NE(cache_, nullptr) << error;
    }
    // Runs SQL on the file behind the cache's back, as damage would.
    void tamper(const std::string& sql) {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
        char* message = nullptr;
        EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << message;
        sqlite3_free(message);
        sqlite3_close(db);
    }
    // The first row of a query on the file, as text ("" when none).
    std::string query(const std::string& sql) {
        sqlite3* db = nullptr;
        EXPECT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
        sqlite3_stmt* statement = nullptr;
        std::string value;
        EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
        if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0) != nullptr) {
            value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
        }
        sqlite3_finalize(statement);
        sqlite3_close(db);
        return value;
    }
    // `key`'s program fails its checksum: refused, and the entry is gone.
    void expectDroppedForItsChecksum(const std::string& key) {
        std::vector<uint8_t> found;
        const nnemu::Status damaged = cache_->find(key, 1, &found);
        EXPECT_EQ(damaged, Status::DAMAGED);
        EXPECT_NE(damaged.message().find("checksum"), std::string::npos) << damaged;
        EXPECT_TRUE(found.empty());
        EXPECT_EQ(cache_->find(key, 1, &found), Status::NOT_FOUND);
    }
    std::vector<std::string> keys() {
        std::vector<std::string> list;
        for (const auto& entry : cache_->entries()) list.push_back(entry.key);
        return list;
    }

    std::string file_;
    std::unique_ptr<SynapCache> cache_;
};

TEST_F(SynapCacheTest, StoresAndFindsAProgram) {
    const auto program = randomBytes(100000, 1);
    std::vector<uint8_t> found;
    EXPECT_EQ(cache_->find("k1", 1, &found), Status::NOT_FOUND);
    ASSERT_EQ(cache_->store("k1", program, 1, 10), Status::OK);
    ASSERT_EQ(cache_->find("k1", 1, &found), Status::OK);
    EXPECT_EQ(found, program);
    const auto entries = cache_->entries();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].hits, 1u);
    EXPECT_EQ(entries[0].size, program.size());
    EXPECT_GE(entries[0].lastUseUs, entries[0].createdUs);
}

TEST_F(SynapCacheTest, AnAliasNamesTheProgramOfItsKeyAndIsCheckedLikeAnyEntry) {
    const auto program = randomBytes(100000, 4);
    std::vector<uint8_t> found;
    EXPECT_EQ(cache_->alias("cheap", "k1", 10), Status::NOT_FOUND);  // nothing to name yet
    ASSERT_EQ(cache_->store("k1", program, 1, 10), Status::OK);
    ASSERT_EQ(cache_->alias("cheap", "k1", 10), Status::OK);
    ASSERT_EQ(cache_->find("cheap", 1, &found), Status::OK);
    EXPECT_EQ(found, program);
    EXPECT_EQ(cache_->totals().programs, 1u);  // one program, two entries
    EXPECT_EQ(cache_->totals().entries, 2u);
    EXPECT_EQ(cache_->verify().mismatchedEntries, 0u);
    // Re-aliased to another key's program: the alias follows it.
    const auto other = randomBytes(50000, 5);
    ASSERT_EQ(cache_->store("k2", other, 1, 10), Status::OK);
    ASSERT_EQ(cache_->alias("cheap", "k2", 10), Status::OK);
    ASSERT_EQ(cache_->find("cheap", 1, &found), Status::OK);
    EXPECT_EQ(found, other);
    // An alias counts as an entry for the capacity.
    ASSERT_EQ(cache_->alias("cheaper", "k1", 3), Status::OK);
    EXPECT_EQ(cache_->totals().entries, 3u);
}

// The checkpoint a storing process makes at exit leaves the next log started with one frame
// (page 1 as it was): the next process's hit count then appends to it, and does not restart an
// emptied log, which makes SQLite sync the log and its directory inside a first inference.
TEST_F(SynapCacheTest, TheCheckpointLeavesTheNextLogStarted) {
    const auto program = randomBytes(100000, 6);
    ASSERT_EQ(cache_->store("k", program, 1, 10), Status::OK);
    cache_->checkpoint();
    constexpr uintmax_t kWalHeader = 32, kFrameHeader = 24, kPage = 16384;
    EXPECT_EQ(std::filesystem::file_size(file_ + "-wal"), kWalHeader + kFrameHeader + kPage);
    reopen();
    std::vector<uint8_t> found;
    ASSERT_EQ(cache_->find("k", 1, &found), Status::OK);
    EXPECT_EQ(found, program);
    EXPECT_EQ(cache_->verify().integrity, "ok");
    EXPECT_EQ(cache_->entries()[0].hits, 1u);
}

TEST_F(SynapCacheTest, SurvivesReopening) {
    const auto program = randomBytes(5000, 2);
    ASSERT_EQ(cache_->store("k", program, 1, 10), Status::OK);
    reopen();
    std::vector<uint8_t> found;
    ASSERT_EQ(cache_->find("k", 1, &found), Status::OK);
    EXPECT_EQ(found, program);
}

TEST_F(SynapCacheTest, EvictsTheLeastRecentlyUsedBeyondCapacity) {
    std::vector<uint8_t> found;
    for (const char* key : {"A", "B", "C"}) ASSERT_EQ(cache_->store(key, randomBytes(3000, key[0]), 1, 3), Status::OK);
    ASSERT_EQ(cache_->find("A", 1, &found), Status::OK);  // A is now the most recent
    ASSERT_EQ(cache_->store("D", randomBytes(3000, 'D'), 1, 3), Status::OK);
    EXPECT_EQ(keys(), (std::vector<std::string>{"D", "A", "C"}));  // B went
    ASSERT_EQ(cache_->store("E", randomBytes(3000, 'E'), 1, 3), Status::OK);
    EXPECT_EQ(keys(), (std::vector<std::string>{"E", "D", "A"}));  // then C
    EXPECT_EQ(cache_->find("B", 1, &found), Status::NOT_FOUND);
    // A smaller capacity evicts down to it at the next store.
    ASSERT_EQ(cache_->store("F", randomBytes(3000, 'F'), 1, 2), Status::OK);
    EXPECT_EQ(keys(), (std::vector<std::string>{"F", "E"}));
    // Evicted programs take their chunks with them.
    const auto totals = cache_->totals();
    EXPECT_EQ(totals.programs, 2u);
    EXPECT_EQ(totals.storedBytes, 6000u);
}

TEST_F(SynapCacheTest, IdenticalProgramsAreStoredOnce) {
    const auto program = randomBytes(200000, 3);
    ASSERT_EQ(cache_->store("first", program, 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("second", program, 1, 10), Status::OK);
    const auto totals = cache_->totals();
    EXPECT_EQ(totals.entries, 2u);
    EXPECT_EQ(totals.programs, 1u);
    EXPECT_EQ(totals.entryBytes, 2 * program.size());
    EXPECT_EQ(totals.storedBytes, program.size());
    // Dropping one key keeps the program for the other.
    ASSERT_EQ(cache_->drop("first"), Status::OK);
    std::vector<uint8_t> found;
    ASSERT_EQ(cache_->find("second", 1, &found), Status::OK);
    EXPECT_EQ(found, program);
}

TEST_F(SynapCacheTest, SharedContentOfDifferentProgramsIsStoredOnce) {
    const auto layer1 = randomBytes(150000, 11), layer2 = randomBytes(150000, 12), layer3 = randomBytes(150000, 13);
    const auto small = concat({randomBytes(777, 20), layer1, layer2});
    const auto large = concat({randomBytes(1234, 21), layer1, layer2, layer3});
    ASSERT_EQ(cache_->store("small", small, 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("large", large, 1, 10), Status::OK);
    const auto both = cache_->totals();
    EXPECT_EQ(both.programs, 2u);
    // The 300 KB the two share is kept once (give or take the chunks at its edges).
    EXPECT_LT(both.storedBytes, small.size() + large.size() - 250000);
    std::vector<uint8_t> found;
    ASSERT_EQ(cache_->find("small", 1, &found), Status::OK);
    EXPECT_EQ(found, small);
    ASSERT_EQ(cache_->find("large", 1, &found), Status::OK);
    EXPECT_EQ(found, large);
    // Evicting one leaves the other whole.
    ASSERT_EQ(cache_->drop("large"), Status::OK);
    ASSERT_EQ(cache_->find("small", 1, &found), Status::OK);
    EXPECT_EQ(found, small);
    EXPECT_LE(cache_->totals().storedBytes, small.size());
}

TEST_F(SynapCacheTest, ACorruptChunkDropsTheEntryAndAStoreRepairsIt) {
    const auto program = randomBytes(60000, 4);
    ASSERT_EQ(cache_->store("k", program, 1, 10), Status::OK);
    cache_.reset();
    tamper("UPDATE chunks SET data = zeroblob(size) WHERE rowid = (SELECT min(rowid) FROM chunks)");
    reopen();
    expectDroppedForItsChecksum("k");
    // The bad chunk went too, so storing the program again stores good bytes.
    ASSERT_EQ(cache_->store("k", program, 1, 10), Status::OK);
    std::vector<uint8_t> found;
    ASSERT_EQ(cache_->find("k", 1, &found), Status::OK);
    EXPECT_EQ(found, program);
}

// Two programs sharing layers, and the name of a chunk both use, zeroed behind the cache's back.
class SharedChunkTest : public SynapCacheTest {
protected:
    void SetUp() override {
        SynapCacheTest::SetUp();
        const auto layer1 = randomBytes(150000, 31), layer2 = randomBytes(150000, 32);
        small_ = concat({randomBytes(500, 33), layer1, layer2});
        large_ = concat({randomBytes(900, 34), layer1, layer2, randomBytes(40000, 35)});
        ASSERT_EQ(cache_->store("small", small_, 1, 10), Status::OK);
        ASSERT_EQ(cache_->store("large", large_, 1, 10), Status::OK);
        cache_.reset();
        shared_ = query("SELECT chunk FROM program_chunks GROUP BY chunk HAVING count(DISTINCT program) = 2 LIMIT 1");
        ASSERT_FALSE(shared_.empty());
        tamper("UPDATE chunks SET data = zeroblob(size) WHERE md5 = '" + shared_ + "'");
        reopen();
    }
    nnemu::Status findInto(const std::string& key, std::vector<uint8_t>* found) { return cache_->find(key, 1, found); }

    std::vector<uint8_t> small_, large_;
    std::string shared_;
};

TEST_F(SharedChunkTest, DroppingTheDamagedProgramDropsTheDamagedChunk) {
    std::vector<uint8_t> found;
    const nnemu::Status damaged = findInto("small", &found);
    EXPECT_EQ(damaged, Status::DAMAGED);
    EXPECT_NE(damaged.message().find("checksum"), std::string::npos) << damaged;
    cache_.reset();
    EXPECT_EQ(query("SELECT count(*) FROM chunks WHERE md5 = '" + shared_ + "'"), "0")
            << "the damaged chunk outlived the program that found it";
    reopen();
    // The other program lost the chunk: dropped too, never trusted.
    EXPECT_EQ(findInto("large", &found), Status::DAMAGED);
    // One recompile each and both are whole again, for good.
    ASSERT_EQ(cache_->store("small", small_, 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("large", large_, 1, 10), Status::OK);
    for (int round = 0; round < 2; ++round) {
        ASSERT_EQ(findInto("small", &found), Status::OK);
        EXPECT_EQ(found, small_);
        ASSERT_EQ(findInto("large", &found), Status::OK);
        EXPECT_EQ(found, large_);
    }
}

TEST_F(SharedChunkTest, StoringRewritesADamagedChunkInsteadOfRelinkingIt) {
    // Another key with the same program: its rows exist, the shared chunk must not be trusted.
    ASSERT_EQ(cache_->store("small again", small_, 1, 10), Status::OK);
    std::vector<uint8_t> found;
    ASSERT_EQ(findInto("small again", &found), Status::OK);
    EXPECT_EQ(found, small_);
    // The rewrite repaired the chunk for everyone sharing it.
    ASSERT_EQ(findInto("large", &found), Status::OK);
    EXPECT_EQ(found, large_);
    ASSERT_EQ(findInto("small", &found), Status::OK);
    EXPECT_EQ(found, small_);
}

TEST_F(SharedChunkTest, ANewProgramDoesNotReuseADamagedChunk) {
    const auto layer1 = randomBytes(150000, 31), layer2 = randomBytes(150000, 32);
    const auto other = concat({randomBytes(700, 36), layer1, layer2});
    ASSERT_EQ(cache_->store("other", other, 1, 10), Status::OK);
    std::vector<uint8_t> found;
    ASSERT_EQ(findInto("other", &found), Status::OK);
    EXPECT_EQ(found, other);
}

TEST_F(SynapCacheTest, ProgramsSwappedBetweenEntriesAreDetected) {
    const auto first = randomBytes(20000, 41), second = randomBytes(20000, 42);
    ASSERT_EQ(cache_->store("first", first, 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("second", second, 1, 10), Status::OK);
    cache_.reset();
    // Each program still passes its own checksum; only the binding to the key is wrong.
    const std::string firstProgram = query("SELECT program FROM entries WHERE key = 'first'");
    const std::string secondProgram = query("SELECT program FROM entries WHERE key = 'second'");
    tamper("UPDATE entries SET program = '" + secondProgram + "' WHERE key = 'first'; UPDATE entries SET program = '" +
           firstProgram + "' WHERE key = 'second';");
    reopen();
    std::vector<uint8_t> found;
    const nnemu::Status damaged = cache_->find("first", 1, &found);
    EXPECT_EQ(damaged, Status::DAMAGED);
    EXPECT_NE(damaged.message().find("does not match its key"), std::string::npos) << damaged;
    EXPECT_TRUE(found.empty());
    EXPECT_EQ(cache_->find("second", 1, &found), Status::DAMAGED);
    EXPECT_EQ(cache_->totals().programs, 0u) << "programs no entry names are collected";
    ASSERT_EQ(cache_->store("first", first, 1, 10), Status::OK);
    ASSERT_EQ(cache_->find("first", 1, &found), Status::OK);
    EXPECT_EQ(found, first);
}

TEST_F(SynapCacheTest, WholeEntriesSwappedOrAProgramsVersionAlteredAreDetected) {
    const auto first = randomBytes(20000, 43), second = randomBytes(20000, 44), third = randomBytes(9000, 45);
    ASSERT_EQ(cache_->store("first", first, 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("second", second, 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("third", third, 1, 10), Status::OK);
    cache_.reset();
    // Program and seal move together; the keys stay.
    tamper("UPDATE entries SET key = 'swap' WHERE key = 'first'; UPDATE entries SET key = 'first' WHERE key = "
           "'second'; UPDATE entries SET key = 'second' WHERE key = 'swap';");
    tamper("UPDATE programs SET compiler_version = 7 WHERE md5 = (SELECT program FROM entries WHERE key = 'third')");
    reopen();
    std::vector<uint8_t> found;
    EXPECT_EQ(cache_->find("first", 1, &found), Status::DAMAGED);
    EXPECT_EQ(cache_->find("third", 7, &found), Status::DAMAGED);
    // verify() finds the rest.
    const auto report = cache_->verify();
    EXPECT_EQ(report.mismatchedEntries, 1u);
    EXPECT_EQ(report.entriesDropped, 1u);
    EXPECT_EQ(cache_->totals().entries, 0u);
}

TEST_F(SynapCacheTest, ALostChunkDropsTheEntry) {
    ASSERT_EQ(cache_->store("k", randomBytes(60000, 5), 1, 10), Status::OK);
    cache_.reset();
    tamper("DELETE FROM chunks WHERE rowid = (SELECT max(rowid) FROM chunks)");
    reopen();
    std::vector<uint8_t> found;
    EXPECT_EQ(cache_->find("k", 1, &found), Status::DAMAGED);
    EXPECT_EQ(cache_->totals().entries, 0u);
}

TEST_F(SynapCacheTest, AProgramOfAnotherCompilerIsDropped) {
    ASSERT_EQ(cache_->store("k", randomBytes(1000, 6), 1, 10), Status::OK);
    std::vector<uint8_t> found;
    const nnemu::Status damaged = cache_->find("k", 2, &found);
    EXPECT_EQ(damaged, Status::DAMAGED);
    EXPECT_NE(damaged.message().find("compiler version 1"), std::string::npos) << damaged;
    EXPECT_EQ(cache_->find("k", 1, &found), Status::NOT_FOUND);
}

TEST_F(SynapCacheTest, AProgramIsNamedByItsChunksNotByAnotherMd5Pass) {
    const auto program = randomBytes(100000, 21);
    ASSERT_EQ(cache_->store("k", program, 1, 10), Status::OK);
    EXPECT_EQ(cache_->entries()[0].program, programIdentity(program));
    EXPECT_NE(programIdentity(program), toHex(md5(program.data(), program.size())));
    EXPECT_NE(programIdentity(program), programIdentity(randomBytes(100000, 22)));
}

// Damage that keeps every chunk consistent with its own name still changes the program's.
TEST_F(SynapCacheTest, AChunkReplacedUnderItsNewNameIsRefused) {
    const auto program = randomBytes(100000, 23);
    ASSERT_EQ(cache_->store("k", program, 1, 10), Status::OK);
    const std::string old = query("SELECT chunk FROM program_chunks WHERE position = 1");
    const size_t size = std::stoul(query("SELECT size FROM chunks WHERE md5 = '" + old + "'"));
    const std::string renamed = toHex(md5(std::vector<uint8_t>(size).data(), size));
    cache_.reset();
    tamper("UPDATE chunks SET data = zeroblob(size), md5 = '" + renamed + "' WHERE md5 = '" + old + "';" +
           "UPDATE program_chunks SET chunk = '" + renamed + "' WHERE chunk = '" + old + "'");
    reopen();
    expectDroppedForItsChecksum("k");
}

TEST_F(SynapCacheTest, ChunksLinkedInAnotherOrderAreRefused) {
    const auto program = randomBytes(100000, 24);
    ASSERT_EQ(cache_->store("k", program, 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("other", randomBytes(100000, 25), 1, 10), Status::OK);
    cache_.reset();
    const std::string of = " AND program = (SELECT program FROM entries WHERE key = 'k');";
    tamper("UPDATE program_chunks SET position = -1 WHERE position = 0" + of +
           "UPDATE program_chunks SET position = 0 WHERE position = 1" + of +
           "UPDATE program_chunks SET position = 1 WHERE position = -1" + of);
    reopen();
    const auto report = cache_->verify();
    EXPECT_EQ(report.damagedPrograms, 1u);
    EXPECT_EQ(report.damagedChunks, 0u);
    EXPECT_EQ(keys(), std::vector<std::string>{"other"});
    std::vector<uint8_t> found;
    EXPECT_EQ(cache_->find("k", 1, &found), Status::NOT_FOUND);
}

TEST_F(SynapCacheTest, VerifyFindsAndDropsDamage) {
    ASSERT_EQ(cache_->store("good", randomBytes(30000, 7), 1, 10), Status::OK);
    ASSERT_EQ(cache_->store("bad", randomBytes(30000, 8), 1, 10), Status::OK);
    const std::string badProgram = cache_->entries()[0].program;
    cache_.reset();
    tamper("UPDATE chunks SET data = zeroblob(size) WHERE md5 IN "
           "(SELECT chunk FROM program_chunks WHERE program = '" + badProgram + "' AND position = 0)");
    reopen();
    const auto report = cache_->verify();
    EXPECT_EQ(report.integrity, "ok");
    EXPECT_EQ(report.programs, 2u);
    EXPECT_EQ(report.damagedPrograms, 1u);
    EXPECT_EQ(report.damagedChunks, 1u);
    EXPECT_EQ(report.entriesDropped, 1u);
    EXPECT_EQ(keys(), std::vector<std::string>{"good"});
    const auto again = cache_->verify();
    EXPECT_EQ(again.damagedPrograms + again.damagedChunks + again.entriesDropped, 0u);
}

TEST_F(SynapCacheTest, EvictToAndClear) {
    for (int i = 0; i < 5; ++i) ASSERT_EQ(cache_->store("k" + std::to_string(i), randomBytes(2000, i), 1, 10), Status::OK);
    EXPECT_EQ(cache_->evictTo(2), 3u);
    EXPECT_EQ(keys(), (std::vector<std::string>{"k4", "k3"}));
    EXPECT_TRUE(cache_->clear());
    const auto totals = cache_->totals();
    EXPECT_EQ(totals.entries + totals.programs + totals.chunks, 0u);
}

TEST_F(SynapCacheTest, ATextFileIsNotACache) {
    cache_.reset();
    cachetest::writeFile(file_ + ".txt", std::vector<uint8_t>(4096, 'x'));
    std::string error;
    EXPECT_EQ(openSynapCache(file_ + ".txt", true, error), nullptr);
    EXPECT_NE(error.find("not a database"), std::string::npos) << error;
}

TEST_F(SynapCacheTest, AnotherProgramsDatabaseIsNotACache) {
    cache_.reset();
    const std::string other = root() + "/other.db";
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE songs(title TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    std::string error;
    EXPECT_EQ(openSynapCache(other, true, error), nullptr);
    EXPECT_NE(error.find("another program"), std::string::npos) << error;
}

TEST_F(SynapCacheTest, ATruncatedDatabaseFileIsReportedNotTrusted) {
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(cache_->store("k" + std::to_string(i), randomBytes(40000, 100 + i), 1, 100), Status::OK);
    }
    cache_.reset();  // the last connection checkpoints the WAL into the file
    const auto size = std::filesystem::file_size(file_);
    ASSERT_GT(size, 300000u);
    std::filesystem::resize_file(file_, size / 2);
    std::string error;
    cache_ = openSynapCache(file_, true, error);
    if (cache_ == nullptr) {
        EXPECT_FALSE(error.empty());
        return;
    }
    // Opening may work (the first pages are intact); using the lost half must fail cleanly.
    bool failed = false;
    for (int i = 0; i < 8; ++i) {
        std::vector<uint8_t> found;
        const nnemu::Status status = cache_->find("k" + std::to_string(i), 1, &found);
        if (status == Status::UNAVAILABLE) {
            failed = true;
            EXPECT_TRUE(cache_->errorIsDamage()) << cache_->error();
        } else {
            EXPECT_TRUE(status == Status::OK || status == Status::NOT_FOUND || status == Status::DAMAGED)
                    << status;
            if (status == Status::OK) {
                EXPECT_EQ(found, randomBytes(40000, 100 + i));
            }
        }
    }
    EXPECT_TRUE(failed || cache_->verify().integrity != "ok");
}

}  // namespace
}  // namespace nnemu::cache
