// The statistics' guard against a file truncated under its mapping (MappedGuard.h): the access
// that would raise SIGBUS returns false on the thread that made it, nested guards unwind to the
// innermost, and a SIGBUS outside any guard still ends the process as it would have.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "MappedGuard.h"

namespace nnemu {
namespace {

// A two-page file mapped whole, then cut to `keep` bytes.
class CutMapping : public ::testing::Test {
protected:
    void SetUp() override {
        char path[] = "/tmp/nnemu-guard-XXXXXX";
        fd_ = mkstemp(path);
        ASSERT_GE(fd_, 0);
        unlink(path);
        ASSERT_EQ(ftruncate(fd_, 8192), 0);
        void* map = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        ASSERT_NE(map, MAP_FAILED);
        bytes_ = static_cast<volatile char*>(map);
    }
    void TearDown() override {
        munmap(const_cast<char*>(bytes_), 8192);
        close(fd_);
    }
    void cut(off_t keep) { ASSERT_EQ(ftruncate(fd_, keep), 0); }

    int fd_ = -1;
    volatile char* bytes_ = nullptr;
};

TEST_F(CutMapping, AnAccessPastTheEndReturnsFalse) {
    EXPECT_TRUE(synap::guarded([&] { bytes_[5000] = 1; }));
    cut(100);
    EXPECT_TRUE(synap::guarded([&] { bytes_[50] = 2; }));  // the page the file still has
    EXPECT_FALSE(synap::guarded([&] { bytes_[5000] = 3; }));
    EXPECT_FALSE(synap::guarded([&] { (void)bytes_[6000]; }));
    EXPECT_TRUE(synap::guarded([] {}));  // the guard works again after a caught fault
}

TEST_F(CutMapping, EachThreadHasItsOwnGuard) {
    cut(0);
    bool caught[2] = {};
    std::thread other([&] { caught[1] = !synap::guarded([&] { bytes_[10] = 1; }); });
    caught[0] = !synap::guarded([&] { bytes_[20] = 1; });
    other.join();
    EXPECT_TRUE(caught[0]);
    EXPECT_TRUE(caught[1]);
}

TEST_F(CutMapping, ANestedGuardCatchesItsOwnFault) {
    cut(0);
    bool inner = true;
    EXPECT_TRUE(synap::guarded([&] { inner = synap::guarded([&] { bytes_[10] = 1; }); }));
    EXPECT_FALSE(inner);
}

TEST_F(CutMapping, AFaultOutsideAnyGuardStillEndsTheProcess) {
    EXPECT_TRUE(synap::guarded([] {}));  // the handler is in place
    cut(0);
    const pid_t child = fork();
    if (child == 0) {
        bytes_[10] = 1;
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    // Killed by SIGBUS; under a sanitizer, whose handler was there first, by its report (an
    // abort or a failing exit).
    if (WIFSIGNALED(status)) {
        EXPECT_TRUE(WTERMSIG(status) == SIGBUS || WTERMSIG(status) == SIGABRT) << WTERMSIG(status);
    } else {
        EXPECT_NE(WEXITSTATUS(status), 0);
    }
}

}  // namespace
}  // namespace nnemu
