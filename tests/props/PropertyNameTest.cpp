// Android's rules for property names and values.
#include <string>

#include <gtest/gtest.h>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::succeeded;

TEST(PropertyName, ValidNames) {
    for (const char* name : {"a", "vendor.SYNAP_CACHE_PATH", "vendor.npu.cache.model", "persist.sys.x-y:z@1_2",
                             "0", "ro.build.version.sdk"}) {
        std::string error;
        EXPECT_TRUE(succeeded(isValidName(name), error)) << name << ": " << error;
    }
    EXPECT_TRUE(isValidName(std::string(256, 'n')));
}

TEST(PropertyName, InvalidNamesSayWhy) {
    const struct {
        std::string name;
        const char* reason;
    } cases[] = {
        {"", "empty"},
        {std::string(257, 'n'), "too long"},
        {".vendor", "start or end with '.'"},
        {"vendor.", "start or end with '.'"},
        {".", "start or end with '.'"},
        {"vendor..x", "'..'"},
        {"vendor x", "invalid character ' '"},
        {"vendor/x", "invalid character '/'"},
        {"vendor=x", "invalid character '='"},
        {"vendor#x", "invalid character '#'"},
        {"caf\xc3\xa9", "invalid character"},
        {std::string("a\0b", 3), "invalid character"},
    };
    for (const auto& c : cases) {
        std::string error;
        EXPECT_FALSE(succeeded(isValidName(c.name), error)) << c.name;
        EXPECT_NE(error.find(c.reason), std::string::npos) << c.name << " -> " << error;
    }
}

TEST(PropertyValue, LengthLimitIsPropValueMaxMinusOne) {
    EXPECT_TRUE(isValidValue(""));
    EXPECT_TRUE(isValidValue(std::string(91, 'v')));
    std::string error;
    EXPECT_FALSE(succeeded(isValidValue(std::string(92, 'v')), error));
    EXPECT_NE(error.find("too long; try '" + std::string(91, 'v') + "'"), std::string::npos) << error;
}

TEST(PropertyValue, NoLineBreaksNulOrSurroundingWhitespace) {
    EXPECT_TRUE(isValidValue("a b\tc"));
    EXPECT_TRUE(isValidValue("/data/vendor/synap/nnhal.cache"));
    EXPECT_TRUE(isValidValue("#not a comment"));
    EXPECT_FALSE(isValidValue("a\nb"));
    EXPECT_FALSE(isValidValue("a\rb"));
    EXPECT_FALSE(isValidValue(std::string("a\0b", 3)));
    EXPECT_FALSE(isValidValue(" a"));
    EXPECT_FALSE(isValidValue("a\t"));
}

}  // namespace
}  // namespace nnemu::props
