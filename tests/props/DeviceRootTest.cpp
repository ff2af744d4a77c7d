// Where the device root is, and how Android paths resolve inside it.
#include <string>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::ScopedEnvironment;

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

}  // namespace
}  // namespace nnemu::props
