// Several processes running setprop at once: every update survives (no lost update), and readers
// never see a torn file.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

using testing::PropsTest;

constexpr int kProcesses = 4;
constexpr int kKeysPerProcess = 50;

std::string keyName(int process, int key) {
    return "vendor.writer" + std::to_string(process) + ".key" + std::to_string(key);
}

// Forks `count` children running `body(index)`; returns how many failed.
template <typename Body>
int runChildren(int count, Body body) {
    std::vector<pid_t> children;
    for (int i = 0; i < count; ++i) {
        pid_t child = ::fork();
        if (child < 0) return count;
        if (child == 0) ::_exit(body(i) ? 0 : 1);
        children.push_back(child);
    }
    int failed = 0;
    for (pid_t child : children) {
        int status = 0;
        if (::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
    }
    return failed;
}

TEST_F(PropsTest, ConcurrentWritersFromSeveralProcessesLoseNoUpdate) {
    int failed = runChildren(kProcesses, [](int process) {
        for (int key = 0; key < kKeysPerProcess; ++key) {
            if (!set(keyName(process, key), std::to_string(process * 1000 + key))) return false;
        }
        return true;
    });
    ASSERT_EQ(failed, 0);
    std::map<std::string, std::string> properties = all();
    EXPECT_EQ(properties.size(), size_t{kProcesses * kKeysPerProcess});
    for (int process = 0; process < kProcesses; ++process) {
        for (int key = 0; key < kKeysPerProcess; ++key) {
            EXPECT_EQ(properties[keyName(process, key)], std::to_string(process * 1000 + key))
                << keyName(process, key);
        }
    }
    // No temporary file survives.
    for (const auto& entry : std::filesystem::directory_iterator(device_.root() + "/data/property")) {
        const std::string name = entry.path().filename().string();
        EXPECT_TRUE(name == "local.prop" || name == "local.prop.lock") << name;
    }
}

TEST_F(PropsTest, ReadersDuringConcurrentWritesSeeWholeFiles) {
    ASSERT_TRUE(set("vendor.anchor", "present"));
    int failed = runChildren(kProcesses + 1, [](int index) {
        if (index == kProcesses) {
            // The reader: the anchor is in every version of the file, so a torn read would lose it.
            for (int i = 0; i < 400; ++i) {
                if (get("vendor.anchor") != "present") return false;
            }
            return true;
        }
        for (int key = 0; key < kKeysPerProcess; ++key) {
            if (!set(keyName(index, key), "v")) return false;
        }
        return true;
    });
    EXPECT_EQ(failed, 0);
    EXPECT_EQ(all().size(), size_t{kProcesses * kKeysPerProcess + 1});
}

}  // namespace
}  // namespace nnemu::props
