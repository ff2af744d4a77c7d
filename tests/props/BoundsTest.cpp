// Property files are bounded: a file over 1 MiB is refused whole, anything but a regular file
// (FIFO, socket, device, /proc) is never read and opening it never blocks, each refusal is said
// once per change of the file however often it is read, and a getter's unusable value is warned
// about once per value.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "PropertyFile.h"
#include "TemporaryDeviceRoot.h"
#include "nnemu/base/Log.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::succeeded;

using testing::PropsTest;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t lineCount(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

// Runs `reads` with stderr captured and returns what was logged.
template <typename Reads>
std::string warningsDuring(Reads reads) {
    ::testing::internal::CaptureStderr();
    reads();
    return ::testing::internal::GetCapturedStderr();
}

// "vendor.a=1\n" padded with a comment to exactly `size` bytes.
std::string fileOfSize(size_t size) {
    std::string text = "vendor.a=1\n#";
    text.append(size - text.size() - 1, 'x');
    text += '\n';
    return text;
}

class BoundsTest : public PropsTest {
protected:
    void SetUp() override {
        if (!logEnabled(LogLevel::WARNING)) GTEST_SKIP() << "NNEMU_LOG hides the warnings these tests count";
    }
};

TEST_F(BoundsTest, AFileOfTheLimitIsRead) {
    device_.writeFile(kBuildPropPath, fileOfSize(kMaxPropertyFileSize));
    EXPECT_EQ(warningsDuring([] { EXPECT_EQ(get("vendor.a"), "1"); }), "");
}

TEST_F(BoundsTest, AnOversizedFileIsRefusedWithOneWarningPerChange) {
    device_.writeFile(kBuildPropPath, fileOfSize(kMaxPropertyFileSize + 1));
    // The file was just written, so every call re-reads it (see kRacyWindowNs): one warning anyway.
    std::string warnings = warningsDuring([] {
        for (int i = 0; i < 50; ++i) EXPECT_EQ(get("vendor.a"), std::nullopt);
    });
    EXPECT_EQ(lineCount(warnings), 1u) << warnings;
    EXPECT_TRUE(contains(warnings, device_.hostPath(kBuildPropPath))) << warnings;
    EXPECT_TRUE(contains(warnings, "larger than 1 MiB")) << warnings;
    // Back under the limit it is read again; over it again, one more warning.
    device_.writeFile(kBuildPropPath, "vendor.a=2\n");
    EXPECT_EQ(warningsDuring([] { EXPECT_EQ(get("vendor.a"), "2"); }), "");
    device_.writeFile(kBuildPropPath, fileOfSize(2 * kMaxPropertyFileSize));
    warnings = warningsDuring([] {
        for (int i = 0; i < 50; ++i) EXPECT_EQ(get("vendor.a"), std::nullopt);
    });
    EXPECT_EQ(lineCount(warnings), 1u) << warnings;
}

TEST_F(BoundsTest, SetRefusesAnOversizedLocalPropAndLeavesIt) {
    const std::string text = fileOfSize(kMaxPropertyFileSize + 1);
    device_.writeFile(kLocalPropPath, text);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.b", "1"), error));
    EXPECT_TRUE(contains(error, "larger than 1 MiB")) << error;
    EXPECT_EQ(device_.readFile(kLocalPropPath), text);
}

TEST_F(BoundsTest, SetDoesNotGrowLocalPropPastTheLimit) {
    const std::string text = fileOfSize(kMaxPropertyFileSize - 4);
    device_.writeFile(kLocalPropPath, text);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.b", "1"), error));
    EXPECT_TRUE(contains(error, "would grow past")) << error;
    EXPECT_EQ(device_.readFile(kLocalPropPath), text);
    EXPECT_TRUE(succeeded(set("vendor.a", "2"), error)) << error;  // same size: fine
}

TEST_F(BoundsTest, AFifoIsNeitherReadNorWaitedOn) {
    // Opening a FIFO for reading blocks until a writer comes: a regression hangs here until the
    // test's timeout.
    device_.writeFile(kBuildPropPath, "vendor.a=build\n");
    std::filesystem::create_directories(device_.root() + "/data/property");
    ASSERT_EQ(::mkfifo(device_.hostPath(kLocalPropPath).c_str(), 0644), 0);
    std::string warnings = warningsDuring([] {
        for (int i = 0; i < 20; ++i) EXPECT_EQ(get("vendor.a"), "build");
    });
    EXPECT_EQ(lineCount(warnings), 1u) << warnings;
    EXPECT_TRUE(contains(warnings, device_.hostPath(kLocalPropPath) + " is a FIFO")) << warnings;
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_TRUE(contains(error, "is a FIFO")) << error;
}

TEST_F(BoundsTest, AFifoAsTheLockIsRefused) {
    std::filesystem::create_directories(device_.root() + "/data/property");
    ASSERT_EQ(::mkfifo((device_.root() + "/data/property/local.prop.lock").c_str(), 0600), 0);
    std::string error;
    EXPECT_FALSE(succeeded(set("vendor.a", "1"), error));
    EXPECT_TRUE(contains(error, "local.prop.lock is not a regular file")) << error;
    EXPECT_FALSE(std::filesystem::exists(device_.hostPath(kLocalPropPath)));
}

TEST_F(BoundsTest, ASocketIsNotRead) {
    std::filesystem::create_directories(device_.root() + "/vendor");
    const std::string path = device_.hostPath(kBuildPropPath);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) GTEST_SKIP() << "temporary path too long for a socket";
    path.copy(address.sun_path, path.size());
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    std::string warnings = warningsDuring([] {
        for (int i = 0; i < 20; ++i) EXPECT_TRUE(all().empty());
    });
    ::close(fd);
    EXPECT_EQ(lineCount(warnings), 1u) << warnings;
    EXPECT_TRUE(contains(warnings, path)) << warnings;
}

TEST(PropertyFileBounds, DevicesAndProcFilesAreNotRead) {
    const Result<PropertyFileText> device = readPropertyFile("/dev", "/dev/zero");
    EXPECT_FALSE(device.isOk());
    EXPECT_TRUE(contains(device.message(), "/dev/zero is a character device")) << device.message();
    if (!std::filesystem::exists("/proc/self/status")) GTEST_SKIP() << "no /proc";
    // /proc/self is a symlink; the root itself may be one, the files below it may not.
    const Result<PropertyFileText> pseudo = readPropertyFile("/proc/self", "/proc/self/status");
    EXPECT_FALSE(pseudo.isOk());
    EXPECT_TRUE(contains(pseudo.message(), "/proc/self/status is a /proc or /sys pseudo-file")) << pseudo.message();
}

TEST_F(BoundsTest, AnUnparsableBooleanIsWarnedAboutOncePerValue) {
    // A name no other test uses: warnings are remembered per process.
    const std::string name = "vendor.bounds_test.flag";
    device_.writeFile(kLocalPropPath, name + "=enabled\n");
    std::string warnings = warningsDuring([&] {
        for (int i = 0; i < 20; ++i) EXPECT_TRUE(getBool(name, true));
    });
    EXPECT_EQ(warnings, "WARNING: property " + name +
                            "=enabled is not a boolean (1/y/yes/on/true or 0/n/no/off/false); using true\n");
    device_.writeFile(kLocalPropPath, name + "=maybe\n");
    warnings = warningsDuring([&] {
        for (int i = 0; i < 20; ++i) EXPECT_FALSE(getBool(name, false));
    });
    EXPECT_EQ(lineCount(warnings), 1u) << warnings;
    EXPECT_TRUE(contains(warnings, name + "=maybe")) << warnings;
    // Android's words are no cause for a warning.
    device_.writeFile(kLocalPropPath, name + "=off\n");
    EXPECT_EQ(warningsDuring([&] { EXPECT_FALSE(getBool(name, true)); }), "");
}

}  // namespace
}  // namespace nnemu::props
