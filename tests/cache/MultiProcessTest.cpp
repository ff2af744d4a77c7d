// The caches across processes: a program stored by one process is a hit in the next; four
// processes compiling the same and different networks at once all succeed and leave a clean
// database; a process killed in the middle of inserts leaves a consistent one.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "CacheTestSupport.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;

class MultiProcessTest : public CacheTest {
protected:
    std::map<std::string, std::string> runWorker(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {NNEMU_CACHE_WORKER, "run"};
        argv.insert(argv.end(), args.begin(), args.end());
        const auto result = runProcess(argv);
        EXPECT_EQ(result.exitCode, 0) << result.err;
        EXPECT_EQ(countOccurrences(result.err, "WARNING") + countOccurrences(result.err, "W:SyNAP:"), 0u) << result.err;
        auto report = parseReport(result.out);
        EXPECT_EQ(report["cpu_match"], "1") << result.out;
        return report;
    }
};

TEST_F(MultiProcessTest, AProgramStoredByOneProcessIsAHitInTheNext) {
    const auto first = runWorker({"--layers", "1,2"});
    EXPECT_EQ(first.at("compiles"), "1");
    EXPECT_EQ(first.at("synap_stores"), "1");
    const auto second = runWorker({"--layers", "1,2"});
    EXPECT_EQ(second.at("compiles"), "0");
    EXPECT_EQ(second.at("synap_hits"), "1");
    EXPECT_EQ(second.at("output"), first.at("output"));
    // The storing process keeps its connection until exit (to fold its log in); one that only
    // looked up closed it after the lookup.
    EXPECT_NE(first.at("cache_fds"), "0");
    EXPECT_EQ(second.at("cache_fds"), "0");
}

TEST_F(MultiProcessTest, AnNnapiCacheFileWrittenByOneProcessIsLoadedByTheNext) {
    setProperty("vendor.npu.cache.model", "1");
    const std::string dir = root() + "/app-cache";
    fs::create_directories(dir);
    const std::vector<std::string> args = {"--layers", "1,2", "--cache-dir", dir, "--token", std::string(64, 'e')};
    const auto first = runWorker(args);
    EXPECT_EQ(first.at("model_cache_writes"), "1");
    const auto second = runWorker(args);
    EXPECT_EQ(second.at("model_cache_loads"), "1");
    EXPECT_EQ(second.at("compiles"), "0");
    EXPECT_EQ(second.at("synap_lookups"), "0") << "no JIT at all";
    EXPECT_EQ(second.at("output"), first.at("output"));
}

TEST_F(MultiProcessTest, FourProcessesCompilingAtOnce) {
    // Two compile the same network, two others different ones, three times each, all starting
    // on a cache file that does not exist yet.
    const std::vector<std::string> layers = {"1,2,3", "1,2,3", "4,5", "6"};
    for (int round = 0; round < 2; ++round) {
        std::vector<std::map<std::string, std::string>> reports(layers.size());
        std::vector<std::thread> workers;
        for (size_t i = 0; i < layers.size(); ++i) {
            workers.emplace_back([&, i] {
                reports[i] = runWorker({"--layers", layers[i], "--channels", "24", "--compilations", "3"});
            });
        }
        for (auto& worker : workers) worker.join();
        EXPECT_EQ(reports[0]["output"], reports[1]["output"]);
        if (round == 1) {
            for (const auto& report : reports) EXPECT_EQ(report.at("compiles"), "0") << "all stored in round 0";
        }
    }
    std::string error;
    auto cache = openSynapCache(defaultCacheFile(), false, error);
    ASSERT_NE(cache, nullptr) << error;
    EXPECT_EQ(cache->totals().entries, 3u);
    const auto report = cache->verify();
    EXPECT_EQ(report.integrity, "ok");
    EXPECT_EQ(report.damagedPrograms + report.damagedChunks + report.entriesDropped, 0u);
}

// Starts `insert-loop`, waits for its first insert, lets it run `delay`, then SIGKILLs it.
void killDuringInserts(const std::string& file, std::chrono::milliseconds delay) {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execl(NNEMU_CACHE_WORKER, NNEMU_CACHE_WORKER, "insert-loop", file.c_str(), "5", nullptr);
        _exit(127);
    }
    close(out[1]);
    char ready[6] = {};
    ASSERT_EQ(read(out[0], ready, 5), 5);
    EXPECT_STREQ(ready, "ready");
    std::this_thread::sleep_for(delay);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    close(out[0]);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the worker ended by itself";
}

TEST_F(MultiProcessTest, AProcessKilledDuringAnInsertLeavesAConsistentDatabase) {
    const std::string file = root() + "/killed.cache";
    // Most of the loop's time is spent inside the insert transaction (1 MiB programs, with
    // eviction), so these kills land inside one.
    for (int round = 0; round < 8; ++round) {
        killDuringInserts(file, std::chrono::milliseconds(5 + 11 * round));
        std::string error;
        auto cache = openSynapCache(file, false, error);
        ASSERT_NE(cache, nullptr) << error;
        const auto totals = cache->totals();
        EXPECT_GE(totals.entries, 1u);
        EXPECT_LE(totals.entries, 5u);
        // Random programs share nothing: every chunk belongs to exactly one program.
        EXPECT_EQ(totals.programs, totals.entries);
        EXPECT_EQ(totals.storedBytes, totals.programBytes);
        for (const auto& entry : cache->entries()) {
            std::vector<uint8_t> program;
            EXPECT_EQ(cache->find(entry.key, 1, &program), nnemu::StatusCode::OK) << entry.key;
            EXPECT_EQ(program.size(), size_t{1} << 20);
        }
        const auto report = cache->verify();
        EXPECT_EQ(report.integrity, "ok");
        EXPECT_EQ(report.damagedPrograms + report.damagedChunks + report.entriesDropped, 0u);
    }
}

}  // namespace
}  // namespace nnemu::cachetest
