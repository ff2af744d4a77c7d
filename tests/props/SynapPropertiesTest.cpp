// The synap-npu driver's five properties: names, defaults, and the environment's precedence for
// the two cache settings.
#include <filesystem>
#include <string>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"
#include "nnemu/props/SynapProperties.h"

namespace nnemu::props {
namespace {

using testing::ScopedEnvironment;

class SynapPropertiesTest : public testing::PropsTest {
protected:
    ScopedEnvironment cachePathEnv_{"SYNAP_CACHE_PATH", nullptr};
    ScopedEnvironment cacheCapacityEnv_{"SYNAP_CACHE_CAPACITY", nullptr};
};

TEST_F(SynapPropertiesTest, NamesAndDefaultsAreTheBoards) {
    ASSERT_EQ(SynapProperties::kAll.size(), 5u);
    EXPECT_EQ(SynapProperties::kAll[0].name, "vendor.SYNAP_CACHE_PATH");
    EXPECT_EQ(SynapProperties::kAll[0].defaultValue, "/data/vendor/synap/nnhal.cache");
    EXPECT_EQ(SynapProperties::kAll[1].name, "vendor.SYNAP_CACHE_CAPACITY");
    EXPECT_EQ(SynapProperties::kAll[1].defaultValue, "10000");
    EXPECT_EQ(SynapProperties::kAll[2].name, "vendor.NNAPI_SYNAP_PROFILE");
    EXPECT_EQ(SynapProperties::kAll[2].defaultValue, "0");
    EXPECT_EQ(SynapProperties::kAll[3].name, "vendor.NNAPI_SYNAP_DISABLE");
    EXPECT_EQ(SynapProperties::kAll[3].defaultValue, "0");
    EXPECT_EQ(SynapProperties::kAll[4].name, "vendor.npu.cache.model");
    EXPECT_EQ(SynapProperties::kAll[4].defaultValue, "0");
    for (const PropertyInfo& info : SynapProperties::kAll) {
        EXPECT_TRUE(isValidName(info.name)) << info.name;
        EXPECT_FALSE(info.meaning.empty()) << info.name;
    }
}

TEST_F(SynapPropertiesTest, DefaultsWhenNothingIsSet) {
    EXPECT_EQ(SynapProperties::cachePath(), "/data/vendor/synap/nnhal.cache");
    EXPECT_EQ(SynapProperties::cacheFile(), device_.root() + "/data/vendor/synap/nnhal.cache");
    EXPECT_EQ(SynapProperties::cacheCapacity(), 10000);
    EXPECT_FALSE(SynapProperties::profile());
    EXPECT_FALSE(SynapProperties::disable());
    EXPECT_FALSE(SynapProperties::cacheModel());
}

TEST_F(SynapPropertiesTest, PropertiesAreReadAtEveryCall) {
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_PATH", "/data/local/tmp/my.cache"));
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_CAPACITY", "0"));
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_PROFILE", "1"));
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", "1"));
    ASSERT_TRUE(set("vendor.npu.cache.model", "1"));
    EXPECT_EQ(SynapProperties::cachePath(), "/data/local/tmp/my.cache");
    EXPECT_EQ(SynapProperties::cacheFile(), device_.root() + "/data/local/tmp/my.cache");
    EXPECT_EQ(SynapProperties::cacheCapacity(), 0);
    EXPECT_TRUE(SynapProperties::profile());
    EXPECT_TRUE(SynapProperties::disable());
    EXPECT_TRUE(SynapProperties::cacheModel());
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", "0"));
    EXPECT_FALSE(SynapProperties::disable());
}

TEST_F(SynapPropertiesTest, BuildPropDefaultsApplyUnderLocalProp) {
    device_.writeFile(kBuildPropPath, "vendor.SYNAP_CACHE_CAPACITY=500\nvendor.npu.cache.model=1\n");
    EXPECT_EQ(SynapProperties::cacheCapacity(), 500);
    EXPECT_TRUE(SynapProperties::cacheModel());
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_CAPACITY", "7"));
    EXPECT_EQ(SynapProperties::cacheCapacity(), 7);
}

TEST_F(SynapPropertiesTest, EnvironmentOverridesTheCacheProperties) {
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_PATH", "/data/vendor/synap/other.cache"));
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_CAPACITY", "20"));
    const std::string hostFile = device_.scratch() + "/synap_cache.bin";
    ScopedEnvironment path("SYNAP_CACHE_PATH", hostFile.c_str());
    ScopedEnvironment capacity("SYNAP_CACHE_CAPACITY", "1000");
    EXPECT_EQ(SynapProperties::cachePath(), hostFile);
    EXPECT_EQ(SynapProperties::cacheFile(), hostFile);  // a host path, not inside the root
    EXPECT_EQ(SynapProperties::cacheCapacity(), 1000);
}

TEST_F(SynapPropertiesTest, UnusableEnvironmentValuesAreIgnored) {
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_CAPACITY", "20"));
    for (const char* bad : {"", "lots", "-5", "12x"}) {
        ScopedEnvironment capacity("SYNAP_CACHE_CAPACITY", bad);
        EXPECT_EQ(SynapProperties::cacheCapacity(), 20) << bad;
    }
    ScopedEnvironment path("SYNAP_CACHE_PATH", "");
    EXPECT_EQ(SynapProperties::cachePath(), "/data/vendor/synap/nnhal.cache");
}

TEST_F(SynapPropertiesTest, GarbageCapacityGivesTheDefault) {
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_CAPACITY", "lots"));
    EXPECT_EQ(SynapProperties::cacheCapacity(), 10000);
    ASSERT_TRUE(set("vendor.SYNAP_CACHE_CAPACITY", "-1"));
    EXPECT_EQ(SynapProperties::cacheCapacity(), 10000);
}

TEST_F(SynapPropertiesTest, RelativeEnvironmentPathIsTheProcesssView) {
    ScopedEnvironment path("SYNAP_CACHE_PATH", "cache.bin");
    EXPECT_EQ(SynapProperties::cachePath(), "cache.bin");
    EXPECT_EQ(SynapProperties::cacheFile(), (std::filesystem::current_path() / "cache.bin").string());
}

}  // namespace
}  // namespace nnemu::props
