// The trace module in one process: NNEMU_TRACE is set by main() before anything is traced, so
// every test of a run appends to the same file and looks only at its own events.
#include "nnemu/base/Trace.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "TraceCheck.h"

namespace nnemu::trace {
namespace {

using testing::named;
using testing::nestingViolation;
using testing::readTrace;

std::string& tracePath() {
    static std::string path;
    return path;
}

TEST(Trace, OnOnceTheVariableNamesAFile) { EXPECT_TRUE(enabled()); }

// More events than the buffer holds: it is written out while spans are open, and what the file
// ends with still parses and nests.
TEST(Trace, SpansNestAcrossThreadsAndAFullBuffer) {
    constexpr int kInner = 20000;
    auto work = [] {
        Span outer("outer", "test");
        for (int i = 0; i < kInner; ++i) Span inner("inner", "test");
    };
    std::thread first(work), second(work);
    first.join();
    second.join();
    flush();
    const auto trace = readTrace(tracePath());
    EXPECT_EQ(named(trace, "outer").size(), 2u);
    EXPECT_EQ(named(trace, "inner").size(), 2u * kInner);
    EXPECT_FALSE(named(trace, "nnemu trace flush").empty()) << "the buffer was never written out when full";
    EXPECT_EQ(nestingViolation(trace.events), "");
    for (const auto* outer : named(trace, "outer")) {
        EXPECT_EQ(testing::inside(trace, *outer, "test").size(), static_cast<size_t>(kInner));
    }
}

TEST(Trace, NamesAndArgumentsAreEscaped) {
    {
        Span span("a \"quoted\"\nname\\", "test");
        span.arg("text", std::string("tab\there")).arg("count", 42).arg("literal", "x");
    }
    flush();
    const auto trace = readTrace(tracePath());
    const auto found = named(trace, "a \"quoted\"\nname\\");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->args["text"], "tab\there");
    EXPECT_EQ(found[0]->args["count"], 42);
    EXPECT_EQ(found[0]->args["literal"], "x");
}

// A forked child writes its own events under its own pid, not the parent's buffered ones.
TEST(Trace, AForkedChildWritesOnlyItsOwnEvents) {
    { Span before("before fork", "test"); }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        { Span span("in the child", "test"); }
        flush();
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    flush();
    const auto trace = readTrace(tracePath());
    const auto before = named(trace, "before fork");
    ASSERT_EQ(before.size(), 1u);
    EXPECT_EQ(before[0]->pid, getpid());
    const auto inChild = named(trace, "in the child");
    ASSERT_EQ(inChild.size(), 1u);
    EXPECT_EQ(inChild[0]->pid, child);
    EXPECT_EQ(trace.processNames.count(child), 1u) << "the child names its process";
}

TEST(Trace, AnInactiveSpanRecordsNothing) {
    Span inactive;
    inactive.arg("ignored", 1);
    EXPECT_FALSE(inactive.active());
    Span ended("ended early", "test");
    ended.end();
    ended.end();  // a second end records nothing more
    flush();
    EXPECT_EQ(named(readTrace(tracePath()), "ended early").size(), 1u);
}

}  // namespace
}  // namespace nnemu::trace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    nnemu::trace::tracePath() = ::testing::TempDir() + "/nnemu_trace_test_" + std::to_string(getpid()) + ".json";
    std::remove(nnemu::trace::tracePath().c_str());
    setenv("NNEMU_TRACE", nnemu::trace::tracePath().c_str(), 1);
    const int result = RUN_ALL_TESTS();
    std::remove(nnemu::trace::tracePath().c_str());
    return result;
}
