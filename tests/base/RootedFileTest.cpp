// Files under the device root are opened without following symlinks planted below the root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "nnemu/base/RootedFile.h"

namespace {

namespace fs = std::filesystem;
using nnemu::base::makeDirectoriesInsideRoot;
using nnemu::base::openInsideRoot;

class RootedFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/nnemu-rooted-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        top_ = pattern;
        root_ = top_ + "/root";
        outside_ = top_ + "/outside";
        fs::create_directories(root_);
        fs::create_directories(outside_);
    }
    void TearDown() override { fs::remove_all(top_); }

    static std::string read(const std::string& path) {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }

    std::string top_, root_, outside_;
};

TEST_F(RootedFileTest, CreatesAFileAndItsParentDirectories) {
    const auto opened = openInsideRoot(root_, root_ + "/a/b/file", O_WRONLY | O_CREAT, 0600, true);
    ASSERT_TRUE(opened.isOk()) << opened.status();
    const int fd = *opened;
    ASSERT_EQ(write(fd, "x", 1), 1);
    close(fd);
    EXPECT_EQ(read(root_ + "/a/b/file"), "x");
    EXPECT_EQ(fs::status(root_ + "/a/b/file").permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(RootedFileTest, RefusesASymlinkAsTheFinalName) {
    std::ofstream(outside_ + "/victim") << "keep";
    fs::create_symlink(outside_ + "/victim", root_ + "/file");
    const auto opened = openInsideRoot(root_, root_ + "/file", O_WRONLY | O_TRUNC, 0, false);
    EXPECT_EQ(errno, ELOOP);
    ASSERT_FALSE(opened.isOk());
    EXPECT_EQ(opened.code(), nnemu::StatusCode::UNAVAILABLE);
    EXPECT_NE(opened.message().find("symbolic link"), std::string::npos) << opened.status();
    EXPECT_EQ(read(outside_ + "/victim"), "keep");
}

TEST_F(RootedFileTest, RefusesASymlinkedDirectoryOnTheWay) {
    fs::create_symlink(outside_, root_ + "/dir");
    EXPECT_FALSE(openInsideRoot(root_, root_ + "/dir/new", O_WRONLY | O_CREAT, 0600, true).isOk());
    EXPECT_FALSE(fs::exists(outside_ + "/new"));
    EXPECT_FALSE(makeDirectoriesInsideRoot(root_, root_ + "/dir/sub").isOk());
    EXPECT_FALSE(fs::exists(outside_ + "/sub"));
}

TEST_F(RootedFileTest, RefusesPathsOutsideOrClimbingOutOfTheRoot) {
    const auto outside = openInsideRoot(root_, outside_ + "/f", O_WRONLY | O_CREAT, 0600, false);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(outside.message(), outside_ + "/f is not inside the device root " + root_);
    const auto climbing = openInsideRoot(root_, root_ + "/../outside/f", O_WRONLY | O_CREAT, 0600, false);
    EXPECT_EQ(climbing.message(), root_ + "/../outside/f climbs out of the device root");
    EXPECT_FALSE(openInsideRoot(root_, root_ + "/", O_RDONLY, 0, false).isOk());
    EXPECT_FALSE(fs::exists(outside_ + "/f"));
}

TEST_F(RootedFileTest, RootAndPathSpellingsNeedNotMatch) {
    const std::string doubled = top_ + "//root/";
    const auto fd = openInsideRoot(doubled, top_ + "/root/./a//f", O_WRONLY | O_CREAT, 0600, true);
    ASSERT_TRUE(fd.isOk()) << fd.status();
    close(*fd);
    EXPECT_TRUE(fs::exists(root_ + "/a/f"));
    const nnemu::Status made = makeDirectoriesInsideRoot(top_ + "/root", doubled + "b");
    EXPECT_TRUE(made.isOk()) << made;
    EXPECT_FALSE(openInsideRoot(top_ + "/root", top_ + "/rootx/f", O_WRONLY | O_CREAT, 0600, false).isOk());
}

TEST_F(RootedFileTest, TheRootItselfMayBeASymlink) {
    fs::create_symlink(root_, top_ + "/link");
    const auto fd = openInsideRoot(top_ + "/link", top_ + "/link/f", O_WRONLY | O_CREAT, 0600, false);
    ASSERT_TRUE(fd.isOk()) << fd.status();
    close(*fd);
    EXPECT_TRUE(fs::exists(root_ + "/f"));
}

TEST_F(RootedFileTest, MakesNestedDirectories) {
    ASSERT_TRUE(makeDirectoriesInsideRoot(root_, root_ + "/x/y/z").isOk());
    EXPECT_TRUE(fs::is_directory(root_ + "/x/y/z"));
    EXPECT_TRUE(makeDirectoriesInsideRoot(root_, root_ + "/x/y/z").isOk());
}

}  // namespace

// A fresh clone's root (build/device-root) does not exist yet: the first write makes it as named.
TEST(RootedFileRootTest, CreatesAMissingRootAndItsParents) {
    char pattern[] = "/tmp/nnemu-rooted-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string top = pattern, root = top + "/not/yet/root";
    EXPECT_TRUE(makeDirectoriesInsideRoot(root, root + "/sys/stats").isOk());
    EXPECT_TRUE(fs::is_directory(root + "/sys/stats"));
    fs::remove_all(top + "/not");
    const auto fd = openInsideRoot(root, root + "/a/file", O_WRONLY | O_CREAT, 0600, true);
    EXPECT_TRUE(fd.isOk()) << fd.status();
    if (fd.isOk()) close(*fd);
    // Without makeParents nothing is created.
    fs::remove_all(top + "/not");
    EXPECT_FALSE(openInsideRoot(root, root + "/a/file", O_WRONLY | O_CREAT, 0600, false).isOk());
    EXPECT_FALSE(fs::exists(top + "/not"));
    // A dangling link named as the root is not made into a directory somewhere else.
    fs::create_symlink(top + "/elsewhere", top + "/dangling");
    EXPECT_FALSE(makeDirectoriesInsideRoot(top + "/dangling", top + "/dangling/x").isOk());
    EXPECT_FALSE(fs::exists(top + "/elsewhere"));
    fs::remove_all(top);
}
