// The device root is a trust boundary for the property store: a symlink planted below the root
// (local.prop, build.prop, the lock, the property directory or a directory above it) is refused
// with an error naming it, and nothing outside the root is created, truncated, overwritten or
// chmod'ed. The files setprop creates get exact modes, whatever the umask.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "TemporaryDeviceRoot.h"
#include "nnemu/base/Log.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::succeeded;

using testing::PropsTest;

void writeOutside(const std::string& path, const std::string& text, mode_t mode) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

mode_t modeOf(const std::string& path) {
    struct stat info {};
    EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
    return info.st_mode;
}

bool isSymlink(const std::string& path) { return S_ISLNK(modeOf(path)); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class RootBoundaryTest : public PropsTest {
protected:
    void SetUp() override { std::filesystem::create_directories(propertyDirectory()); }
    std::string propertyDirectory() const { return device_.root() + "/data/property"; }
    std::string localProp() const { return device_.hostPath(kLocalPropPath); }
    std::string lock() const { return propertyDirectory() + "/local.prop.lock"; }
    std::string outside(const std::string& name) const { return device_.scratch() + "/" + name; }
    // The property directory holds exactly these names: no temporary file was left behind.
    void expectOnlyIn(const std::string& directory, std::set<std::string> names) {
        std::set<std::string> found;
        for (const auto& entry : std::filesystem::directory_iterator(directory)) {
            found.insert(entry.path().filename().string());
        }
        EXPECT_EQ(found, names) << directory;
    }
};

TEST_F(RootBoundaryTest, ASymlinkedLocalPropIsRefusedAndItsTargetUntouched) {
    writeOutside(outside("precious"), "vendor.a=outside\n", 0640);
    ASSERT_EQ(::symlink(outside("precious").c_str(), localProp().c_str()), 0);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_TRUE(contains(error, localProp())) << error;
    EXPECT_TRUE(contains(error, "symbolic link")) << error;
    EXPECT_EQ(contents(outside("precious")), "vendor.a=outside\n");
    EXPECT_EQ(modeOf(outside("precious")) & 07777, 0640u);
    EXPECT_TRUE(isSymlink(localProp()));
    // Readers do not follow it either: the file outside is no property file of this board.
    EXPECT_EQ(get("vendor.a"), std::nullopt);
    expectOnlyIn(propertyDirectory(), {"local.prop", "local.prop.lock"});
}

TEST_F(RootBoundaryTest, ADanglingSymlinkedLocalPropCreatesNothingOutside) {
    ASSERT_EQ(::symlink(outside("created").c_str(), localProp().c_str()), 0);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_TRUE(contains(error, "symbolic link")) << error;
    EXPECT_FALSE(std::filesystem::exists(outside("created")));
    expectOnlyIn(device_.scratch(), {});
}

TEST_F(RootBoundaryTest, ASymlinkedLockIsRefusedAndItsTargetUntouched) {
    writeOutside(outside("precious"), "do not truncate\n", 0640);
    ASSERT_EQ(::symlink(outside("precious").c_str(), lock().c_str()), 0);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_TRUE(contains(error, lock())) << error;
    EXPECT_TRUE(contains(error, "symbolic link")) << error;
    EXPECT_EQ(contents(outside("precious")), "do not truncate\n");
    EXPECT_EQ(modeOf(outside("precious")) & 07777, 0640u);
    EXPECT_FALSE(std::filesystem::exists(localProp()));

    ASSERT_EQ(::unlink(lock().c_str()), 0);
    ASSERT_EQ(::symlink(outside("created").c_str(), lock().c_str()), 0);
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_FALSE(std::filesystem::exists(outside("created")));
    expectOnlyIn(propertyDirectory(), {"local.prop.lock"});
}

TEST_F(RootBoundaryTest, AHardLinkedLockIsUsedButNeverChanged) {
    // O_NOFOLLOW cannot see a hard link: the lock is only opened and locked, never written or
    // chmod'ed, so the file it shares its inode with keeps its content and mode.
    writeOutside(outside("shared"), "content\n", 0640);
    ASSERT_EQ(::link(outside("shared").c_str(), lock().c_str()), 0);
    ASSERT_TRUE(set("vendor.a", "1"));
    EXPECT_EQ(contents(outside("shared")), "content\n");
    EXPECT_EQ(modeOf(outside("shared")) & 07777, 0640u);
}

TEST_F(RootBoundaryTest, ASymlinkedPropertyDirectoryIsRefused) {
    std::filesystem::remove(propertyDirectory());
    std::filesystem::create_directories(outside("elsewhere"));
    ASSERT_EQ(::symlink(outside("elsewhere").c_str(), propertyDirectory().c_str()), 0);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_TRUE(contains(error, propertyDirectory())) << error;
    EXPECT_TRUE(contains(error, "symbolic link")) << error;
    expectOnlyIn(outside("elsewhere"), {});
}

TEST_F(RootBoundaryTest, ASymlinkedDirectoryHigherUpIsRefused) {
    std::filesystem::remove_all(device_.root() + "/data");
    std::filesystem::create_directories(outside("data"));
    ASSERT_EQ(::symlink(outside("data").c_str(), (device_.root() + "/data").c_str()), 0);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_TRUE(contains(error, device_.root() + "/data")) << error;
    EXPECT_TRUE(contains(error, "symbolic link")) << error;
    expectOnlyIn(outside("data"), {});
    // A local.prop placed behind the link is not read either.
    std::filesystem::create_directories(outside("data/property"));
    writeOutside(outside("data/property/local.prop"), "vendor.a=outside\n", 0644);
    EXPECT_EQ(get("vendor.a"), std::nullopt);
}

TEST_F(RootBoundaryTest, ASymlinkedBuildPropIsNotReadAndSaidSoOnce) {
    writeOutside(outside("build.prop"), "vendor.a=outside\n", 0644);
    std::filesystem::create_directories(device_.root() + "/vendor");
    ASSERT_EQ(::symlink(outside("build.prop").c_str(), device_.hostPath(kBuildPropPath).c_str()), 0);
    ::testing::internal::CaptureStderr();
    for (int i = 0; i < 20; ++i) EXPECT_EQ(get("vendor.a"), std::nullopt);
    const std::string warnings = ::testing::internal::GetCapturedStderr();
    if (logEnabled(LogLevel::WARNING)) {
        EXPECT_EQ(warnings.rfind("WARNING: ignoring property file: " + device_.hostPath(kBuildPropPath), 0), 0u)
            << warnings;
        EXPECT_TRUE(contains(warnings, "symbolic link")) << warnings;
        EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << warnings;
    }
    // Unsetting consults build.prop; it still does not follow the link, nor write to it.
    EXPECT_TRUE(set("vendor.a", ""));
    EXPECT_EQ(contents(outside("build.prop")), "vendor.a=outside\n");
}

// Sets the process umask for the lifetime of the object.
class ScopedUmask {
public:
    explicit ScopedUmask(mode_t mask) : previous_(::umask(mask)) {}
    ~ScopedUmask() { ::umask(previous_); }

private:
    mode_t previous_;
};

TEST_F(PropsTest, LocalPropIs0644AndItsLock0600WhateverTheUmask) {
    for (mode_t mask : {mode_t{077}, mode_t{000}, mode_t{022}, mode_t{027}}) {
        testing::TemporaryDeviceRoot device;
        ScopedUmask umask(mask);
        ASSERT_TRUE(set("vendor.a", "1")) << std::oct << mask;
        ASSERT_TRUE(set("vendor.b", "2")) << std::oct << mask;  // a rewrite keeps the mode
        EXPECT_EQ(modeOf(device.hostPath(kLocalPropPath)) & 07777, 0644u) << std::oct << mask;
        EXPECT_EQ(modeOf(device.hostPath("/data/property/local.prop.lock")) & 07777, 0600u) << std::oct << mask;
        EXPECT_EQ(get("vendor.b"), "2");
    }
}

}  // namespace
}  // namespace nnemu::props
