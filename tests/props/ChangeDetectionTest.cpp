// Readers see a change to the property files at the next call, whoever made it, without
// restarting: in-place edits, renames, deletions, and setprop in another process.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::PropsTest;

TEST_F(PropsTest, AnInPlaceRewriteOfTheSameSizeIsSeen) {
    device_.writeFile(kLocalPropPath, "vendor.NNAPI_SYNAP_DISABLE=0\n");
    EXPECT_FALSE(getBool("vendor.NNAPI_SYNAP_DISABLE", true));
    device_.writeFile(kLocalPropPath, "vendor.NNAPI_SYNAP_DISABLE=1\n");
    EXPECT_TRUE(getBool("vendor.NNAPI_SYNAP_DISABLE", false));
}

TEST_F(PropsTest, ARewriteThatKeepsInodeSizeAndMtimeIsStillSeen) {
    // The worst case for a stat check: coarse timestamps make a quick second write look identical.
    device_.writeFile(kLocalPropPath, "vendor.a=1\n");
    EXPECT_EQ(get("vendor.a"), "1");
    const std::string path = device_.hostPath(kLocalPropPath);
    struct stat before {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    device_.writeFile(kLocalPropPath, "vendor.a=2\n");
    const timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    EXPECT_EQ(get("vendor.a"), "2");
}

TEST_F(PropsTest, ARenamedReplacementIsSeen) {
    device_.writeFile(kBuildPropPath, "vendor.a=old\n");
    EXPECT_EQ(get("vendor.a"), "old");
    device_.writeFile("/vendor/build.prop.new", "vendor.a=new\n");
    std::filesystem::rename(device_.hostPath("/vendor/build.prop.new"), device_.hostPath(kBuildPropPath));
    EXPECT_EQ(get("vendor.a"), "new");
}

TEST_F(PropsTest, AnOldUnchangedFileKeepsItsValues) {
    device_.writeFile(kBuildPropPath, "vendor.a=1\n");
    // Age the file past the window in which it is re-read at every call.
    const std::string path = device_.hostPath(kBuildPropPath);
    const timespec anHourAgo{::time(nullptr) - 3600, 0};
    const timespec times[2] = {anHourAgo, anHourAgo};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(get("vendor.a"), "1");
    // ... and an edit after that is seen at once.
    device_.writeFile(kBuildPropPath, "vendor.a=22\n");
    EXPECT_EQ(get("vendor.a"), "22");
}

TEST_F(PropsTest, DeletingAFileRemovesItsProperties) {
    device_.writeFile(kBuildPropPath, "vendor.a=build\n");
    device_.writeFile(kLocalPropPath, "vendor.a=local\n");
    EXPECT_EQ(get("vendor.a"), "local");
    std::filesystem::remove(device_.hostPath(kLocalPropPath));
    EXPECT_EQ(get("vendor.a"), "build");
    std::filesystem::remove(device_.hostPath(kBuildPropPath));
    EXPECT_EQ(get("vendor.a"), std::nullopt);
}

TEST_F(PropsTest, SetpropFromAnotherProcessTakesEffectImmediately) {
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_PROFILE", "0"));
    EXPECT_FALSE(getBool("vendor.NNAPI_SYNAP_PROFILE", true));
    for (const char* value : {"1", "0", "1"}) {
        pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) ::_exit(set("vendor.NNAPI_SYNAP_PROFILE", value) ? 0 : 1);
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        EXPECT_EQ(get("vendor.NNAPI_SYNAP_PROFILE"), value);
    }
}

TEST_F(PropsTest, AChangedDeviceRootIsFollowed) {
    device_.writeFile(kLocalPropPath, "vendor.a=first\n");
    EXPECT_EQ(get("vendor.a"), "first");
    testing::TemporaryDeviceRoot other;  // points NNEMU_ROOT elsewhere while it lives
    other.writeFile(kLocalPropPath, "vendor.a=second\n");
    EXPECT_EQ(get("vendor.a"), "second");
}

}  // namespace
}  // namespace nnemu::props
