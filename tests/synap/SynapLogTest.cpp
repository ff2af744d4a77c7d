// The driver's own messages: the board's line format and SYNAP_NB_LOG_LEVEL's filtering beside
// NNEMU_LOG, seen in the stderr of separate application processes.
#include "StatisticsFixture.h"
#include "SynapLog.h"

namespace nnemu {
namespace {

TEST(SynapLogFormat, IsTheBoardsLinuxLine) {
    EXPECT_EQ(synap::synapLogFormat(LogLevel::VERBOSE, "run", 7, "a"), "V:SyNAP: run():7: a\n");
    EXPECT_EQ(synap::synapLogFormat(LogLevel::INFO, "compile", 80, "b c"), "I:SyNAP: compile():80: b c\n");
    EXPECT_EQ(synap::synapLogFormat(LogLevel::WARNING, "touch", 1, ""), "W:SyNAP: touch():1: \n");
    EXPECT_EQ(synap::synapLogFormat(LogLevel::ERROR, "f", 12345, "x"), "E:SyNAP: f():12345: x\n");
}

// One client run with a damaged statistics state (a driver warning) and a first-inference JIT
// (a driver info line), under the given environment.
class SynapLogLevel : public synaptest::StatisticsFixture {
protected:
    std::string runWith(const char* synapLevel, const char* nnemuLog) {
        std::filesystem::create_directories(dir_);
        std::ofstream(dir_ + ".state") << "not a state";
        setOrUnset("SYNAP_NB_LOG_LEVEL", synapLevel);
        setOrUnset("NNEMU_LOG", nnemuLog);
        std::string errors;
        EXPECT_EQ(runClient(1, &errors), 0) << errors;
        unsetenv("SYNAP_NB_LOG_LEVEL");
        unsetenv("NNEMU_LOG");
        return errors;
    }
    static void setOrUnset(const char* name, const char* value) {
        if (value != nullptr) setenv(name, value, 1);
        else unsetenv(name);
    }
    // Every driver line has the board's format.
    static void expectBoardFormat(const std::string& errors) {
        std::istringstream lines(errors);
        for (std::string line; std::getline(lines, line);) {
            if (line.find("SyNAP") == std::string::npos) continue;
            EXPECT_TRUE(std::regex_match(line, std::regex("[VIWE]:SyNAP: [A-Za-z_0-9]+\\(\\):[0-9]+: .+"))) << line;
        }
    }
    static int info(const std::string& errors) { return linesWith(errors, "I:SyNAP: "); }
    static int warnings(const std::string& errors) { return linesWith(errors, "W:SyNAP: "); }
};

TEST_F(SynapLogLevel, DefaultsToWarnings) {
    const std::string errors = runWith(nullptr, nullptr);
    EXPECT_EQ(warnings(errors), 1) << errors;
    EXPECT_EQ(info(errors), 0) << errors;
    EXPECT_NE(errors.find("W:SyNAP: load():"), std::string::npos) << errors;
    expectBoardFormat(errors);
}

TEST_F(SynapLogLevel, InfoShowsTheJit) {
    const std::string errors = runWith("1", nullptr);
    EXPECT_EQ(warnings(errors), 1) << errors;
    EXPECT_TRUE(std::regex_search(errors, std::regex("\nI:SyNAP: [A-Za-z_]+\\(\\):[0-9]+: compiled a network of 2 layers")))
            << errors;
    EXPECT_EQ(linesWith(errors, "INFO: "), 0) << "NNEMU_LOG still filters the rest: " << errors;
    expectBoardFormat(errors);
}

TEST_F(SynapLogLevel, VerboseIncludesInfo) {
    const std::string errors = runWith("0", nullptr);
    EXPECT_GE(info(errors), 1) << errors;
    expectBoardFormat(errors);
}

TEST_F(SynapLogLevel, ErrorHidesWarningsEvenWhenNnemuLogIsVerbose) {
    const std::string errors = runWith("3", "verbose");
    EXPECT_EQ(warnings(errors) + info(errors), 0) << errors;
    EXPECT_GE(linesWith(errors, "VERBOSE: "), 1) << "the runtime's own messages follow NNEMU_LOG: " << errors;
}

TEST_F(SynapLogLevel, UnsetFollowsNnemuLog) {
    EXPECT_GE(info(runWith(nullptr, "info")), 1);
    EXPECT_EQ(warnings(runWith(nullptr, "error")), 0);
    EXPECT_EQ(info(runWith("garbage", nullptr)), 0);
}

}  // namespace
}  // namespace nnemu
