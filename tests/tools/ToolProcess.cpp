#include "ToolProcess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

extern char** environ;

namespace nnemu::tooltest {
namespace {

std::string readAll(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

}  // namespace

std::vector<std::string> ToolRun::errLines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::string makeTempDir(const std::string& name) {
    static std::atomic<int> counter{0};
    const std::string path = testing::TempDir() + "/nnemu_tools_" + std::to_string(getpid()) + "_" + name + "_" +
                             std::to_string(counter++);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    return path;
}

ToolRun runTool(const std::string& program, const std::vector<std::string>& args, const std::string& deviceRoot,
                const std::vector<std::string>& environment) {
    const std::string dir = makeTempDir("run");
    const std::string outPath = dir + "/stdout", errPath = dir + "/stderr";

    std::vector<std::string> argStorage = {program};
    argStorage.insert(argStorage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argStorage) argv.push_back(arg.data());
    argv.push_back(nullptr);

    std::vector<std::string> envStorage;
    auto changed = [&](const std::string& entry) {
        for (const std::string& change : environment) {
            if (entry.rfind(change.substr(0, change.find('=')) + "=", 0) == 0) return true;
        }
        return false;
    };
    for (char** e = environ; *e != nullptr; ++e) {
        if (!deviceRoot.empty() && std::string(*e).rfind("NNEMU_ROOT=", 0) == 0) continue;
        if (changed(*e)) continue;
        envStorage.emplace_back(*e);
    }
    if (!deviceRoot.empty()) envStorage.push_back("NNEMU_ROOT=" + deviceRoot);
    for (const std::string& change : environment) {
        if (change.find('=') != std::string::npos) envStorage.push_back(change);
    }
    std::vector<char*> envp;
    for (std::string& entry : envStorage) envp.push_back(entry.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    ToolRun run;
    const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        run.err = "cannot start " + program;
        return run;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) run.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    run.out = readAll(outPath);
    run.err = readAll(errPath);
    std::filesystem::remove_all(dir);
    return run;
}

}  // namespace nnemu::tooltest
