// The typed getters follow android::base: GetProperty, GetIntProperty, GetBoolProperty.
#include <cstdint>
#include <limits>
#include <string>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::PropsTest;

class PropertyGettersTest : public PropsTest {
protected:
    void setValue(const std::string& value) { device_.writeFile(kLocalPropPath, "vendor.p=" + value + "\n"); }
};

TEST_F(PropertyGettersTest, GetWithFallback) {
    EXPECT_EQ(get("vendor.p", "fallback"), "fallback");
    setValue("value");
    EXPECT_EQ(get("vendor.p", "fallback"), "value");
    EXPECT_EQ(get("vendor.p"), "value");
    setValue("");
    EXPECT_EQ(get("vendor.p", "fallback"), "fallback");
    EXPECT_EQ(get("vendor.p"), std::nullopt);
}

TEST_F(PropertyGettersTest, InvalidNamesReadAsUnset) {
    device_.writeFile(kLocalPropPath, "vendor.p=1\n");
    EXPECT_EQ(get(""), std::nullopt);
    EXPECT_EQ(get("vendor..p"), std::nullopt);
    EXPECT_EQ(get("vendor.p ", "f"), "f");
}

TEST_F(PropertyGettersTest, GetInt) {
    EXPECT_EQ(getInt("vendor.p", 7), 7);
    const struct {
        const char* text;
        int64_t expected;
    } cases[] = {
        {"42", 42},
        {"-7", -7},
        {"+5", 5},
        {"0", 0},
        {"0x10", 16},
        {"0X1f", 31},
        {"010", 10},  // android::base::ParseInt has no octal
        {"9223372036854775807", std::numeric_limits<int64_t>::max()},
        {"-9223372036854775808", std::numeric_limits<int64_t>::min()},
        {"abc", -1},
        {"12abc", -1},
        {"1.5", -1},
        {"0x", -1},
        {"-0x10", -1},
        {"99999999999999999999", -1},
        {"1 2", -1},
    };
    for (const auto& c : cases) {
        setValue(c.text);
        EXPECT_EQ(getInt("vendor.p", -1), c.expected) << c.text;
    }
}

TEST_F(PropertyGettersTest, GetBoolUsesAndroidsWords) {
    for (const char* word : {"1", "y", "yes", "on", "true"}) {
        setValue(word);
        EXPECT_TRUE(getBool("vendor.p", false)) << word;
        EXPECT_TRUE(getBool("vendor.p", true)) << word;
    }
    for (const char* word : {"0", "n", "no", "off", "false"}) {
        setValue(word);
        EXPECT_FALSE(getBool("vendor.p", false)) << word;
        EXPECT_FALSE(getBool("vendor.p", true)) << word;
    }
    // Anything else, case included, is the fallback.
    for (const char* word : {"2", "TRUE", "Yes", "enabled", "-1", "tru"}) {
        setValue(word);
        EXPECT_FALSE(getBool("vendor.p", false)) << word;
        EXPECT_TRUE(getBool("vendor.p", true)) << word;
    }
    setValue("");
    EXPECT_TRUE(getBool("vendor.p", true));
    EXPECT_FALSE(getBool("vendor.missing", false));
    EXPECT_TRUE(getBool("vendor.missing", true));
}

}  // namespace
}  // namespace nnemu::props
