// The activation arena's memory (driver/synap/core/ArenaPages.h): zero until written at every
// size, its bytes and its address kept when the helper's huge pages replace the small ones, the
// helper stopped and joined however the arena ends (moved, destroyed before the pages are ready,
// stopped), none with NNEMU_NPU_HUGE_PAGES=0 or =direct; and a float network whose arena moves
// gives the same outputs before and after. PageTouches: threads share the reading of every page,
// and await() orders those reads before the awaiting thread's writes (the TSan build checks it).
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include "HalNetworkBuilder.h"
#include "compiler/Compiler.h"
#include "core/ArenaPages.h"
#include "core/NpuCore.h"

namespace nnemu {
namespace {

using synap::ArenaPages;

constexpr size_t kMiB = size_t{1} << 20;

bool allZero(const ArenaPages& arena) {
    for (size_t i = 0; i < arena.size(); i += 509) {
        if (arena.data()[i] != 0) return false;
    }
    return arena.data()[arena.size() - 1] == 0;
}

// Writes a pattern every 4093 bytes (and at both ends) that the moved pages must keep.
void writePattern(ArenaPages& arena) {
    for (size_t i = 0; i < arena.size(); i += 4093) arena.data()[i] = static_cast<uint8_t>(i / 4093 + 1);
    arena.data()[arena.size() - 1] = 0xA5;
}

void expectPattern(const ArenaPages& arena) {
    for (size_t i = 0; i < arena.size() - 1; ++i) {
        const uint8_t expected = i % 4093 == 0 ? static_cast<uint8_t>(i / 4093 + 1) : 0;
        ASSERT_EQ(arena.data()[i], expected) << "byte " << i;
    }
    EXPECT_EQ(arena.data()[arena.size() - 1], 0xA5);
}

// Waits (without a time limit: the helper always ends) until the helper is done, and moves its pages.
bool adoptWhenReady(ArenaPages& arena) {
    while (arena.hugePagesPending()) {
        if (arena.adoptHugePagesIfReady()) return true;
        std::this_thread::yield();
    }
    return false;
}

class HugePagesSetting {
public:
    explicit HugePagesSetting(const char* value) { setenv("NNEMU_NPU_HUGE_PAGES", value, 1); }
    ~HugePagesSetting() { unsetenv("NNEMU_NPU_HUGE_PAGES"); }
    HugePagesSetting(const HugePagesSetting&) = delete;
    HugePagesSetting& operator=(const HugePagesSetting&) = delete;
};

TEST(ArenaPages, SmallArenasAreZeroAndNeedNoHelper) {
    for (size_t size : {size_t{1}, size_t{4096}, 2 * kMiB - 1}) {
        ArenaPages arena(size);
        ASSERT_NE(arena.data(), nullptr);
        EXPECT_EQ(arena.size(), size);
        arena.startHugePages();
        EXPECT_FALSE(arena.hugePagesPending());
        EXPECT_TRUE(allZero(arena));
    }
    EXPECT_EQ(ArenaPages(0).size(), 0u);
}

TEST(ArenaPages, HugePagesKeepTheAddressAndEveryByte) {
    ArenaPages arena(5 * kMiB + 123);
    ASSERT_NE(arena.data(), nullptr);
    EXPECT_TRUE(allZero(arena));
    uint8_t* const before = arena.data();
    writePattern(arena);
    EXPECT_FALSE(arena.hugePagesPending()) << "no helper before the first inference";
    arena.startHugePages();
    const bool moved = adoptWhenReady(arena);  // false only where the system has no huge pages
    EXPECT_FALSE(arena.hugePagesPending());
    EXPECT_EQ(arena.data(), before);
    EXPECT_EQ(arena.size(), 5 * kMiB + 123);
    expectPattern(arena);
    EXPECT_FALSE(arena.adoptHugePagesIfReady()) << "moved twice";
    if (!moved) GTEST_SKIP() << "no transparent huge pages on this system: the arena stayed on small pages";
}

TEST(ArenaPages, DestroyedMovedOrStoppedWhileTheHelperRuns) {
    for (int round = 0; round < 8; ++round) {
        ArenaPages destroyed(9 * kMiB);  // destroyed at once: the destructor stops and joins
        destroyed.startHugePages();
    }
    ArenaPages first(3 * kMiB);
    writePattern(first);
    first.startHugePages();
    ArenaPages moved(std::move(first));
    EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
    ArenaPages assigned(4 * kMiB);
    assigned.startHugePages();
    assigned = std::move(moved);  // the 4 MiB arena's helper joined, the 3 MiB one's taken over
    adoptWhenReady(assigned);
    expectPattern(assigned);
    ArenaPages stopped(3 * kMiB);
    writePattern(stopped);
    stopped.startHugePages();
    stopped.stopHelper();
    stopped.startHugePages();  // once only: stopped stays stopped
    EXPECT_FALSE(stopped.hugePagesPending());
    EXPECT_FALSE(stopped.adoptHugePagesIfReady());
    expectPattern(stopped);
}

// A process that forks while the helper runs: the child's copy of the arena keeps its small pages
// and its bytes, and ends without waiting for a thread that ran in the parent only (joining it
// hung; the alarm turns a hang into a failure). The parent's helper goes on.
TEST(ArenaPages, AForkedChildNeitherWaitsForNorTakesTheParentsHelper) {
    ArenaPages arena(9 * kMiB);
    writePattern(arena);
    arena.startHugePages();
    const bool pending = arena.hugePagesPending();
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        alarm(20);
        int failures = 0;
        for (int i = 0; i < 3; ++i) failures += arena.adoptHugePagesIfReady() ? 1 : 0;
        failures += arena.hugePagesPending() ? 1 : 0;
        for (size_t i = 0; i + 1 < arena.size(); i += 4093) {
            failures += arena.data()[i] != static_cast<uint8_t>(i / 4093 + 1) ? 1 : 0;
        }
        arena.~ArenaPages();  // as the child's unload would
        new (&arena) ArenaPages();
        _exit(failures == 0 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    if (pending) adoptWhenReady(arena);
    expectPattern(arena);
}

TEST(ArenaPages, NoHelperWithHugePagesOffOrDirect) {
    for (const char* value : {"0", "direct"}) {
        const HugePagesSetting setting(value);
        ArenaPages arena(5 * kMiB);
        arena.startHugePages();
        EXPECT_FALSE(arena.hugePagesPending()) << value;
        EXPECT_TRUE(allZero(arena)) << value;
        writePattern(arena);
        expectPattern(arena);
    }
}

// float [1, 128, 128, 32] -> 3x3 DEPTHWISE_CONV_2D (RELU6): input and output 2 MiB each, so the
// arena holds more than 2 MiB.
hal::Model wideDepthwise() { return test::floatDepthwise3x3(128, 32); }

TEST(ArenaPages, CoreGivesTheSameOutputsOnEitherPages) {
    Result<std::vector<uint8_t>> program = synap::compileProgram(wideDepthwise(), {{1, 128, 128, 32}});
    ASSERT_TRUE(program.isOk()) << program.message();
    auto core = synap::NpuCore::load(cache::ProgramImage(*program), false, /*callingThreadOnly=*/true);
    ASSERT_TRUE(core.isOk()) << core.message();
    ASSERT_GE((*core)->arenaBytes(), 2 * kMiB);
    std::vector<float> input(128 * 128 * 32);
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(static_cast<int>(i % 23) - 11) / 4.0f;
    const auto run = [&] {
        std::vector<float> output(input.size(), -1.0f);
        const Status ran = (*core)->run({reinterpret_cast<const uint8_t*>(input.data())},
                                        {reinterpret_cast<uint8_t*>(output.data())});
        EXPECT_TRUE(ran.isOk()) << ran.message();
        return output;
    };
    const std::vector<float> first = run();  // on the small pages
    EXPECT_FALSE((*core)->arenaHugePagesPending()) << "the helper starts after the second inference";
    EXPECT_EQ(run(), first);  // starts the helper
    while ((*core)->arenaHugePagesPending()) {
        EXPECT_EQ(run(), first);  // the first run after the helper is done moves the pages
    }
    EXPECT_EQ(run(), first);
    EXPECT_EQ(run(), first);
    // Every output a value of the clamp's range, the padding's zeros included in the borders' sums.
    for (float value : first) ASSERT_TRUE(value >= 0.0f && value <= 6.0f) << value;
}

TEST(PageTouches, ThreadsShareThePagesAndTheWaiterWritesAfterAll) {
    for (const size_t bytes : {size_t{0}, size_t{1}, size_t{16} * 4096, size_t{17} * 4096 - 5, size_t{3} * kMiB}) {
        ArenaPages arena(std::max<size_t>(bytes, 64 << 10));
        synap::PageTouches touches;
        touches.reset(arena.mappedPages().first(std::min(bytes, arena.mappedPages().size())));
        std::vector<std::thread> sharers;
        for (int t = 0; t < 3; ++t) sharers.emplace_back([&] { touches.share(); });
        touches.share();
        touches.await();
        writePattern(arena);  // the sharers' reads are ordered before these writes
        for (auto& sharer : sharers) sharer.join();
        touches.await();  // done stays done
    }
}

// Every page is read, the ones after the first thread's first claim too: a page that cannot be
// read at the start, in the middle or at the end of the span stops a child.
TEST(PageTouches, EveryPageIsRead) {
    constexpr size_t kPages = 40;
    auto* pages = static_cast<uint8_t*>(mmap(nullptr, kPages * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(pages, MAP_FAILED);
    for (const size_t hole : {size_t{0}, size_t{20}, kPages - 1}) {
        ASSERT_EQ(mprotect(pages, kPages * 4096, PROT_READ), 0);
        ASSERT_EQ(mprotect(pages + hole * 4096, 4096, PROT_NONE), 0);
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            synap::PageTouches touches;
            touches.reset({pages, kPages * 4096});
            std::thread other([&] { touches.share(); });
            touches.share();
            touches.await();
            other.join();
            _exit(0);
        }
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        // Killed by SIGSEGV; under a sanitizer, whose handler takes the fault, by its report (an
        // abort or a failing exit). A child that read no hole exits 0.
        if (WIFSIGNALED(status)) {
            EXPECT_TRUE(WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGABRT) << WTERMSIG(status);
        } else {
            EXPECT_NE(WEXITSTATUS(status), 0) << "page " << hole << " was not read";
        }
    }
    munmap(pages, kPages * 4096);
}

}  // namespace
}  // namespace nnemu
