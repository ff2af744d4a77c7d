// Helpers shared by the TFLite tests: the shared data folder, files, running a model.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <memory>
#include <string>
#include <vector>

#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {

inline std::string sharedDir() { return NNEMU_SHARED_DIR; }
inline std::string modelsDir() { return sharedDir() + "/models"; }

// Skips the calling test when ../shared/models is absent.
#define NNEMU_REQUIRE_SHARED_MODELS()                                                            \
    do {                                                                                         \
        if (!std::filesystem::is_directory(::nnemu::tflite::test::modelsDir())) {                \
            GTEST_SKIP() << "../shared/models not found at " << ::nnemu::tflite::test::modelsDir() \
                         << " (set NNEMU_SHARED_DIR)";                                           \
        }                                                                                        \
    } while (0)

inline std::vector<uint8_t> readFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// The two ways every oracle runs: TFLite's CPU path (all nodes on nnapi-reference, node by
// node) and the NNAPI delegate with nnapi-reference named as the accelerator.
struct RunMode {
    const char* name;
    DelegateOptions options;
};

// The NNAPI delegate with nnapi-reference named as the accelerator.
inline DelegateOptions nnapiReferenceOptions() {
    DelegateOptions delegate;
    delegate.useNnapi = true;
    delegate.acceleratorName = "nnapi-reference";
    delegate.disableNnapiCpu = false;
    return delegate;
}

inline std::vector<RunMode> runModes() {
    return {{"cpu", DelegateOptions{}}, {"nnapi_reference", nnapiReferenceOptions()}};
}

inline void PrintTo(const RunMode& mode, std::ostream* os) { *os << mode.name; }

inline std::string runModeName(const testing::TestParamInfo<RunMode>& info) { return info.param.name; }

inline std::unique_ptr<Model> loadModel(const std::string& path) {
    std::unique_ptr<Model> model = expectValue(Model::load(path));
    EXPECT_NE(model, nullptr);
    return model;
}

inline std::unique_ptr<Interpreter> makeInterpreter(const Model& model, const DelegateOptions& options) {
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(model, options));
    EXPECT_NE(interpreter, nullptr);
    return interpreter;
}

inline std::vector<size_t> topIndexes(const uint8_t* scores, size_t count, size_t k) {
    std::vector<size_t> order(count);
    for (size_t i = 0; i < count; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    order.resize(std::min(k, count));
    return order;
}

}  // namespace nnemu::tflite::test
