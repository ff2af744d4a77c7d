// The cache never harms what is not its own: a file at the cache path that is not a SyNAP cache
// (text, an empty file, another program's SQLite database in either journal mode, a cache of a
// newer schema) is refused and left byte for byte as it was, with no file created beside it; the
// driver goes on without the cache; `synap_cache --clear` deletes only a file whose header marks
// it as a SyNAP cache, damaged or not, and says why it refuses anything else.
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>

#include "CacheTestSupport.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;
using cache::SynapCache;

class ForeignFileTest : public CacheTest {
protected:
    void SetUp() override {
        CacheTest::SetUp();
        directory_ = fs::path(defaultCacheFile()).parent_path().string();
        fs::create_directories(directory_);
    }
    // Opening `file` as a cache (creating it if missing) fails with `reason` and changes nothing.
    void expectRefusedUntouched(const std::string& reason) {
        const auto before = snapshotDirectory(directory_);
        std::string error;
        EXPECT_EQ(openSynapCache(defaultCacheFile(), true, error, root()), nullptr);
        EXPECT_NE(error.find(reason), std::string::npos) << error;
        EXPECT_EQ(snapshotDirectory(directory_), before);
    }
    ProcessResult tool(std::vector<std::string> args) {
        args.insert(args.begin(), NNEMU_SYNAP_CACHE_TOOL);
        return runProcess(args);
    }
    // A real cache with a few entries at the default path.
    void populate() {
        std::string error;
        auto cache = openSynapCache(defaultCacheFile(), true, error, root());
        ASSERT_NE(cache, nullptr) << error;
        for (int i = 0; i < 3; ++i) {
            ASSERT_EQ(cache->store("k" + std::to_string(i), std::vector<uint8_t>(30000 + i, uint8_t(i)), 1, 10),
                      nnemu::StatusCode::OK);
        }
    }

    std::string directory_;
};

TEST_F(ForeignFileTest, AnotherProgramsDatabaseIsLeftByteForByte) {
    // A rollback-journal database: the old code switched it to WAL before looking at it.
    createSqliteDatabase(defaultCacheFile(), "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES('a');");
    expectRefusedUntouched("another program");
}

TEST_F(ForeignFileTest, AnotherProgramsWalDatabaseIsLeftByteForByte) {
    createSqliteDatabase(defaultCacheFile(), "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1);");
    expectRefusedUntouched("another program");
}

TEST_F(ForeignFileTest, ADatabaseWithAnotherApplicationIdIsLeftByteForByte) {
    createSqliteDatabase(defaultCacheFile(), "PRAGMA application_id=1234; CREATE TABLE t(x);");
    expectRefusedUntouched("application id 1234");
}

TEST_F(ForeignFileTest, AnEmptyDatabaseOfAnotherProgramIsNotClaimed) {
    createSqliteDatabase(defaultCacheFile(), "CREATE TABLE t(x); DROP TABLE t;");
    expectRefusedUntouched("another program");
}

TEST_F(ForeignFileTest, TextAndEmptyFilesAreLeftAlone) {
    writeFile(defaultCacheFile(), std::vector<uint8_t>(3000, 'x'));
    expectRefusedUntouched("not a database");
    writeFile(defaultCacheFile(), {});
    expectRefusedUntouched("empty");
}

TEST_F(ForeignFileTest, ACacheOfANewerSchemaIsLeftByteForByte) {
    populate();
    createSqliteDatabase(defaultCacheFile(), "PRAGMA user_version=99");
    expectRefusedUntouched("schema version 99");
}

TEST_F(ForeignFileTest, ACacheOfSchemaVersion1IsEmptiedAndUpgraded) {
    // Version 1 had no seals: none of its entries can be trusted to belong to its key. (The
    // application id is "NNSC", the cache's.)
    createSqliteDatabase(defaultCacheFile(),
                         "PRAGMA application_id=1313755971; PRAGMA user_version=1;"
                         "CREATE TABLE entries(key TEXT PRIMARY KEY, program TEXT NOT NULL, created INTEGER NOT NULL,"
                         "  last_use INTEGER NOT NULL, hits INTEGER NOT NULL DEFAULT 0);"
                         "CREATE TABLE programs(md5 TEXT PRIMARY KEY, size INTEGER NOT NULL,"
                         "  compiler_version INTEGER NOT NULL, chunk_count INTEGER NOT NULL);"
                         "CREATE TABLE program_chunks(program TEXT NOT NULL, position INTEGER NOT NULL,"
                         "  chunk TEXT NOT NULL, PRIMARY KEY(program, position)) WITHOUT ROWID;"
                         "CREATE TABLE chunks(md5 TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);"
                         "INSERT INTO entries VALUES('k', 'p', 1, 1, 0);"
                         "INSERT INTO programs VALUES('p', 1, 1, 1);");
    std::string error;
    auto cache = openSynapCache(defaultCacheFile(), false, error, root());
    ASSERT_NE(cache, nullptr) << error;
    const auto totals = cache->totals();
    EXPECT_EQ(totals.entries + totals.programs, 0u);
    const std::vector<uint8_t> program(5000, 7);
    ASSERT_EQ(cache->store("k", program, 1, 10), nnemu::StatusCode::OK);
    std::vector<uint8_t> found;
    ASSERT_EQ(cache->find("k", 1, &found), nnemu::StatusCode::OK);
    EXPECT_EQ(found, program);
}

TEST_F(ForeignFileTest, ACacheOfSchemaVersion2IsEmptiedAndUpgradedWithItsProgramFiles) {
    // Version 2 named a program by the md5 of its bytes; this build derives the name from the
    // chunks' md5s, so a version 2 row is never read as one of its own: the file stays, emptied.
    createSqliteDatabase(defaultCacheFile(),
                         "PRAGMA application_id=1313755971; PRAGMA user_version=2;"
                         "CREATE TABLE entries(key TEXT PRIMARY KEY, program TEXT NOT NULL, seal TEXT NOT NULL,"
                         "  created INTEGER NOT NULL, last_use INTEGER NOT NULL, hits INTEGER NOT NULL DEFAULT 0);"
                         "CREATE TABLE programs(md5 TEXT PRIMARY KEY, size INTEGER NOT NULL,"
                         "  compiler_version INTEGER NOT NULL, chunk_count INTEGER NOT NULL);"
                         "CREATE TABLE program_chunks(program TEXT NOT NULL, position INTEGER NOT NULL,"
                         "  chunk TEXT NOT NULL, PRIMARY KEY(program, position)) WITHOUT ROWID;"
                         "CREATE TABLE chunks(md5 TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);"
                         "INSERT INTO entries VALUES('k', 'p', 's', 1, 1, 0);"
                         "INSERT INTO programs VALUES('p', 1, 1, 1);");
    const std::string programFile = defaultCacheFile() + "." + std::string(32, 'a') + ".npu";
    writeFile(programFile, std::vector<uint8_t>(100, 1));
    std::string error;
    auto cache = openSynapCache(defaultCacheFile(), false, error, root());
    ASSERT_NE(cache, nullptr) << error;
    const auto totals = cache->totals();
    EXPECT_EQ(totals.entries + totals.programs, 0u);
    EXPECT_FALSE(fs::exists(programFile));
    const std::vector<uint8_t> program(5000, 7);
    ASSERT_EQ(cache->store("k", program, 1, 10), nnemu::StatusCode::OK);
    std::vector<uint8_t> found;
    ASSERT_EQ(cache->find("k", 1, &found), nnemu::StatusCode::OK);
    EXPECT_EQ(found, program);
}

TEST_F(ForeignFileTest, TheDriverGoesOnWithoutTouchingAForeignDatabase) {
    createSqliteDatabase(defaultCacheFile(), "CREATE TABLE songs(title TEXT);");
    const auto before = snapshotDirectory(directory_);
    std::string log;
    ASSERT_NO_FATAL_FAILURE(runSmallConvCapturingLog(&log));
    EXPECT_NE(log.find("another program"), std::string::npos) << log;
    EXPECT_EQ(snapshotDirectory(directory_), before);
}

TEST_F(ForeignFileTest, ClearRefusesATextFile) {
    writeFile(defaultCacheFile(), std::vector<uint8_t>(5000, 'x'));
    const auto before = snapshotDirectory(directory_);
    const auto cleared = tool({"--clear"});
    EXPECT_EQ(cleared.exitCode, 1) << cleared.out;
    EXPECT_NE(cleared.err.find("refusing to delete"), std::string::npos) << cleared.err;
    EXPECT_NE(cleared.err.find("not a database"), std::string::npos) << cleared.err;
    EXPECT_EQ(snapshotDirectory(directory_), before);
}

TEST_F(ForeignFileTest, ClearRefusesAnotherProgramsDatabase) {
    const std::string other = root() + "/songs.db";
    createSqliteDatabase(other, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES('a');");
    const auto before = snapshotDirectory(root());
    const auto cleared = tool({"--path", other, "--clear"});
    EXPECT_EQ(cleared.exitCode, 1) << cleared.out;
    EXPECT_NE(cleared.err.find("refusing to delete"), std::string::npos) << cleared.err;
    EXPECT_NE(cleared.err.find("another program"), std::string::npos) << cleared.err;
    EXPECT_EQ(snapshotDirectory(root()), before);
}

TEST_F(ForeignFileTest, ClearRemovesADamagedCacheWithItsWalFiles) {
    populate();
    // Damage past the header: the schema page is garbage, the header still says SyNAP cache.
    auto bytes = readFile(defaultCacheFile());
    ASSERT_GT(bytes.size(), 4096u);
    for (size_t i = 100; i < 4096; ++i) bytes[i] = 0xEE;
    writeFile(defaultCacheFile(), bytes);
    writeFile(defaultCacheFile() + "-wal", {});
    const auto stats = tool({"--stats"});
    EXPECT_EQ(stats.exitCode, 1) << stats.out;
    const auto cleared = tool({"--clear"});
    EXPECT_EQ(cleared.exitCode, 0) << cleared.err;
    EXPECT_NE(cleared.out.find("removed the damaged cache"), std::string::npos) << cleared.out;
    EXPECT_TRUE(snapshotDirectory(directory_).empty());
    // The next use starts a fresh cache.
    std::string error;
    EXPECT_NE(openSynapCache(defaultCacheFile(), true, error, root()), nullptr) << error;
}

TEST_F(ForeignFileTest, ANewCacheIsPrivateToItsOwner) {
    populate();
    struct stat info {};
    ASSERT_EQ(stat(defaultCacheFile().c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    // Only the cache itself is left: the private name it was built under is gone.
    std::string error;
    auto cache = openSynapCache(defaultCacheFile(), false, error, root());
    ASSERT_NE(cache, nullptr) << error;
    cache->totals();  // WAL and shared-memory files exist while a connection is open
    for (const auto& [name, content] : snapshotDirectory(directory_)) {
        EXPECT_EQ(name.rfind("nnhal.cache", 0), 0u) << name;
        ASSERT_EQ(stat((directory_ + "/" + name).c_str(), &info), 0);
        EXPECT_EQ(info.st_mode & 0777, 0600u) << name;
    }
}

}  // namespace
}  // namespace nnemu::cachetest
