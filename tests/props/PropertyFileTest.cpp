// The property file format: comments, blank lines, whitespace, malformed lines, and the order in
// which build.prop and local.prop apply.
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "FilePermissionsApply.h"
#include "PropertyFile.h"
#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::PropsTest;
using Entries = std::vector<std::pair<std::string, std::string>>;

TEST(PropertyFileFormat, CommentsBlankLinesAndWhitespace) {
    std::vector<std::string> problems;
    Entries entries = parsePropertyText(
        "# a comment\n"
        "\n"
        "   \t\n"
        "  # an indented comment=with equals\n"
        "  ro.product.board =  synaptics  \n"
        "vendor.a=1\r\n"
        "vendor.b\t=\tx y z\n"
        "vendor.c=a=b\n"
        "vendor.empty=\n"
        "vendor.last=no newline",
        "build.prop", &problems);
    EXPECT_TRUE(problems.empty());
    EXPECT_EQ(entries, (Entries{{"ro.product.board", "synaptics"},
                                {"vendor.a", "1"},
                                {"vendor.b", "x y z"},
                                {"vendor.c", "a=b"},
                                {"vendor.empty", ""},
                                {"vendor.last", "no newline"}}));
}

TEST(PropertyFileFormat, MalformedLinesAreSkippedWithOneMessageEachNamingFileAndLine) {
    std::vector<std::string> problems;
    const std::string longValue(92, 'v');
    Entries entries = parsePropertyText(
        "vendor.ok=1\n"
        "no equals sign here\n"
        "bad name=1\n"
        "=value without a name\n"
        ".leading.dot=1\n"
        "vendor..twice=1\n"
        "vendor.long=" + longValue + "\n"
        "vendor.also_ok=2\n",
        "/x/local.prop", &problems);
    EXPECT_EQ(entries, (Entries{{"vendor.ok", "1"}, {"vendor.also_ok", "2"}}));
    ASSERT_EQ(problems.size(), 6u);
    for (size_t i = 0; i < problems.size(); ++i) {
        EXPECT_EQ(problems[i].rfind("/x/local.prop:" + std::to_string(i + 2) + ": ", 0), 0u) << problems[i];
    }
    EXPECT_NE(problems[0].find("no '='"), std::string::npos) << problems[0];
    EXPECT_NE(problems[1].find("invalid character ' '"), std::string::npos) << problems[1];
}

TEST(PropertyFileFormat, LineKinds) {
    EXPECT_EQ(parsePropertyLine("").kind, PropertyLine::Kind::kBlankOrComment);
    EXPECT_EQ(parsePropertyLine("#x=1").kind, PropertyLine::Kind::kBlankOrComment);
    EXPECT_EQ(parsePropertyLine("x").kind, PropertyLine::Kind::kMalformed);
    PropertyLine entry = parsePropertyLine(" x = 1 ");
    EXPECT_EQ(entry.kind, PropertyLine::Kind::kEntry);
    EXPECT_EQ(entry.name, "x");
    EXPECT_EQ(entry.value, "1");
}

TEST_F(PropsTest, MissingFilesMeanNoProperties) {
    EXPECT_TRUE(all().empty());
    EXPECT_EQ(get("vendor.anything"), std::nullopt);
}

TEST_F(PropsTest, LocalPropOverridesBuildProp) {
    device_.writeFile(kBuildPropPath,
                      "# device defaults\n"
                      "vendor.SYNAP_CACHE_CAPACITY=10000\n"
                      "vendor.only_in_build=b\n"
                      "vendor.masked=m\n");
    device_.writeFile(kLocalPropPath,
                      "vendor.SYNAP_CACHE_CAPACITY=5\n"
                      "vendor.only_in_local=l\n"
                      "vendor.masked=\n");
    EXPECT_EQ(get("vendor.SYNAP_CACHE_CAPACITY"), "5");
    EXPECT_EQ(get("vendor.only_in_build"), "b");
    EXPECT_EQ(get("vendor.only_in_local"), "l");
    // An empty value in a later file hides the earlier one: empty reads as unset.
    EXPECT_EQ(get("vendor.masked"), std::nullopt);
    EXPECT_EQ(all(), (std::map<std::string, std::string>{{"vendor.SYNAP_CACHE_CAPACITY", "5"},
                                                         {"vendor.only_in_build", "b"},
                                                         {"vendor.only_in_local", "l"}}));
}

TEST_F(PropsTest, TheLastDuplicateInAFileWins) {
    device_.writeFile(kLocalPropPath, "vendor.a=1\nvendor.a=2\n");
    EXPECT_EQ(get("vendor.a"), "2");
}

TEST_F(PropsTest, GarbageLinesDoNotHideTheRest) {
    device_.writeFile(kBuildPropPath, "garbage\nvendor.a=1\n\x01\x02\x03\nvendor.b=2\n");
    EXPECT_EQ(all(), (std::map<std::string, std::string>{{"vendor.a", "1"}, {"vendor.b", "2"}}));
}

TEST_F(PropsTest, AnUnreadableFileCountsAsEmpty) {
    device_.writeFile(kBuildPropPath, "vendor.a=1\n");
    std::filesystem::create_directories(device_.hostPath(kLocalPropPath));  // a directory, not a file
    EXPECT_EQ(get("vendor.a"), "1");
}

TEST_F(PropsTest, AFileWithoutReadPermissionCountsAsEmpty) {
    device_.writeFile(kBuildPropPath, "vendor.a=1\n");
    device_.writeFile(kLocalPropPath, "vendor.a=2\nvendor.b=3\n");
    ASSERT_EQ(::chmod(device_.hostPath(kLocalPropPath).c_str(), 0), 0);
    testing::FilePermissionsApply asAnyone;  // CI runs as root
    ASSERT_TRUE(asAnyone.active());
    EXPECT_EQ(get("vendor.a"), "1");
    EXPECT_EQ(get("vendor.b"), std::nullopt);
}

}  // namespace
}  // namespace nnemu::props
