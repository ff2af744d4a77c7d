// The real setprop and getprop executables, each run in its own process, as a user runs them.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

extern char** environ;

namespace nnemu::props {
namespace {

struct ToolRun {
    int exitStatus = -1;
    std::string out;
    std::string err;
};

class SetpropGetpropTest : public testing::PropsTest {
protected:
    ToolRun run(const char* tool, std::vector<std::string> arguments) {
        const std::string outPath = device_.scratch() + "/stdout";
        const std::string errPath = device_.scratch() + "/stderr";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<char*> argv{const_cast<char*>(tool)};
        for (std::string& argument : arguments) argv.push_back(argument.data());
        argv.push_back(nullptr);
        ToolRun result;
        pid_t pid = -1;
        int spawned = posix_spawn(&pid, tool, &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (spawned != 0) {
            ADD_FAILURE() << "cannot run " << tool;
            return result;
        }
        int status = 0;
        if (waitpid(pid, &status, 0) == pid && WIFEXITED(status)) result.exitStatus = WEXITSTATUS(status);
        result.out = slurp(outPath);
        result.err = slurp(errPath);
        return result;
    }

    static std::string slurp(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    static constexpr const char* kSetprop = NNEMU_SETPROP_PATH;
    static constexpr const char* kGetprop = NNEMU_GETPROP_PATH;
};

TEST_F(SetpropGetpropTest, SetpropThenGetpropInSeparateProcesses) {
    ToolRun set = run(kSetprop, {"vendor.NNAPI_SYNAP_DISABLE", "1"});
    EXPECT_EQ(set.exitStatus, 0) << set.err;
    EXPECT_EQ(set.out, "");
    EXPECT_EQ(set.err, "");
    ToolRun get = run(kGetprop, {"vendor.NNAPI_SYNAP_DISABLE"});
    EXPECT_EQ(get.exitStatus, 0);
    EXPECT_EQ(get.out, "1\n");
    // And the library in this process sees the tool's write.
    EXPECT_TRUE(getBool("vendor.NNAPI_SYNAP_DISABLE", false));
    // A later setprop wins at once.
    ASSERT_EQ(run(kSetprop, {"vendor.NNAPI_SYNAP_DISABLE", "0"}).exitStatus, 0);
    EXPECT_EQ(run(kGetprop, {"vendor.NNAPI_SYNAP_DISABLE"}).out, "0\n");
}

// getprop --faults: the fault properties set, each with what it does or why it is ignored.
TEST_F(SetpropGetpropTest, GetpropListsTheFaultPropertiesInForce) {
    EXPECT_EQ(run(kGetprop, {"--faults"}).out, "");
    ASSERT_EQ(run(kSetprop, {"vendor.nnemu.fault.execute", "DEAD_OBJECT@3"}).exitStatus, 0);
    ASSERT_EQ(run(kSetprop, {"vendor.nnemu.fault.cpu.jit", "OP_FAILED"}).exitStatus, 0);
    ASSERT_EQ(run(kSetprop, {"vendor.nnemu.fault.prepare", "OP_FAILED~2"}).exitStatus, 0);
    ASSERT_EQ(run(kSetprop, {"vendor.NNAPI_SYNAP_PROFILE", "1"}).exitStatus, 0);
    ToolRun faults = run(kGetprop, {"--faults"});
    EXPECT_EQ(faults.exitStatus, 0) << faults.err;
    EXPECT_EQ(faults.out,
              "[vendor.nnemu.fault.cpu.jit]: [OP_FAILED] ignored: nnapi-reference has no fault point jit (it has "
              "prepare, execute and fence)\n"
              "[vendor.nnemu.fault.execute]: [DEAD_OBJECT@3] synap-npu: each execution of a prepared model (each "
              "partition run)\n"
              "[vendor.nnemu.fault.prepare]: [OP_FAILED~2] ignored: the probability after ~ must be a number from 0 "
              "to 1\n");
    // Any other argument with it is toybox's usage error.
    EXPECT_EQ(run(kGetprop, {"--faults", "x"}).exitStatus, 1);
}

// A Yocto board has no Android property service: both tools refuse, and the files stay as they were.
TEST_F(SetpropGetpropTest, BothRefuseOnAYoctoBoard) {
    ASSERT_EQ(run(kSetprop, {"vendor.NNAPI_SYNAP_DISABLE", "1"}).exitStatus, 0);
    const std::string before = device_.readFile(kLocalPropPath);
    testing::ScopedEnvironment yocto("NNEMU_BOARD", "yocto");
    const ToolRun set = run(kSetprop, {"vendor.NNAPI_SYNAP_DISABLE", "0"});
    EXPECT_EQ(set.exitStatus, 1);
    EXPECT_EQ(set.err, "setprop: failed to set property 'vendor.NNAPI_SYNAP_DISABLE' to '0': a Yocto board has no "
                       "Android property service (NNEMU_BOARD=yocto)\n");
    const ToolRun get = run(kGetprop, {"vendor.NNAPI_SYNAP_DISABLE"});
    EXPECT_EQ(get.exitStatus, 1);
    EXPECT_EQ(get.out, "");
    EXPECT_EQ(get.err, "getprop: a Yocto board has no Android property service (NNEMU_BOARD=yocto)\n");
    EXPECT_EQ(device_.readFile(kLocalPropPath), before);
}

TEST_F(SetpropGetpropTest, GetpropListsEveryPropertySortedInBrackets) {
    device_.writeFile(kBuildPropPath, "ro.board.platform=dolphin\nvendor.SYNAP_CACHE_CAPACITY=10000\n");
    ASSERT_EQ(run(kSetprop, {"vendor.npu.cache.model", "1"}).exitStatus, 0);
    ASSERT_EQ(run(kSetprop, {"vendor.SYNAP_CACHE_CAPACITY", "0"}).exitStatus, 0);
    ASSERT_EQ(run(kSetprop, {"vendor.NNAPI_SYNAP_PROFILE", "1"}).exitStatus, 0);
    ToolRun list = run(kGetprop, {});
    EXPECT_EQ(list.exitStatus, 0);
    EXPECT_EQ(list.out,
              "[ro.board.platform]: [dolphin]\n"
              "[vendor.NNAPI_SYNAP_PROFILE]: [1]\n"
              "[vendor.SYNAP_CACHE_CAPACITY]: [0]\n"
              "[vendor.npu.cache.model]: [1]\n");
    EXPECT_EQ(list.err, "");
}

TEST_F(SetpropGetpropTest, GetpropOfAnUnsetPropertyPrintsTheDefaultOrAnEmptyLine) {
    ToolRun missing = run(kGetprop, {"vendor.unset"});
    EXPECT_EQ(missing.exitStatus, 0);
    EXPECT_EQ(missing.out, "\n");
    ToolRun fallback = run(kGetprop, {"vendor.unset", "10000"});
    EXPECT_EQ(fallback.exitStatus, 0);
    EXPECT_EQ(fallback.out, "10000\n");
    ASSERT_EQ(run(kSetprop, {"vendor.set", "x"}).exitStatus, 0);
    EXPECT_EQ(run(kGetprop, {"vendor.set", "10000"}).out, "x\n");
    // A negative value needs no "--".
    ASSERT_EQ(run(kSetprop, {"vendor.negative", "-1"}).exitStatus, 0);
    EXPECT_EQ(run(kGetprop, {"vendor.negative"}).out, "-1\n");
}

TEST_F(SetpropGetpropTest, SetpropWithAnEmptyValueUnsets) {
    ASSERT_EQ(run(kSetprop, {"vendor.a", "1"}).exitStatus, 0);
    ASSERT_EQ(run(kSetprop, {"vendor.a", ""}).exitStatus, 0);
    EXPECT_EQ(run(kGetprop, {"vendor.a", "gone"}).out, "gone\n");
    EXPECT_EQ(run(kGetprop, {}).out, "");
}

TEST_F(SetpropGetpropTest, SetpropRefusesBadNamesAndValues) {
    ToolRun badName = run(kSetprop, {"vendor..x", "1"});
    EXPECT_EQ(badName.exitStatus, 1);
    EXPECT_EQ(badName.err, "setprop: '..' is not allowed in a property name\n");
    ToolRun badCharacter = run(kSetprop, {"vendor/x", "1"});
    EXPECT_EQ(badCharacter.exitStatus, 1);
    EXPECT_EQ(badCharacter.err, "setprop: invalid character '/' in name 'vendor/x'\n");
    ToolRun longValue = run(kSetprop, {"vendor.x", std::string(92, 'v')});
    EXPECT_EQ(longValue.exitStatus, 1);
    EXPECT_NE(longValue.err.find("setprop: value '"), std::string::npos) << longValue.err;
    EXPECT_NE(longValue.err.find("too long"), std::string::npos) << longValue.err;
    EXPECT_EQ(run(kGetprop, {}).out, "");
}

TEST_F(SetpropGetpropTest, WrongArgumentCountsPrintUsageAndExit1) {
    for (const auto& arguments : std::vector<std::vector<std::string>>{{}, {"vendor.a"}, {"a", "b", "c"}}) {
        ToolRun setprop = run(kSetprop, arguments);
        EXPECT_EQ(setprop.exitStatus, 1);
        EXPECT_EQ(setprop.out, "");
        EXPECT_EQ(setprop.err.rfind("usage: setprop NAME VALUE\n", 0), 0u) << setprop.err;
    }
    EXPECT_NE(run(kSetprop, {"a"}).err.find("setprop: Need 2 arguments\n"), std::string::npos);
    EXPECT_NE(run(kSetprop, {"a", "b", "c"}).err.find("setprop: Max 2 arguments\n"), std::string::npos);
    ToolRun getprop = run(kGetprop, {"a", "b", "c"});
    EXPECT_EQ(getprop.exitStatus, 1);
    EXPECT_EQ(getprop.out, "");
    EXPECT_EQ(getprop.err.rfind("usage: getprop [NAME [DEFAULT]]\n", 0), 0u) << getprop.err;
    EXPECT_NE(getprop.err.find("getprop: Max 2 arguments\n"), std::string::npos) << getprop.err;
    ToolRun unknownOption = run(kGetprop, {"-q"});
    EXPECT_EQ(unknownOption.exitStatus, 1);
    EXPECT_NE(unknownOption.err.find("getprop: Unknown option 'q'\n"), std::string::npos) << unknownOption.err;
}

TEST_F(SetpropGetpropTest, HelpGoesToStdoutAndSucceeds) {
    ToolRun help = run(kGetprop, {"--help"});
    EXPECT_EQ(help.exitStatus, 0);
    EXPECT_EQ(help.out, "usage: getprop [NAME [DEFAULT]]\n\nGets an Android system property, or lists them all.\n");
    ToolRun setHelp = run(kSetprop, {"--help"});
    EXPECT_EQ(setHelp.exitStatus, 0);
    EXPECT_EQ(setHelp.out.rfind("usage: setprop NAME VALUE\n", 0), 0u);
}

TEST_F(SetpropGetpropTest, SetpropIntoAnUnwritableRootFailsCleanly) {
    const std::string file = device_.scratch() + "/plain-file";
    std::ofstream(file) << "x";
    testing::ScopedEnvironment root("NNEMU_ROOT", file.c_str());
    ToolRun set = run(kSetprop, {"vendor.a", "1"});
    EXPECT_EQ(set.exitStatus, 1);
    EXPECT_EQ(set.err.rfind("setprop: failed to set property 'vendor.a' to '1': cannot create directory ", 0), 0u)
        << set.err;
    ToolRun get = run(kGetprop, {"vendor.a"});
    EXPECT_EQ(get.exitStatus, 0);
    EXPECT_EQ(get.out, "\n");
}

TEST_F(SetpropGetpropTest, SetpropRefusesASymlinkPlantedInTheRoot) {
    const std::string target = device_.scratch() + "/target";
    std::ofstream(target) << "vendor.a=outside\n";
    std::filesystem::create_directories(device_.root() + "/data/property");
    ASSERT_EQ(::symlink(target.c_str(), device_.hostPath(kLocalPropPath).c_str()), 0);
    ToolRun set = run(kSetprop, {"vendor.a", "1"});
    EXPECT_EQ(set.exitStatus, 1);
    EXPECT_EQ(set.err, "setprop: failed to set property 'vendor.a' to '1': " + device_.hostPath(kLocalPropPath) +
                           " is a symbolic link; refusing to follow it out of the device root\n");
    EXPECT_EQ(slurp(target), "vendor.a=outside\n");
    ToolRun get = run(kGetprop, {"vendor.a"});
    EXPECT_EQ(get.out, "\n");
}

TEST_F(SetpropGetpropTest, GetpropWarnsAboutAMalformedLineAndGoesOn) {
    device_.writeFile(kBuildPropPath, "vendor.a=1\nthis line is broken\nvendor.b=2\n");
    ToolRun list = run(kGetprop, {});
    EXPECT_EQ(list.exitStatus, 0);
    EXPECT_EQ(list.out, "[vendor.a]: [1]\n[vendor.b]: [2]\n");
    EXPECT_NE(list.err.find("WARNING: " + device_.hostPath(kBuildPropPath) + ":2: "), std::string::npos) << list.err;
}

}  // namespace
}  // namespace nnemu::props
