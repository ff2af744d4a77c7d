// The C API guard (runtime/ApiGuard.h): an allocation that fails anywhere below an entry point is
// OUT_OF_MEMORY, never a crash. Failures are injected by FailingAllocations.cpp, one at a time, at
// every allocation an application's whole life cycle makes on its thread: build an ADD model,
// compile it for the reference device, run it.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../api/AddModel.h"
#include "FailingAllocations.h"

namespace nnemu::apitest {
namespace {

// The log lines of thousands of failed calls are not the point here.
const bool kSilent = setenv("NNEMU_LOG", "silent", 1) == 0;

// One entry point call with allocation `n` failing; the result code and whether it failed.
struct Outcome {
    int code;
    bool injected;
};

Outcome callFailing(int64_t n, const std::function<int()>& call) {
    failAllocation(n);
    const int code = call();
    const bool injected = disarmAllocationFailure();
    return {code, injected};
}

TEST(ApiGuardTest, SetDimensionsOutOfMemory) {
    ASSERT_TRUE(kSilent);
    ANeuralNetworksMemoryDesc* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksMemoryDesc_create(&raw), ANEURALNETWORKS_NO_ERROR);
    const uint32_t dims[] = {2, 3};
    const Outcome outcome = callFailing(0, [&] { return ANeuralNetworksMemoryDesc_setDimensions(raw, 2, dims); });
    EXPECT_TRUE(outcome.injected);
    EXPECT_EQ(outcome.code, ANEURALNETWORKS_OUT_OF_MEMORY);
    // Nothing was kept: the next call succeeds.
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(raw, 2, dims), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksMemoryDesc_free(raw);
}

TEST(ApiGuardTest, CreateOutOfMemoryLeavesNoObject) {
    ANeuralNetworksModel* model = nullptr;
    const Outcome outcome = callFailing(0, [&] { return ANeuralNetworksModel_create(&model); });
    EXPECT_TRUE(outcome.injected);
    EXPECT_EQ(outcome.code, ANEURALNETWORKS_OUT_OF_MEMORY);
    EXPECT_EQ(model, nullptr);
}

// The whole life cycle, one entry point after another, as a list of calls on objects it owns.
class LifeCycle {
public:
    explicit LifeCycle(const ANeuralNetworksDevice* device) : device_(device) {}

    std::vector<std::pair<std::string, std::function<int()>>> steps() {
        return {
                {"Model_create", [this] { return create(); }},
                {"building the model", [this] { return buildAddModel(model_.get(), options_); }},
                {"Compilation_createForDevices", [this] { return createCompilation(); }},
                {"Compilation_finish", [this] { return ANeuralNetworksCompilation_finish(compilation_.get()); }},
                {"Execution_create", [this] { return createExecution(); }},
                {"binding", [this] { return bindAddBuffers(execution_.get(), buffers_); }},
                {"Execution_compute", [this] { return ANeuralNetworksExecution_compute(execution_.get()); }},
        };
    }
    const AddBuffers& buffers() const { return buffers_; }

private:
    int create() {
        ANeuralNetworksModel* raw = nullptr;
        const int code = ANeuralNetworksModel_create(&raw);
        model_.reset(raw);
        return code;
    }
    int createCompilation() {
        ANeuralNetworksCompilation* raw = nullptr;
        const int code = ANeuralNetworksCompilation_createForDevices(model_.get(), &device_, 1, &raw);
        compilation_.reset(raw);
        return code;
    }
    int createExecution() {
        ANeuralNetworksExecution* raw = nullptr;
        const int code = ANeuralNetworksExecution_create(compilation_.get(), &raw);
        execution_.reset(raw);
        return code;
    }

    const ANeuralNetworksDevice* device_;
    const AddModelOptions options_;  // made before any failure is armed: only the API allocates then
    ModelPtr model_;
    CompilationPtr compilation_;
    ExecutionPtr execution_;
    AddBuffers buffers_;
};

// Allocation n fails (n = 0, 1, ... until the life cycle makes fewer allocations): the call that
// meets it answers OUT_OF_MEMORY, and the process lives on.
TEST(ApiGuardTest, EveryAllocationOfALifeCycleMayFail) {
    const ANeuralNetworksDevice* reference = referenceDevice();
    ASSERT_NE(reference, nullptr);
    constexpr int64_t kMaxAllocations = 20000;
    int64_t n = 0;
    for (; n < kMaxAllocations; ++n) {
        LifeCycle life(reference);
        int64_t before = n;  // allocations left before the failing one, across the calls
        bool injected = false;
        for (auto& [name, call] : life.steps()) {
            failAllocation(before);
            const int code = call();
            injected = disarmAllocationFailure(&before);
            if (injected) {
                ASSERT_EQ(code, ANEURALNETWORKS_OUT_OF_MEMORY) << name << " with allocation " << n << " failing";
                break;
            }
            ASSERT_EQ(code, ANEURALNETWORKS_NO_ERROR) << name << " without a failure (allocation " << n << ")";
        }
        if (!injected) {
            EXPECT_EQ(life.buffers().output[0], 11.0f);
            break;
        }
    }
    EXPECT_LT(n, kMaxAllocations);
    EXPECT_GT(n, 100);  // the sweep did meet the runtime's allocations
    RecordProperty("allocations", static_cast<int>(n));
    std::printf("the life cycle makes %lld allocations on the calling thread\n", static_cast<long long>(n));
}

// Every entry point the runtime defines is guarded: a function-try-block ending in the guard.
TEST(ApiGuardTest, EveryEntryPointIsGuarded) {
    const std::regex definition(R"(^(extern "C" )?(static )?[A-Za-z_][\w:]*\*? ?\*?(SL_)?ANeuralNetworks\w*\()");
    int entryPoints = 0;
    for (const char* file : {"NeuralNetworks.cpp", "NeuralNetworksFl30Api.cpp", "NeuralNetworksFl8Api.cpp",
                             "SupportLibrary.cpp"}) {
        std::ifstream in(std::string(NNEMU_SOURCE_DIR) + "/runtime/" + file);
        ASSERT_TRUE(in.is_open()) << file;
        std::string line, signature;
        while (std::getline(in, line)) {
            if (signature.empty() && !std::regex_search(line, definition)) continue;
            signature += line;
            if (line.find('{') == std::string::npos) {
                if (line.find(';') != std::string::npos) signature.clear();  // a declaration
                continue;
            }
            ++entryPoints;
            EXPECT_NE(signature.find(") try {"), std::string::npos) << file << ": " << signature;
            signature.clear();
        }
    }
    EXPECT_GT(entryPoints, 70);
}

}  // namespace
}  // namespace nnemu::apitest
