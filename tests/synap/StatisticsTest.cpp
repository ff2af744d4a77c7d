// The statistics files as a user of the board reads them, with the NNAPI work done by separate
// application processes (nnemu_npu_client) and the settings changed with the setprop tool.
#include <cinttypes>
#include <cstdio>

#include "Statistics.h"
#include "StatisticsFixture.h"

namespace nnemu {
namespace {

using Statistics = synaptest::StatisticsFixture;
using synaptest::kNetworkLine;

// The same workloads on both boards (NNEMU_BOARD): the Android statistics folder, or the Yocto
// one at /sys/class/misc/synap/statistics.
class BoardStatistics : public Statistics, public ::testing::WithParamInterface<const char*> {
protected:
    void SetUp() override {
        Statistics::SetUp();
        useBoard(GetParam());
    }
};

INSTANTIATE_TEST_SUITE_P(Boards, BoardStatistics, ::testing::Values("android", "yocto"));

// networks lines are built without printf (they are rendered at every NPU execution): the text of
// the kernel's format, extremes included.
TEST(StatisticsFormat, NetworkLineIsTheKernelsFormat) {
    struct Values {
        uint64_t pid;
        uint32_t nid;
        uint64_t count, time;
        uint32_t last;
        int32_t iobufCount;
        int64_t iobufSize;
        int32_t layers;
    };
    for (const Values& v : {Values{0, 0, 0, 0, 0, 0, 0, 0}, Values{4242, 3, 17, 123456, 1800, 2, 151529, 31},
                            Values{UINT64_MAX, UINT32_MAX, UINT64_MAX, UINT64_MAX, UINT32_MAX, INT32_MIN, INT64_MIN, -1}}) {
        char expected[256];
        std::snprintf(expected, sizeof expected,
                      "pid: %" PRIu64 ", nid: %u, inference_count: %" PRIu64 ", inference_time: %" PRIu64
                      ", inference_last: %u, iobuf_count: %d, iobuf_size: %" PRId64 ", layers: %d\n",
                      v.pid, v.nid, v.count, v.time, v.last, v.iobufCount, v.iobufSize, v.layers);
        EXPECT_EQ(synap::networkLine(v.pid, v.nid, v.count, v.time, v.last, v.iobufCount, v.iobufSize, v.layers),
                  expected);
    }
}

TEST_P(BoardStatistics, CountsAreExactWithThreeConcurrentProcesses) {
    std::vector<Process> clients;
    for (int i = 0; i < 3; ++i) clients.push_back(spawn({NNEMU_NPU_CLIENT, "--runs", "25"}));
    for (auto& client : clients) EXPECT_EQ(finish(client), 0);
    EXPECT_EQ(read("inference_count"), "75\n");
    EXPECT_TRUE(std::regex_match(read("inference_time"), std::regex("[1-9][0-9]*\n")));
    EXPECT_EQ(read("networks"), "");  // every process has exited
    // The Yocto path shows the same files on both boards; a Yocto board has no Android path.
    EXPECT_EQ(readPath(root_ + "/sys/class/misc/synap/statistics/inference_count"), "75\n");
    EXPECT_EQ(std::filesystem::exists(root_ + "/sys/class/misc/synap/device"), board_ == "android");
}

class StatisticsReset : public Statistics,
                        public ::testing::WithParamInterface<std::tuple<const char*, const char*>> {};

TEST_P(StatisticsReset, WritingEitherFileClearsBothTotals) {
    useBoard(std::get<0>(GetParam()));
    ASSERT_EQ(runClient(5), 0);
    ASSERT_EQ(read("inference_count"), "5\n");
    write(std::get<1>(GetParam()), "\n");  // echo > file
    ASSERT_EQ(runClient(2), 0);
    EXPECT_EQ(read("inference_count"), "2\n");
    const auto time = std::stoull(read("inference_time"));
    EXPECT_GT(time, 0u);
}

INSTANTIATE_TEST_SUITE_P(EitherFile, StatisticsReset,
                         ::testing::Combine(::testing::Values("android", "yocto"),
                                            ::testing::Values("inference_count", "inference_time")));

// The board's sequence: a reset reads 0 at once, as on sysfs. Any process that loads the library
// applies it at start-up, here one that runs nothing on the NPU; a process that kept its network
// loaded meanwhile counts from 0 too.
TEST_P(BoardStatistics, AResetReadsZeroOnceAnyProcessLoadsTheLibrary) {
    Process held = spawn({NNEMU_NPU_CLIENT, "--runs", "3", "--hold"});
    waitReady(held);
    ASSERT_EQ(runClient(2), 0);
    ASSERT_EQ(read("inference_count"), "5\n");
    write("inference_count", "\n");
    Process cpu = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--device", "nnapi-reference"});
    ASSERT_EQ(finish(cpu), 0);
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
TEST_P(BoardStatistics, ADeletedFileIsRewrittenAtStartUp) {
    ASSERT_EQ(runClient(2), 0);
    std::filesystem::remove(dir_ + "inference_count");
    std::filesystem::remove(dir_ + "networks");
    Process cpu = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--device", "nnapi-reference"});
    ASSERT_EQ(finish(cpu), 0);
    EXPECT_EQ(read("inference_count"), "2\n");
    EXPECT_TRUE(std::filesystem::exists(dir_ + "networks"));
}

TEST_P(BoardStatistics, NetworksListsTheNetworksOfLiveProcessesOnly) {
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

// A network prepared from the NNAPI compilation cache is loaded during the compilation, and
// listed then (not by its first inference, which stays free of that update), once. (Android
// only: a Yocto board has no property to turn the cache on.)
TEST_F(Statistics, ANetworkFromTheNnapiCacheIsListedWhenItLoads) {
    setprop("vendor.npu.cache.model", "1");
    const std::string cacheDir = root_ + "/app-cache";
    std::filesystem::create_directories(cacheDir);
    Process writer = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--cache", cacheDir});  // compiles, writes the file
    ASSERT_EQ(finish(writer), 0);
    ASSERT_EQ(std::distance(std::filesystem::directory_iterator(cacheDir), std::filesystem::directory_iterator()), 1);
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "0", "--cache", cacheDir, "--hold"});
    waitReady(client);
    const std::string pid = "pid: " + std::to_string(client.pid) + ", nid: 1, inference_count: ";
    std::string networks = read("networks");
    EXPECT_TRUE(std::regex_match(networks, kNetworkLine)) << networks;
    EXPECT_NE(networks.find(pid + "0, "), std::string::npos) << networks;
    runMore(client, 2);
    networks = read("networks");
    EXPECT_TRUE(std::regex_match(networks, kNetworkLine)) << networks;
    EXPECT_NE(networks.find(pid + "2, "), std::string::npos) << networks;
    EXPECT_EQ(read("inference_count"), "3\n");
    EXPECT_EQ(finish(client), 0);
    EXPECT_EQ(read("networks"), "");
}

TEST_P(BoardStatistics, AKilledProcessDisappearsAtTheNextUpdate) {
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

// A Yocto board has no property service: a property set for the Android board changes nothing,
// and setprop refuses.
TEST_F(Statistics, AYoctoBoardReadsNoProperty) {
    setprop("vendor.NNAPI_SYNAP_DISABLE", "1");
    useBoard("yocto");
    ASSERT_EQ(runClient(2), 0);
    EXPECT_EQ(read("inference_count"), "2\n");  // the NPU ran
    Process refused = spawn({NNEMU_SETPROP, "vendor.NNAPI_SYNAP_DISABLE", "0"});
    EXPECT_EQ(finish(refused), 1);
    EXPECT_NE(readPath(refused.errorsPath).find("no Android property service"), std::string::npos);
}

// An Android board's link at the Yocto path leads a Yocto process to the same statistics.
TEST_F(Statistics, BothBoardsShareTheFolderAnAndroidProcessMadeFirst) {
    ASSERT_EQ(runClient(2), 0);
    useBoard("yocto");
    ASSERT_EQ(runClient(3), 0);
    EXPECT_EQ(read("inference_count"), "5\n");
    EXPECT_EQ(readPath(root_ + "/sys/class/misc/synap/device/misc/synap/statistics/inference_count"), "5\n");
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
