// The int16 (16x8 quantized) TFLM integration models of ../shared/models run on the tools' CPU
// kernels and match TFLM's golden outputs exactly, on TFLite's CPU path and with synap-npu named.
#include <fstream>
#include <sstream>

#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

std::vector<int16_t> readCsv(const std::string& path) {
    std::ifstream file(path);
    std::vector<int16_t> values;
    std::string item;
    while (std::getline(file, item, ',')) {
        std::istringstream cell(item);
        int value;
        if (cell >> value) values.push_back(static_cast<int16_t>(value));
    }
    return values;
}

TEST(TflmGolden, Int16AddModelsMatchExactly) {
    NNEMU_REQUIRE_SHARED_MODELS();
    const std::string root = modelsDir() + "/tflm_integration_tests/seanet/add/";
    size_t checked = 0;
    for (int i = 0; std::filesystem::exists(root + "add" + std::to_string(i) + ".tflite"); ++i) {
        const std::string stem = root + "add" + std::to_string(i);
        SCOPED_TRACE(stem);
        std::unique_ptr<Model> model = loadModel(stem + ".tflite");
        ASSERT_NE(model, nullptr);
        const std::vector<int16_t> a = readCsv(stem + "_input0_int16.csv"), b = readCsv(stem + "_input1_int16.csv");
        const std::vector<int16_t> golden = readCsv(stem + "_golden_int16.csv");
        expectOutputs(*model, {GraphBuilder::bytes(a), GraphBuilder::bytes(b)}, {GraphBuilder::bytes(golden)});
        ++checked;
    }
    EXPECT_GE(checked, 17u);
}

}  // namespace
}  // namespace nnemu::tflite::test
