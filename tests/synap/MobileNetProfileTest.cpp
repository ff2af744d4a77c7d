// Profiling mode on a generated MobileNet, run in this process through the TFLite loader: while
// the network is loaded, network_profile shows its header with the layer count and one row per
// NPU layer in the kernel's format.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/props/Properties.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu {
namespace {

TEST(MobileNetProfile, EveryNpuLayerHasARow) {
    ASSERT_TRUE(props::set("vendor.NNAPI_SYNAP_PROFILE", "1").isOk());
    std::vector<uint8_t> bytes;
    ASSERT_EQ(modelgen::generateModel("mobilenet_v1_0.25_224_quant", &bytes), nnemu::StatusCode::OK);
    auto model = tflite::test::expectValue(tflite::Model::fromBuffer(std::move(bytes)));
    ASSERT_NE(model, nullptr);
    tflite::DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = "synap-npu";
    auto interpreter = tflite::test::expectValue(tflite::Interpreter::create(*model, options));
    ASSERT_NE(interpreter, nullptr);
    ASSERT_EQ(interpreter->partitions().size(), 1u);
    ASSERT_TRUE(tflite::test::isOk(interpreter->invoke()));
    ASSERT_TRUE(tflite::test::isOk(interpreter->invoke()));

    std::ifstream file(props::devicePath("/sys/class/misc/synap/statistics/network_profile"));
    std::stringstream text;
    text << file.rdbuf();
    const std::string profile = text.str();
    const std::string pid = "pid: " + std::to_string(getpid()) + ", ";
    const size_t at = profile.find(pid);
    ASSERT_NE(at, std::string::npos) << profile;
    std::istringstream lines(profile.substr(at));
    std::string header, tableHeader, row;
    std::getline(lines, header);
    std::smatch match;
    ASSERT_TRUE(std::regex_search(header, match, std::regex("inference_count: 2, .*, layers: ([0-9]+)$"))) << header;
    const int layers = std::stoi(match[1]);
    EXPECT_GE(layers, 31);  // every MobileNet operation lowers to at least one layer
    std::getline(lines, tableHeader);
    EXPECT_EQ(tableHeader, "| lyr |    cycle | time_us |  byte_rd |  byte_wr | ot | name");
    const std::regex rowFormat(R"(\|[ 0-9]{4} \|[ 0-9]{9} \|[ 0-9]{8} \|[ 0-9]{9} \|[ 0-9]{9} \| ?(NN|SH|TP) \| [A-Za-z0-9]+)");
    for (int i = 0; i < layers; ++i) {
        ASSERT_TRUE(std::getline(lines, row));
        EXPECT_TRUE(std::regex_match(row, rowFormat)) << row;
        EXPECT_EQ(std::stoi(row.substr(1, 4)), i);
    }
    ASSERT_TRUE(props::set("vendor.NNAPI_SYNAP_PROFILE", "0").isOk());
}

}  // namespace
}  // namespace nnemu
