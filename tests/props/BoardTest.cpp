// The board flavour (NNEMU_BOARD): a Yocto board reads and writes no property, and its SyNAP
// cache is the program's own file unless the environment says otherwise.
#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"
#include "nnemu/props/SynapProperties.h"

namespace nnemu::props {
namespace {

using testing::succeeded;

using testing::PropsTest;
using testing::ScopedEnvironment;

TEST_F(PropsTest, TheBoardIsAndroidUnlessNnemuBoardSaysYocto) {
    {
        ScopedEnvironment unset("NNEMU_BOARD", nullptr);
        EXPECT_EQ(board(), Board::ANDROID);
    }
    for (const char* yocto : {"yocto", "Yocto", "linux"}) {
        ScopedEnvironment board_("NNEMU_BOARD", yocto);
        EXPECT_EQ(board(), Board::YOCTO) << yocto;
    }
    ScopedEnvironment unknown("NNEMU_BOARD", "tizen");
    EXPECT_EQ(board(), Board::ANDROID);
}

TEST_F(PropsTest, AYoctoBoardHasNoPropertyService) {
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", "1"));
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_CAPACITY", "7"));
    ScopedEnvironment yocto("NNEMU_BOARD", "yocto");
    EXPECT_EQ(get("vendor.NNAPI_SYNAP_DISABLE"), std::nullopt);
    EXPECT_TRUE(all().empty());
    EXPECT_FALSE(SynapProperties::disable());
    EXPECT_FALSE(SynapProperties::cacheModel());
    EXPECT_EQ(SynapProperties::cacheCapacity(), SynapProperties::kDefaultCacheCapacity);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.NNAPI_SYNAP_DISABLE", "0"), error));
    EXPECT_EQ(error, kNoPropertyService);
}

TEST_F(PropsTest, AYoctoBoardCachesPerProgramUnlessTheEnvironmentSaysOtherwise) {
    ScopedEnvironment yocto("NNEMU_BOARD", "yocto");
    ScopedEnvironment noPath("SYNAP_CACHE_PATH", nullptr);
    ScopedEnvironment noCapacity("SYNAP_CACHE_CAPACITY", nullptr);
    EXPECT_EQ(programName(), "nnemu_props_tests");
    EXPECT_EQ(SynapProperties::cachePath(), "/tmp/synap-cache.nnemu_props_tests");
    EXPECT_EQ(SynapProperties::cacheFile(), device_.root() + "/tmp/synap-cache.nnemu_props_tests");
    ScopedEnvironment path("SYNAP_CACHE_PATH", (device_.scratch() + "/synap_cache.bin").c_str());
    ScopedEnvironment capacity("SYNAP_CACHE_CAPACITY", "1000");
    EXPECT_EQ(SynapProperties::cacheFile(), device_.scratch() + "/synap_cache.bin");
    EXPECT_EQ(SynapProperties::cacheCapacity(), 1000);
}

}  // namespace
}  // namespace nnemu::props
