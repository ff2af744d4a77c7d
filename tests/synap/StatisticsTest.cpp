// The statistics files as a user of the board reads them, with the NNAPI work done by separate
// application processes (nnemu_npu_client) and the settings changed with the setprop tool.
#include "StatisticsFixture.h"

namespace nnemu {
namespace {

using Statistics = synaptest::StatisticsFixture;
using synaptest::kNetworkLine;

TEST_F(Statistics, CountsAreExactWithThreeConcurrentProcesses) {
    std::vector<Process> clients;
    for (int i = 0; i < 3; ++i) clients.push_back(spawn({NNEMU_NPU_CLIENT, "--runs", "25"}));
    for (auto& client : clients) EXPECT_EQ(finish(client), 0);
    EXPECT_EQ(read("inference_count"), "75\n");
    EXPECT_TRUE(std::regex_match(read("inference_time"), std::regex("[1-9][0-9]*\n")));
    EXPECT_EQ(read("networks"), "");  // every process has exited
    // The Yocto path shows the same files.
    std::ifstream yocto(root_ + "/sys/class/misc/synap/statistics/inference_count");
    std::string count;
    std::getline(yocto, count);
    EXPECT_EQ(count, "75");
}

class StatisticsReset : public Statistics, public ::testing::WithParamInterface<const char*> {};

TEST_P(StatisticsReset, WritingEitherFileClearsBothTotals) {
    ASSERT_EQ(runClient(5), 0);
    ASSERT_EQ(read("inference_count"), "5\n");
    write(GetParam(), "\n");  // echo > file
    ASSERT_EQ(runClient(2), 0);
    EXPECT_EQ(read("inference_count"), "2\n");
    const auto time = std::stoull(read("inference_time"));
    EXPECT_GT(time, 0u);
}

INSTANTIATE_TEST_SUITE_P(EitherFile, StatisticsReset, ::testing::Values("inference_count", "inference_time"));

// The board's sequence: a reset reads 0 at once, as on sysfs. Any process that loads the library
// applies it at start-up, here one that runs nothing on the NPU; a process that kept its network
// loaded meanwhile counts from 0 too.
TEST_F(Statistics, AResetReadsZeroOnceAnyProcessLoadsTheLibrary) {
    Process held = spawn({NNEMU_NPU_CLIENT, "--runs", "3", "--hold"});
    waitReady(held);
    ASSERT_EQ(runClient(2), 0);
    ASSERT_EQ(read("inference_count"), "5\n");
    setprop("vendor.NNAPI_SYNAP_DISABLE", "1");
    write("inference_count", "\n");
    ASSERT_EQ(runClient(1), 0);  // on nnapi-reference
    EXPECT_EQ(read("inference_count"), "0\n");
    EXPECT_EQ(read("inference_time"), "0\n");
    EXPECT_NE(read("networks").find(", inference_count: 0, inference_time: 0, inference_last: 0, "), std::string::npos)
            << read("networks");
    runMore(held, 2);
    EXPECT_EQ(read("inference_count"), "2\n");
    EXPECT_NE(read("networks").find(", inference_count: 2, "), std::string::npos) << read("networks");
    EXPECT_EQ(finish(held), 0);
}

// A deleted file is put back (not a reset) by the next process, whatever it runs.
TEST_F(Statistics, ADeletedFileIsRewrittenAtStartUp) {
    ASSERT_EQ(runClient(2), 0);
    setprop("vendor.NNAPI_SYNAP_DISABLE", "1");
    std::filesystem::remove(dir_ + "inference_count");
    std::filesystem::remove(dir_ + "networks");
    ASSERT_EQ(runClient(1), 0);
    EXPECT_EQ(read("inference_count"), "2\n");
    EXPECT_TRUE(std::filesystem::exists(dir_ + "networks"));
}

TEST_F(Statistics, NetworksListsTheNetworksOfLiveProcessesOnly) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "3", "--hold"});
    waitReady(client);
    const std::string networks = read("networks");
    ASSERT_TRUE(std::regex_match(networks, kNetworkLine)) << networks;
    // 192 float inputs and 128 float outputs; no layer count outside profiling mode.
    EXPECT_NE(networks.find("pid: " + std::to_string(client.pid) + ", nid: 1, inference_count: 3, "), std::string::npos);
    EXPECT_NE(networks.find(", iobuf_count: 2, iobuf_size: 1280, layers: 0\n"), std::string::npos);
    EXPECT_EQ(read("network_profile"), networks);
    EXPECT_EQ(finish(client), 0);
    EXPECT_EQ(read("networks"), "");
}

TEST_F(Statistics, AKilledProcessDisappearsAtTheNextUpdate) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--hold"});
    waitReady(client);
    ASSERT_NE(read("networks"), "");
    kill(client.pid, SIGKILL);
    finish(client);
    usleep(150 * 1000);  // past the pruning interval
    ASSERT_EQ(runClient(1), 0);
    EXPECT_EQ(read("networks"), "");
    EXPECT_EQ(read("inference_count"), "2\n");
}

TEST_F(Statistics, DisablingTheNpuLeavesTheCountersAlone) {
    ASSERT_EQ(runClient(1), 0);
    setprop("vendor.NNAPI_SYNAP_DISABLE", "1");
    ASSERT_EQ(runClient(3), 0);  // runs on nnapi-reference
    EXPECT_EQ(read("inference_count"), "1\n");
    setprop("vendor.NNAPI_SYNAP_DISABLE", "0");
    ASSERT_EQ(runClient(2), 0);
    EXPECT_EQ(read("inference_count"), "3\n");
}

TEST_F(Statistics, ProfilingModeShowsThePerLayerTable) {
    setprop("vendor.NNAPI_SYNAP_PROFILE", "1");
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "2", "--hold"});
    waitReady(client);
    const std::string profile = read("network_profile");
    std::istringstream lines(profile);
    std::string header, tableHeader, row;
    std::getline(lines, header);
    EXPECT_TRUE(std::regex_match(header + "\n", kNetworkLine)) << header;
    EXPECT_NE(header.find("inference_count: 2, "), std::string::npos);
    EXPECT_NE(header.find(", layers: 2"), std::string::npos) << header;
    std::getline(lines, tableHeader);
    EXPECT_EQ(tableHeader, "| lyr |    cycle | time_us |  byte_rd |  byte_wr | ot | name");
    const std::regex rowFormat(R"(\|   [01] \| {0,8}[0-9]+ \| {0,7}[0-9]+ \| {0,8}[0-9]+ \| {0,8}[0-9]+ \| NN \| Convolution.*)");
    int rows = 0;
    while (std::getline(lines, row)) {
        EXPECT_TRUE(std::regex_match(row, rowFormat)) << row;
        ++rows;
    }
    EXPECT_EQ(rows, 2);
    EXPECT_NE(read("networks").find(", layers: 2\n"), std::string::npos);
    EXPECT_EQ(finish(client), 0);
    EXPECT_EQ(read("network_profile"), "");

    setprop("vendor.NNAPI_SYNAP_PROFILE", "0");  // a network compiled now runs normally again
    client = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--hold"});
    waitReady(client);
    EXPECT_EQ(read("network_profile"), read("networks"));
    EXPECT_NE(read("networks").find(", layers: 0\n"), std::string::npos);
    EXPECT_EQ(finish(client), 0);
}

}  // namespace
}  // namespace nnemu
