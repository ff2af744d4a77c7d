// synap_cache, the inspector: lists, totals, verifies, evicts and clears the database the
// properties and environment resolve to; bad arguments give a usage message and exit 2.
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>

#include "CacheTestSupport.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;

class InspectorTest : public CacheTest {
protected:
    // Three entries at the default path; "k0" used twice.
    void populate(const std::string& file) {
        fs::create_directories(fs::path(file).parent_path());
        std::string error;
        auto cache = openSynapCache(file, true, error);
        ASSERT_NE(cache, nullptr) << error;
        for (int i = 0; i < 3; ++i) {
            std::vector<uint8_t> program(10000 + i, static_cast<uint8_t>(i));
            ASSERT_EQ(cache->store("k" + std::to_string(i), program, 1, 100), nnemu::StatusCode::OK);
        }
        std::vector<uint8_t> found;
        (void)cache->find("k0", 1, &found);  // two hits
        (void)cache->find("k0", 1, &found);  // two hits
    }
    ProcessResult tool(std::vector<std::string> args) {
        args.insert(args.begin(), NNEMU_SYNAP_CACHE_TOOL);
        return runProcess(args);
    }
};

TEST_F(InspectorTest, ListsEntriesMostRecentFirst) {
    populate(defaultCacheFile());
    const auto result = tool({"--list"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const auto k0 = result.out.find("k0"), k2 = result.out.find("k2"), k1 = result.out.find("k1");
    ASSERT_NE(k0, std::string::npos) << result.out;
    EXPECT_LT(k0, k2);
    EXPECT_LT(k2, k1);
    EXPECT_NE(result.out.find("KEY"), std::string::npos);
    // k0: 10000 bytes, 2 hits.
    EXPECT_NE(result.out.find("     10000       2  "), std::string::npos) << result.out;
}

TEST_F(InspectorTest, ShowsTotals) {
    populate(defaultCacheFile());
    const auto result = tool({});  // --stats by default
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.out.find("cache file:     " + defaultCacheFile()), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("capacity:       10000 entries"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("entries:        3\n"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("entry bytes:    30003 "), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("hits:           2\n"), std::string::npos) << result.out;
}

TEST_F(InspectorTest, FollowsTheEnvironmentAndPathFlag) {
    const std::string file = root() + "/elsewhere.cache";
    populate(file);
    setenv("SYNAP_CACHE_PATH", file.c_str(), 1);
    EXPECT_NE(tool({"--stats"}).out.find("entries:        3\n"), std::string::npos);
    unsetenv("SYNAP_CACHE_PATH");
    EXPECT_NE(tool({"--stats"}).out.find("no SyNAP cache at " + defaultCacheFile()), std::string::npos);
    EXPECT_NE(tool({"--path", file, "--stats"}).out.find("entries:        3\n"), std::string::npos);
    EXPECT_FALSE(fs::exists(defaultCacheFile())) << "inspecting never creates a cache";
}

// A Yocto board keeps one cache per program: the inspector is told which.
TEST_F(InspectorTest, OnAYoctoBoardNamesTheProgram) {
    const std::string file = root() + "/tmp/synap-cache.benchmark_model";
    populate(file);
    setenv("NNEMU_BOARD", "yocto", 1);
    const auto named = tool({"--program", "benchmark_model"});
    ASSERT_EQ(named.exitCode, 0) << named.err;
    EXPECT_NE(named.out.find("cache file:     " + file), std::string::npos) << named.out;
    EXPECT_NE(named.out.find("entries:        3\n"), std::string::npos) << named.out;
    const auto unnamed = tool({});
    EXPECT_EQ(unnamed.exitCode, 2);
    EXPECT_NE(unnamed.err.find("name it with --program NAME"), std::string::npos) << unnamed.err;
    EXPECT_EQ(tool({"--program", "../x"}).exitCode, 2);
}

TEST_F(InspectorTest, VerifiesAndDropsDamage) {
    populate(defaultCacheFile());
    auto clean = tool({"--verify"});
    EXPECT_EQ(clean.exitCode, 0) << clean.out;
    EXPECT_NE(clean.out.find("verified 3 programs in 3 chunks: all intact"), std::string::npos) << clean.out;
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(defaultCacheFile().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE chunks SET data = zeroblob(size) WHERE size = 10001", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    auto damaged = tool({"--verify", "--list"});
    EXPECT_EQ(damaged.exitCode, 1);
    EXPECT_NE(damaged.out.find("1 damaged programs, 1 damaged chunks, 0 entries not matching their key; dropped 1 "
                               "entries"),
              std::string::npos)
            << damaged.out;
    EXPECT_EQ(damaged.out.find("k1"), std::string::npos) << damaged.out;
}

TEST_F(InspectorTest, EvictsAndClears) {
    populate(defaultCacheFile());
    auto evicted = tool({"--evict", "1", "--list"});
    ASSERT_EQ(evicted.exitCode, 0) << evicted.err;
    EXPECT_NE(evicted.out.find("evicted 2 entries"), std::string::npos) << evicted.out;
    EXPECT_NE(evicted.out.find("k0"), std::string::npos);
    EXPECT_EQ(evicted.out.find("k1"), std::string::npos);
    auto cleared = tool({"--clear", "--stats"});
    ASSERT_EQ(cleared.exitCode, 0) << cleared.err;
    EXPECT_NE(cleared.out.find("entries:        0\n"), std::string::npos) << cleared.out;
    EXPECT_NE(cleared.out.find("stored bytes:   0 "), std::string::npos) << cleared.out;
}

TEST_F(InspectorTest, BadArgumentsGiveUsage) {
    for (const auto& args : std::vector<std::vector<std::string>>{
                 {"--bogus"}, {"--evict"}, {"--evict", "-3"}, {"--evict", "x"}, {"--path"}}) {
        const auto result = tool(args);
        EXPECT_EQ(result.exitCode, 2) << args[0];
        EXPECT_NE(result.err.find("usage: synap_cache"), std::string::npos) << result.err;
    }
    const auto help = tool({"--help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_NE(help.out.find("--verify"), std::string::npos);
}

}  // namespace
}  // namespace nnemu::cachetest
