// The SyNAP cache under contention: many connections opening a new cache file at once, and
// storing and finding while others do, never give up with "database is locked" (the busy
// timeout covers every wait; no transaction is upgraded from read to write).
#include <atomic>
#include <thread>

#include "CacheTestSupport.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cache {
namespace {

using cachetest::openSynapCache;

class ContentionTest : public cachetest::CacheTest {};

// Runs `body(i)` on `count` threads released together.
template <typename Body>
void together(int count, Body body) {
    std::atomic<int> waiting{count};
    std::vector<std::thread> threads;
    for (int i = 0; i < count; ++i) {
        threads.emplace_back([&, i] {
            waiting--;
            while (waiting.load() > 0) std::this_thread::yield();
            body(i);
        });
    }
    for (auto& thread : threads) thread.join();
}

// Before the fix, SQLite's switch to WAL inside open upgraded a read to a write transaction and
// failed at once ("database is locked") whenever another connection was reading the new file.
TEST_F(ContentionTest, ManyConnectionsOpenANewCacheAtOnce) {
    for (int round = 0; round < 20; ++round) {
        const std::string file = root() + "/new" + std::to_string(round) + ".cache";
        std::vector<std::string> errors(8);
        together(8, [&](int i) {
            auto cache = openSynapCache(file, true, errors[i]);
            if (cache != nullptr) errors[i].clear();
        });
        for (const auto& error : errors) EXPECT_EQ(error, "") << "round " << round;
    }
}

// A cache of ours that something switched to a rollback journal is switched back by whoever
// opens it first; the others wait rather than fail.
TEST_F(ContentionTest, ManyConnectionsSwitchARollbackJournalCacheAtOnce) {
    const std::string file = root() + "/rollback.cache";
    for (int round = 0; round < 40; ++round) {
        {
            std::string error;
            ASSERT_NE(openSynapCache(file, true, error), nullptr) << error;
        }
        cachetest::createSqliteDatabase(file, "PRAGMA journal_mode=DELETE");
        std::vector<std::string> errors(8);
        together(8, [&](int i) {
            auto cache = openSynapCache(file, false, errors[i]);
            if (cache != nullptr && cache->totals().entries == 0) errors[i].clear();
        });
        for (const auto& error : errors) EXPECT_EQ(error, "") << "round " << round;
    }
}

// Every connection stores its own programs and one they all share, and finds them, while the
// others do the same: every call succeeds, none reports BUSY.
TEST_F(ContentionTest, ConnectionsStoringAndFindingAtOnceNeverGiveUp) {
    const std::string file = root() + "/busy.cache";
    const std::vector<uint8_t> shared(40000, 9);
    std::vector<std::vector<std::string>> failures(6);
    together(6, [&](int i) {
        std::string error;
        auto cache = openSynapCache(file, true, error);
        if (cache == nullptr) {
            failures[i].push_back("open: " + error);
            return;
        }
        for (int n = 0; n < 15; ++n) {
            const std::vector<uint8_t> own(20000 + n, static_cast<uint8_t>(i * 16 + n));
            const std::string key = std::to_string(i) + "/" + std::to_string(n);
            std::vector<uint8_t> found;
            for (auto status : {cache->store(key, own, 1, 1000), cache->store("shared", shared, 1, 1000),
                                cache->find(key, 1, &found), cache->find("shared", 1, &found)}) {
                if (!status.isOk()) failures[i].push_back(toString(status.code()) + (": " + cache->error()));
            }
        }
    });
    for (const auto& list : failures) EXPECT_TRUE(list.empty()) << list.front();
    std::string error;
    auto cache = openSynapCache(file, false, error);
    ASSERT_NE(cache, nullptr) << error;
    EXPECT_EQ(cache->totals().entries, 6u * 15u + 1u);
    const auto report = cache->verify();
    EXPECT_EQ(report.integrity, "ok");
    EXPECT_EQ(report.damagedPrograms + report.damagedChunks + report.entriesDropped, 0u);
}

// The same across processes, as in the flaky run: several workers open a cache file that does
// not exist yet, store and find, all at once.
TEST_F(ContentionTest, ProcessesOpeningANewCacheAtOnce) {
    for (int round = 0; round < 4; ++round) {
        const std::string file = root() + "/processes" + std::to_string(round) + ".cache";
        std::vector<cachetest::ProcessResult> results(6);
        std::vector<std::thread> threads;
        for (size_t i = 0; i < results.size(); ++i) {
            threads.emplace_back([&, i] {
                results[i] = cachetest::runProcess({NNEMU_CACHE_WORKER, "store", file, std::to_string(i)});
            });
        }
        for (auto& thread : threads) thread.join();
        for (const auto& result : results) {
            EXPECT_EQ(result.exitCode, 0) << "round " << round << ": " << result.err;
            EXPECT_EQ(result.out, "stored\n");
        }
    }
}

}  // namespace
}  // namespace nnemu::cache
