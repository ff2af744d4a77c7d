// The statistics files as a user of the board reads them, with the NNAPI work done by separate
// application processes (nnemu_npu_client) and the settings changed with the setprop tool. Each
// test has its own device root and, beside it, a scratch folder for files outside the root.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace nnemu::synaptest {

class StatisticsFixture : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/nnemu-stats-test-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        top_ = pattern;
        root_ = top_ + "/root";
        scratch_ = top_ + "/outside";
        std::filesystem::create_directories(root_);
        std::filesystem::create_directories(scratch_);
        dir_ = root_ + "/sys/class/misc/synap/device/misc/synap/statistics/";
    }
    // Makes the processes this test starts emulate a Yocto board (its own statistics path).
    void useBoard(const std::string& board) {
        board_ = board;
        if (board == "yocto") dir_ = root_ + "/sys/class/misc/synap/statistics/";
    }
    void TearDown() override { std::filesystem::remove_all(top_); }

    struct Process {
        pid_t pid = -1;
        int toChild = -1;
        FILE* fromChild = nullptr;
        std::string errorsPath;  // the child's stderr
        int status = 0;          // waitpid's, once finished
    };

    // Starts `program` with NNEMU_ROOT set to this test's root.
    Process spawn(const std::vector<std::string>& arguments) {
        int in[2], out[2];
        EXPECT_EQ(pipe(in), 0);
        EXPECT_EQ(pipe(out), 0);
        Process process;
        process.errorsPath = scratch_ + "/stderr." + std::to_string(spawned_++);
        process.pid = fork();
        if (process.pid == 0) {
            dup2(in[0], 0);
            dup2(out[1], 1);
            if (FILE* errors = fopen(process.errorsPath.c_str(), "w")) dup2(fileno(errors), 2);
            close(in[1]);
            close(out[0]);
            setenv("NNEMU_ROOT", root_.c_str(), 1);
            setenv("NNEMU_BOARD", board_.c_str(), 1);
            std::vector<char*> argv;
            for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
            argv.push_back(nullptr);
            execve(argv[0], argv.data(), environ);
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        process.toChild = in[1];
        process.fromChild = fdopen(out[0], "r");
        return process;
    }
    // The exit code, or -1 when the process died of a signal (SIGBUS included). A process still
    // running after several minutes is hung: it is killed and the test fails, rather than ctest
    // timing out with no word.
    static int finish(Process& process) {
        if (process.toChild >= 0) close(process.toChild);
        process.toChild = -1;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
        while (waitpid(process.pid, &process.status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() > deadline) {
                ADD_FAILURE() << "process " << process.pid << " hangs; killing it";
                kill(process.pid, SIGKILL);
                waitpid(process.pid, &process.status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        fclose(process.fromChild);
        return WIFEXITED(process.status) ? WEXITSTATUS(process.status) : -1;
    }
    static void waitReady(Process& process) {
        char line[32] = {};
        ASSERT_NE(fgets(line, sizeof line, process.fromChild), nullptr);
        ASSERT_STREQ(line, "READY\n");
    }
    // Makes a held client run `runs` more inferences and waits until it has.
    static void runMore(Process& process, int runs) {
        const std::string command = "run " + std::to_string(runs) + "\n";
        ASSERT_EQ(::write(process.toChild, command.data(), command.size()), static_cast<ssize_t>(command.size()));
        waitReady(process);
    }
    int runClient(int runs, std::string* errors = nullptr) {
        Process process = spawn({NNEMU_NPU_CLIENT, "--runs", std::to_string(runs)});
        const int status = finish(process);
        if (errors != nullptr) *errors = readPath(process.errorsPath);
        return status;
    }
    void setprop(const std::string& name, const std::string& value) {
        Process process = spawn({NNEMU_SETPROP, name, value});
        ASSERT_EQ(finish(process), 0);
    }
    static std::string readPath(const std::string& path) {
        std::ifstream stream(path);
        std::stringstream text;
        text << stream.rdbuf();
        return text.str();
    }
    std::string read(const std::string& file) const { return readPath(dir_ + file); }
    void write(const std::string& file, const std::string& text) const { std::ofstream(dir_ + file) << text; }
    // The lines of `text` that contain `needle`.
    static int linesWith(const std::string& text, const std::string& needle) {
        std::istringstream lines(text);
        int found = 0;
        for (std::string line; std::getline(lines, line);) found += line.find(needle) != std::string::npos;
        return found;
    }

    std::string top_;
    std::string root_;
    std::string scratch_;
    std::string dir_;
    std::string board_ = "android";
    int spawned_ = 0;
};

inline const std::regex kNetworkLine(
        "pid: [0-9]+, nid: [0-9]+, inference_count: [0-9]+, inference_time: [0-9]+, inference_last: [0-9]+, "
        "iobuf_count: [0-9]+, iobuf_size: [0-9]+, layers: [0-9]+\n");

}  // namespace nnemu::synaptest
