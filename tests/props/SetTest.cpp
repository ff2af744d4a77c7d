// set(): what setprop does to local.prop, and its failures.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "FilePermissionsApply.h"
#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::succeeded;

using testing::PropsTest;

std::vector<std::string> filesIn(const std::string& directory) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

TEST_F(PropsTest, SetCreatesTheDirectoriesAndTheFile) {
    std::string error;
    ASSERT_TRUE(succeeded(set("vendor.SYNAP_CACHE_CAPACITY", "42"), error)) << error;
    EXPECT_EQ(device_.readFile(kLocalPropPath), "vendor.SYNAP_CACHE_CAPACITY=42\n");
    EXPECT_EQ(getInt("vendor.SYNAP_CACHE_CAPACITY", 0), 42);
    // Only the file and its lock: no temporary file left behind.
    EXPECT_EQ(filesIn(device_.root() + "/data/property"), (std::vector<std::string>{"local.prop", "local.prop.lock"}));
    struct stat info {};
    ASSERT_EQ(::stat(device_.hostPath(kLocalPropPath).c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0644u);
}

TEST_F(PropsTest, SetReplacesInPlaceAndKeepsOtherLines) {
    device_.writeFile(kLocalPropPath,
                      "# written by hand\n"
                      "vendor.a=1\n"
                      "\n"
                      "vendor.b=2\n"
                      "something odd\n"
                      "vendor.a=3\n");
    ASSERT_TRUE(set("vendor.a", "9"));
    EXPECT_EQ(device_.readFile(kLocalPropPath),
              "# written by hand\n"
              "vendor.a=9\n"
              "\n"
              "vendor.b=2\n"
              "something odd\n");
    ASSERT_TRUE(set("vendor.c", "new value"));
    EXPECT_EQ(get("vendor.c"), "new value");
    EXPECT_EQ(get("vendor.b"), "2");
    EXPECT_EQ(get("vendor.a"), "9");
}

TEST_F(PropsTest, SettingTheSameValueAgainChangesNothing) {
    ASSERT_TRUE(set("vendor.a", "1"));
    const std::string path = device_.hostPath(kLocalPropPath);
    struct stat before {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    ASSERT_TRUE(set("vendor.a", "1"));
    struct stat after {};
    ASSERT_EQ(::stat(path.c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino);
}

TEST_F(PropsTest, SettingEmptyUnsets) {
    ASSERT_TRUE(set("vendor.a", "1"));
    ASSERT_TRUE(set("vendor.b", "2"));
    ASSERT_TRUE(set("vendor.a", ""));
    EXPECT_EQ(get("vendor.a"), std::nullopt);
    EXPECT_EQ(device_.readFile(kLocalPropPath), "vendor.b=2\n");
    EXPECT_EQ(all(), (std::map<std::string, std::string>{{"vendor.b", "2"}}));
    // Unsetting something never set is fine too.
    EXPECT_TRUE(set("vendor.never", ""));
}

TEST_F(PropsTest, SettingEmptyHidesABuildPropDefault) {
    device_.writeFile(kBuildPropPath, "vendor.NNAPI_SYNAP_DISABLE=1\n");
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", ""));
    EXPECT_EQ(get("vendor.NNAPI_SYNAP_DISABLE"), std::nullopt);
    EXPECT_TRUE(all().empty());
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", "0"));
    EXPECT_EQ(get("vendor.NNAPI_SYNAP_DISABLE"), "0");
}

TEST_F(PropsTest, InvalidNamesAndValuesAreRefusedAndNothingIsWritten) {
    std::string error;
    EXPECT_FALSE(succeeded(set("bad name", "1"), error));
    EXPECT_NE(error.find("invalid character ' '"), std::string::npos) << error;
    EXPECT_FALSE(succeeded(set("vendor.a", std::string(92, 'x')), error));
    EXPECT_NE(error.find("too long"), std::string::npos) << error;
    EXPECT_FALSE(succeeded(set("vendor.a", "two\nlines"), error));
    EXPECT_FALSE(succeeded(set("", "1"), error));
    EXPECT_FALSE(std::filesystem::exists(device_.root() + "/data"));
}

TEST_F(PropsTest, ARootThatIsAFileFailsClearly) {
    const std::string file = device_.scratch() + "/not-a-directory";
    std::ofstream(file) << "x";
    testing::ScopedEnvironment root("NNEMU_ROOT", file.c_str());
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_NE(error.find(file + "/data/property"), std::string::npos) << error;
    EXPECT_NE(error.find("not a directory"), std::string::npos) << error;
}

TEST_F(PropsTest, AReadOnlyRootFailsClearly) {
    ASSERT_EQ(::chmod(device_.root().c_str(), 0555), 0);
    std::string error;
    {
        testing::FilePermissionsApply asAnyone;  // CI runs as root
        ASSERT_TRUE(asAnyone.active());
        EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    }
    EXPECT_NE(error.find("Permission denied"), std::string::npos) << error;
    EXPECT_EQ(get("vendor.a"), std::nullopt);
}

TEST_F(PropsTest, AReadOnlyPropertyDirectoryFailsClearly) {
    ASSERT_TRUE(set("vendor.a", "1"));
    ASSERT_EQ(::chmod((device_.root() + "/data/property").c_str(), 0555), 0);
    std::string error;
    {
        testing::FilePermissionsApply asAnyone;
        ASSERT_TRUE(asAnyone.active());
        EXPECT_FALSE(succeeded(set("vendor.a", "2"), error));
    }
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(get("vendor.a"), "1");
}

TEST_F(PropsTest, ConcurrentSettersInOneProcessLoseNothing) {
    constexpr int kThreads = 4;
    constexpr int kKeys = 25;
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([t, &failures] {
            for (int k = 0; k < kKeys; ++k) {
                std::string name = "vendor.thread" + std::to_string(t) + ".key" + std::to_string(k);
                if (!set(name, std::to_string(k))) ++failures;
                if (get(name) != std::to_string(k)) ++failures;
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(all().size(), size_t{kThreads * kKeys});
}

}  // namespace
}  // namespace nnemu::props
