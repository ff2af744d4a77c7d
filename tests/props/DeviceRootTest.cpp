// Where the device root is, and how Android paths resolve inside it.
#include <filesystem>
#include <string>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::succeeded;

using testing::ScopedEnvironment;
using testing::TemporaryDeviceRoot;

// Changes the current directory for the lifetime of the object, then changes it back.
class ScopedDirectory {
public:
    explicit ScopedDirectory(const std::filesystem::path& to) : previous_(std::filesystem::current_path()) {
        std::filesystem::current_path(to);
    }
    ~ScopedDirectory() {
        std::error_code ignored;
        std::filesystem::current_path(previous_, ignored);
    }

private:
    std::filesystem::path previous_;
};

TEST(DeviceRoot, NnemuRootWins) {
    ScopedEnvironment root("NNEMU_ROOT", "/srv/board/");
    ScopedEnvironment state("XDG_STATE_HOME", "/state");
    EXPECT_EQ(deviceRoot(), "/srv/board");
}

TEST(DeviceRoot, XdgStateHomeThenHome) {
    ScopedEnvironment root("NNEMU_ROOT", nullptr);
    ScopedEnvironment home("HOME", "/home/user");
    {
        ScopedEnvironment state("XDG_STATE_HOME", "/state");
        EXPECT_EQ(deviceRoot(), "/state/nnemu");
    }
    {
        ScopedEnvironment state("XDG_STATE_HOME", nullptr);
        EXPECT_EQ(deviceRoot(), "/home/user/.local/state/nnemu");
    }
    {
        // The XDG spec: a relative path is invalid and ignored; so is an empty one.
        ScopedEnvironment state("XDG_STATE_HOME", "relative/state");
        EXPECT_EQ(deviceRoot(), "/home/user/.local/state/nnemu");
        ScopedEnvironment empty("XDG_STATE_HOME", "");
        EXPECT_EQ(deviceRoot(), "/home/user/.local/state/nnemu");
    }
    {
        ScopedEnvironment emptyRoot("NNEMU_ROOT", "");
        ScopedEnvironment state("XDG_STATE_HOME", nullptr);
        EXPECT_EQ(deviceRoot(), "/home/user/.local/state/nnemu");
    }
}

TEST(DevicePath, AndroidPathsResolveInsideTheRoot) {
    ScopedEnvironment root("NNEMU_ROOT", "/srv/board");
    EXPECT_EQ(devicePath("/data/vendor/synap/nnhal.cache"), "/srv/board/data/vendor/synap/nnhal.cache");
    EXPECT_EQ(devicePath("/sys/class/misc/synap/statistics/inference_count"),
              "/srv/board/sys/class/misc/synap/statistics/inference_count");
    EXPECT_EQ(devicePath("data/local/tmp"), "/srv/board/data/local/tmp");
    EXPECT_EQ(devicePath("//data/./local//tmp"), "/srv/board/data/local/tmp");
    EXPECT_EQ(devicePath("/"), "/srv/board");
    EXPECT_EQ(devicePath(""), "/srv/board");
}

TEST(DevicePath, DotDotNeverLeavesTheRoot) {
    ScopedEnvironment root("NNEMU_ROOT", "/srv/board");
    EXPECT_EQ(devicePath("/../../etc/passwd"), "/srv/board/etc/passwd");
    EXPECT_EQ(devicePath("/data/../../etc"), "/srv/board/etc");
    EXPECT_EQ(devicePath("/data/x/../y"), "/srv/board/data/y");
}

// A relative NNEMU_ROOT names a folder below the current directory; property files there are read
// and written (RootedFile walks need an absolute root), and a later chdir does not move the root.
TEST(DeviceRoot, RelativeRootIsResolvedOnceAgainstTheCurrentDirectory) {
    TemporaryDeviceRoot device;
    device.writeFile(kLocalPropPath, "vendor.relative=yes\n");
    const std::filesystem::path absolute = device.root();
    ScopedDirectory here(absolute.parent_path());
    ScopedEnvironment root("NNEMU_ROOT", (absolute.filename().string() + "/").c_str());
    EXPECT_EQ(deviceRoot().front(), '/');
    EXPECT_TRUE(std::filesystem::equivalent(deviceRoot(), absolute)) << deviceRoot();
    EXPECT_EQ(get("vendor.relative", "unset"), "yes");
    std::string error;
    EXPECT_TRUE(succeeded(set("vendor.written", "1"), error)) << error;
    EXPECT_NE(device.readFile(kLocalPropPath).find("vendor.written=1"), std::string::npos);

    ScopedDirectory elsewhere("/");
    EXPECT_TRUE(std::filesystem::equivalent(deviceRoot(), absolute)) << deviceRoot();
    EXPECT_EQ(get("vendor.written", "unset"), "1");
}

}  // namespace
}  // namespace nnemu::props
