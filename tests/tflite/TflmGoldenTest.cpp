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

// Runs <op>0.tflite, <op>1.tflite, ... with their input CSVs; returns how many were checked.
size_t checkGoldenModels(const std::string& op, size_t inputs) {
    const std::string root = modelsDir() + "/tflm_integration_tests/seanet/" + op + "/";
    size_t checked = 0;
    for (int i = 0; std::filesystem::exists(root + op + std::to_string(i) + ".tflite"); ++i) {
        const std::string stem = root + op + std::to_string(i);
        SCOPED_TRACE(stem);
        std::unique_ptr<Model> model = loadModel(stem + ".tflite");
        if (model == nullptr) return checked;
        std::vector<std::vector<uint8_t>> data;
        for (size_t k = 0; k < inputs; ++k) {
            data.push_back(GraphBuilder::bytes(readCsv(stem + "_input" + std::to_string(k) + "_int16.csv")));
        }
        expectOutputs(*model, data, {GraphBuilder::bytes(readCsv(stem + "_golden_int16.csv"))});
        ++checked;
    }
    return checked;
}

TEST(TflmGolden, Int16AddModelsMatchExactly) {
    NNEMU_REQUIRE_SHARED_MODELS();
    EXPECT_GE(checkGoldenModels("add", 2), 17u);
}

TEST(TflmGolden, Int16ConvModelsMatchExactly) {
    NNEMU_REQUIRE_SHARED_MODELS();
    EXPECT_GE(checkGoldenModels("conv", 1), 22u);
}

}  // namespace
}  // namespace nnemu::tflite::test
