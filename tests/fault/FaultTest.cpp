// The fault properties (nnemu/props/Faults.h, issue 25): the parser and the draw, then every
// point x result pair through the C API on both compilation kinds, as an application sees it:
// the result code, the outputs (correct after a fallback), the NPU's statistics (only what it
// ran) and the one log line naming the property.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "NnapiDevices.h"
#include "nnemu/base/Trace.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/props/Faults.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props::faults {
namespace {

// ---- The pure half -------------------------------------------------------------------------

TEST(FaultParse, NamesOfBothDrivers) {
    for (const PointInfo& point : kPoints) {
        auto npu = parseName(propertyName(Driver::NPU, point.point));
        ASSERT_TRUE(npu.isOk()) << npu.message();
        EXPECT_EQ(npu->first, Driver::NPU);
        EXPECT_EQ(npu->second, point.point);
        auto cpu = parseName(propertyName(Driver::CPU, point.point));
        EXPECT_EQ(cpu.isOk(), point.onCpu) << point.name;
    }
    EXPECT_EQ(propertyName(Driver::CPU, Point::EXECUTE), "vendor.nnemu.fault.cpu.execute");
    EXPECT_EQ(propertyName(Driver::NPU, Point::CACHE_READ), "vendor.nnemu.fault.cache.read");
    for (const char* bad : {"vendor.nnemu.fault.", "vendor.nnemu.fault.seed", "vendor.nnemu.fault.exec",
                            "vendor.nnemu.fault.cpu.jit", "vendor.nnemu.fault.cpu.cache.read", "vendor.other"}) {
        auto parsed = parseName(bad);
        EXPECT_FALSE(parsed.isOk()) << bad;
        EXPECT_EQ(parsed.code(), StatusCode::BAD_DATA) << bad;
    }
}

TEST(FaultParse, ResultsAndSelectors) {
    for (const ResultInfo& result : kResults) {
        auto rule = parseRule(result.name, Point::EXECUTE);
        ASSERT_TRUE(rule.isOk()) << rule.message();
        EXPECT_EQ(rule->code, result.code);
        EXPECT_EQ(rule->selector, Selector::ALWAYS);
    }
    auto nth = parseRule("DEAD_OBJECT@3", Point::EXECUTE);
    ASSERT_TRUE(nth.isOk());
    EXPECT_EQ(nth->selector, Selector::NTH);
    EXPECT_EQ(nth->n, 3u);
    auto every = parseRule("OP_FAILED%2", Point::PREPARE);
    ASSERT_TRUE(every.isOk());
    EXPECT_EQ(every->selector, Selector::EVERY);
    auto sometimes = parseRule("UNAVAILABLE_DEVICE~0.25", Point::JIT);
    ASSERT_TRUE(sometimes.isOk());
    EXPECT_EQ(sometimes->selector, Selector::PROBABILITY);
    EXPECT_DOUBLE_EQ(sometimes->probability, 0.25);
    auto delay = parseRule("delay=1500@2", Point::FENCE);
    ASSERT_TRUE(delay.isOk());
    EXPECT_EQ(delay->code, StatusCode::OK);
    EXPECT_EQ(delay->delayUs, 1500u);
    EXPECT_EQ(delay->n, 2u);
}

TEST(FaultParse, GarbageIsRefusedSayingWhy) {
    const char* garbage[] = {"", "op_failed", "OP_FAILED@", "OP_FAILED@0", "OP_FAILED@-1", "OP_FAILED@1x",
                             "OP_FAILED%0", "OP_FAILED~", "OP_FAILED~1.5", "OP_FAILED~-0.1", "OP_FAILED~nan",
                             "OP_FAILED~0.5.5", "OP_FAILED~.", "OP_FAILED@99999999999999999999", "delay=", "delay=-1",
                             "delay=abc", "delay=60000001", "delay", "@3", "~0.5", "OP_FAILED@3@4", " OP_FAILED",
                             "DEAD_OBJECT;rm -rf", "\xff\xfe", "OUTPUT_INSUFFICIENT_SIZE@1%2"};
    for (const char* value : garbage) {
        auto rule = parseRule(value, Point::EXECUTE);
        EXPECT_FALSE(rule.isOk()) << value;
        EXPECT_EQ(rule.code(), StatusCode::BAD_DATA) << value;
        EXPECT_FALSE(rule.message().empty()) << value;
    }
    // An execution's result elsewhere.
    for (Point point : {Point::PREPARE, Point::JIT, Point::CACHE_READ, Point::CACHE_WRITE, Point::FENCE}) {
        EXPECT_FALSE(parseRule("OUTPUT_INSUFFICIENT_SIZE", point).isOk()) << info(point).name;
    }
}

TEST(FaultSelect, CountsAndDraws) {
    Rule nth{StatusCode::OP_FAILED, 0, Selector::NTH, 3, 1.0};
    Rule every{StatusCode::OP_FAILED, 0, Selector::EVERY, 2, 1.0};
    for (uint64_t call = 1; call <= 10; ++call) {
        EXPECT_EQ(selects(nth, call, 0, 0), call == 3);
        EXPECT_EQ(selects(every, call, 0, 0), call % 2 == 0);
    }
    Rule never{StatusCode::OP_FAILED, 0, Selector::PROBABILITY, 0, 0.0};
    Rule always{StatusCode::OP_FAILED, 0, Selector::PROBABILITY, 0, 1.0};
    Rule half{StatusCode::OP_FAILED, 0, Selector::PROBABILITY, 0, 0.5};
    int fired = 0, differs = 0;
    for (uint64_t call = 1; call <= 1000; ++call) {
        EXPECT_FALSE(selects(never, call, 7, 1));
        EXPECT_TRUE(selects(always, call, 7, 1));
        fired += selects(half, call, 7, 1);
        EXPECT_EQ(selects(half, call, 7, 1), selects(half, call, 7, 1));  // a seed repeats a run
        differs += selects(half, call, 7, 1) != selects(half, call, 8, 1);
    }
    EXPECT_GT(fired, 400);
    EXPECT_LT(fired, 600);
    EXPECT_GT(differs, 300);  // another seed, another run
}

// ---- Through the C API ---------------------------------------------------------------------

constexpr const char* kStatistics = "/sys/class/misc/synap/device/misc/synap/statistics/inference_count";

int64_t npuInferences() {
    std::ifstream file(deviceRoot() + kStatistics);
    int64_t count = 0;
    return file >> count ? count : 0;
}

void clearFaultProperties() {
    for (const auto& [name, value] : all()) {
        if (name.rfind(kPrefix, 0) == 0) {
            ASSERT_TRUE(set(name, "").isOk()) << name;
        }
    }
    ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", "").isOk());
}

// out = relu(a + b) * c over 2x3 floats, c = k + i: a fresh k gives a model no cache holds. The
// output's shape is unknown (0 x 0) when `unknownOutput`.
struct AppModel {
    explicit AppModel(float k, bool unknownOutput = false) : k(k) {
        ANeuralNetworksModel_create(&model);
        const uint32_t dims[2] = {2, 3};
        const uint32_t unknown[2] = {0, 0};
        const ANeuralNetworksOperandType tensor = {ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0.0f, 0};
        const ANeuralNetworksOperandType output = {ANEURALNETWORKS_TENSOR_FLOAT32, 2,
                                                   unknownOutput ? unknown : dims, 0.0f, 0};
        const ANeuralNetworksOperandType scalar = {ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
        for (int i = 0; i < 7; ++i) {
            ANeuralNetworksModel_addOperand(model, i == 2 || i == 5 ? &scalar : i == 6 ? &output : &tensor);
        }
        for (int i = 0; i < 6; ++i) c[i] = k + static_cast<float>(i);
        const int32_t relu = ANEURALNETWORKS_FUSED_RELU, none = ANEURALNETWORKS_FUSED_NONE;
        ANeuralNetworksModel_setOperandValue(model, 2, &relu, sizeof relu);
        ANeuralNetworksModel_setOperandValue(model, 4, c, sizeof c);
        ANeuralNetworksModel_setOperandValue(model, 5, &none, sizeof none);
        const uint32_t addIn[3] = {0, 1, 2}, addOut[1] = {3}, mulIn[3] = {3, 4, 5}, mulOut[1] = {6};
        ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, addIn, 1, addOut);
        ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_MUL, 3, mulIn, 1, mulOut);
        const uint32_t inputs[2] = {0, 1}, outputs[1] = {6};
        ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, inputs, 1, outputs);
        finished = ANeuralNetworksModel_finish(model);
    }
    ~AppModel() { ANeuralNetworksModel_free(model); }

    // A compilation on every device (nullptr) or on the named one alone; finish's code.
    int compile(const char* device, ANeuralNetworksCompilation** compilation) const {
        if (device == nullptr) {
            if (int n = ANeuralNetworksCompilation_create(model, compilation)) return n;
        } else {
            const ANeuralNetworksDevice* devices[1] = {nnemu::test::deviceNamed(device)};
            if (int n = ANeuralNetworksCompilation_createForDevices(model, devices, 1, compilation)) return n;
        }
        return ANeuralNetworksCompilation_finish(*compilation);
    }

    // One execution (fenced: startComputeWithDependencies); its code, the outputs in `out`.
    int run(ANeuralNetworksCompilation* compilation, bool fenced, float* out,
            ANeuralNetworksExecution** kept = nullptr) const {
        static const float a[6] = {1, -2, 3, -4, 5, -6};
        static const float b[6] = {0.5f, 1, -4, 2, 0, 1};
        ANeuralNetworksExecution* execution = nullptr;
        if (int n = ANeuralNetworksExecution_create(compilation, &execution)) return n;
        ANeuralNetworksExecution_setInput(execution, 0, nullptr, a, sizeof a);
        ANeuralNetworksExecution_setInput(execution, 1, nullptr, b, sizeof b);
        ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out, 6 * sizeof(float));
        int n;
        if (fenced) {
            ANeuralNetworksEvent* event = nullptr;
            n = ANeuralNetworksExecution_startComputeWithDependencies(execution, nullptr, 0, 0, &event);
            if (n == ANEURALNETWORKS_NO_ERROR) n = ANeuralNetworksEvent_wait(event);
            ANeuralNetworksEvent_free(event);
        } else {
            n = ANeuralNetworksExecution_compute(execution);
        }
        if (kept != nullptr) {
            *kept = execution;
        } else {
            ANeuralNetworksExecution_free(execution);
        }
        return n;
    }

    bool correct(const float* out) const {
        static const float a[6] = {1, -2, 3, -4, 5, -6};
        static const float b[6] = {0.5f, 1, -4, 2, 0, 1};
        for (int i = 0; i < 6; ++i) {
            const float sum = a[i] + b[i];
            if (std::fabs(out[i] - (sum > 0 ? sum : 0) * c[i]) > 1e-5f) return false;
        }
        return true;
    }

    float k;
    float c[6];
    ANeuralNetworksModel* model = nullptr;
    int finished = -1;
};

float freshConstant() {
    static float next = 2.0f;
    next += 0.015625f;
    return next;
}

int resultCode(StatusCode code) {
    switch (code) {
        case StatusCode::UNAVAILABLE: return ANEURALNETWORKS_UNAVAILABLE_DEVICE;
        case StatusCode::DEAD_OBJECT: return ANEURALNETWORKS_DEAD_OBJECT;
        case StatusCode::MISSED_DEADLINE_TRANSIENT: return ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT;
        case StatusCode::MISSED_DEADLINE_PERSISTENT: return ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT;
        case StatusCode::RESOURCE_EXHAUSTED_TRANSIENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT;
        case StatusCode::RESOURCE_EXHAUSTED_PERSISTENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT;
        case StatusCode::OUTPUT_INSUFFICIENT_SIZE: return ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
        case StatusCode::OK: return ANEURALNETWORKS_NO_ERROR;
        default: return ANEURALNETWORKS_OP_FAILED;
    }
}

class FaultApi : public ::testing::Test {
protected:
    // Each test starts its own count: the process sees no fault property before it sets one.
    void SetUp() override {
        clearFaultProperties();
        refresh();
    }
    void TearDown() override { clearFaultProperties(); }
};

// One point x result x compilation kind.
struct Case {
    Driver driver;
    Point point;
    std::string value;  // a result name or delay=<us>
    bool forDevices;    // createForDevices on the driver's device, else Compilation_create
};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
    std::string name = std::string(info.param.driver == Driver::CPU ? "cpu_" : "npu_") +
                       std::string(faults::info(info.param.point).name) + "_" + info.param.value + "_" +
                       (info.param.forDevices ? "forDevices" : "create");
    for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
    return name;
}

std::vector<Case> allCases() {
    std::vector<Case> cases;
    for (Driver driver : {Driver::NPU, Driver::CPU}) {
        for (const PointInfo& point : kPoints) {
            if (driver == Driver::CPU && !point.onCpu) continue;
            std::vector<std::string> values{"delay=2000"};
            for (const ResultInfo& result : kResults) {
                // OUTPUT_INSUFFICIENT_SIZE has cases of its own (an output of unknown size).
                if (result.code != StatusCode::OUTPUT_INSUFFICIENT_SIZE) values.emplace_back(result.name);
            }
            for (const std::string& value : values) {
                for (bool forDevices : {false, true}) cases.push_back({driver, point.point, value, forDevices});
            }
        }
    }
    return cases;
}

class FaultMatrix : public FaultApi, public ::testing::WithParamInterface<Case> {};

TEST_P(FaultMatrix, ResultOutputsStatisticsAndLogLine) {
    const Case& param = GetParam();
    const std::string name = propertyName(param.driver, param.point);
    const bool npu = param.driver == Driver::NPU;
    // nnapi-reference's faults matter where it runs: on its own, or everything with the NPU off.
    if (!npu && !param.forDevices) {
        ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", "1").isOk());
    }
    ASSERT_TRUE(set(name, param.value).isOk());
    const StatusCode code = parseRule(param.value, param.point)->code;
    const bool failure = code != StatusCode::OK;
    const bool cachePoint = param.point == Point::CACHE_READ || param.point == Point::CACHE_WRITE;
    const bool fenced = param.point == Point::FENCE;

    // What the application should see.
    int expectFinish = ANEURALNETWORKS_NO_ERROR;
    int expectRun = ANEURALNETWORKS_NO_ERROR;
    if (failure && !cachePoint) {
        // Without fallback the driver's code; with it, nnapi-reference takes over, unless it is
        // the one failing (then its code: there is nothing left to fall back to).
        const bool reported = param.forDevices || !npu;
        if (param.point == Point::PREPARE) {
            expectFinish = reported ? resultCode(code) : ANEURALNETWORKS_NO_ERROR;
        } else {
            expectRun = reported ? resultCode(code) : ANEURALNETWORKS_NO_ERROR;
        }
    }
    const bool npuRuns = npu && (!failure || cachePoint);

    AppModel model(freshConstant());
    ASSERT_EQ(model.finished, ANEURALNETWORKS_NO_ERROR);
    const int64_t before = npuInferences();
    ::testing::internal::CaptureStderr();
    ANeuralNetworksCompilation* compilation = nullptr;
    const int finished = model.compile(param.forDevices ? (npu ? "synap-npu" : "nnapi-reference") : nullptr,
                                       &compilation);
    float out[6] = {0};
    int ran = -1;
    if (finished == ANEURALNETWORKS_NO_ERROR) ran = model.run(compilation, fenced, out);
    const std::string log = ::testing::internal::GetCapturedStderr();
    ANeuralNetworksCompilation_free(compilation);

    EXPECT_EQ(finished, expectFinish) << log;
    if (expectFinish == ANEURALNETWORKS_NO_ERROR) {
        EXPECT_EQ(ran, expectRun) << log;
        if (expectRun == ANEURALNETWORKS_NO_ERROR) {
            EXPECT_TRUE(model.correct(out)) << log;
        }
    }
    EXPECT_EQ(npuInferences() - before, npuRuns ? 1 : 0) << log;
    const std::string line = "fault injected by " + name + "=" + param.value + " at call 1: ";
    const auto at = log.find(line);
    ASSERT_NE(at, std::string::npos) << log;
    EXPECT_EQ(log.find(line, at + 1), std::string::npos) << "one line per injected fault\n" << log;
    const std::string prefix = log.substr(log.rfind('\n', at) == std::string::npos ? 0 : log.rfind('\n', at) + 1,
                                          8);
    EXPECT_EQ(prefix, npu ? "W:SyNAP:" : "WARNING:") << log;
}

INSTANTIATE_TEST_SUITE_P(EveryPair, FaultMatrix, ::testing::ValuesIn(allCases()), caseName);

// ---- Selectors, a dead driver, an output of unknown size -----------------------------------

TEST_F(FaultApi, DeadNpuStaysDeadForItsCompilation) {
    ASSERT_TRUE(set("vendor.nnemu.fault.execute", "DEAD_OBJECT@3").isOk());
    AppModel model(freshConstant());
    for (bool forDevices : {true, false}) {
        SCOPED_TRACE(forDevices ? "createForDevices" : "Compilation_create");
        ANeuralNetworksCompilation* compilation = nullptr;
        ASSERT_EQ(model.compile(forDevices ? "synap-npu" : nullptr, &compilation), ANEURALNETWORKS_NO_ERROR);
        const int64_t before = npuInferences();
        for (int run = 1; run <= 5; ++run) {
            float out[6] = {0};
            const int n = model.run(compilation, false, out);
            // The 3rd execution of the process kills the NPU for the first compilation; the second
            // compilation's calls are 4 and on (a dead network counts no more): it never dies.
            const bool dead = forDevices && run >= 3;
            EXPECT_EQ(n, dead ? ANEURALNETWORKS_DEAD_OBJECT : ANEURALNETWORKS_NO_ERROR) << run;
            if (n == ANEURALNETWORKS_NO_ERROR) {
                EXPECT_TRUE(model.correct(out)) << run;
            }
        }
        EXPECT_EQ(npuInferences() - before, forDevices ? 2 : 5);
        ANeuralNetworksCompilation_free(compilation);
    }
}

TEST_F(FaultApi, DeadNpuFallsBackEveryTimeButANewCompilationLives) {
    ASSERT_TRUE(set("vendor.nnemu.fault.execute", "DEAD_OBJECT@2").isOk());
    AppModel model(freshConstant());
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(model.compile(nullptr, &compilation), ANEURALNETWORKS_NO_ERROR);
    const int64_t before = npuInferences();
    for (int run = 1; run <= 4; ++run) {
        float out[6] = {0};
        EXPECT_EQ(model.run(compilation, false, out), ANEURALNETWORKS_NO_ERROR) << run;
        EXPECT_TRUE(model.correct(out)) << run;
    }
    EXPECT_EQ(npuInferences() - before, 1);  // only the first ran on the NPU
    ANeuralNetworksCompilation_free(compilation);
    ASSERT_EQ(model.compile("synap-npu", &compilation), ANEURALNETWORKS_NO_ERROR);
    float out[6] = {0};
    EXPECT_EQ(model.run(compilation, false, out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(model.correct(out));
    EXPECT_EQ(npuInferences() - before, 2);
    ANeuralNetworksCompilation_free(compilation);
}

TEST_F(FaultApi, EveryOtherPrepareFails) {
    ASSERT_TRUE(set("vendor.nnemu.fault.prepare", "RESOURCE_EXHAUSTED_TRANSIENT%2").isOk());
    AppModel model(freshConstant());
    for (int compilationNumber = 1; compilationNumber <= 4; ++compilationNumber) {
        ANeuralNetworksCompilation* compilation = nullptr;
        EXPECT_EQ(model.compile("synap-npu", &compilation),
                  compilationNumber % 2 == 0 ? ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT : ANEURALNETWORKS_NO_ERROR);
        ANeuralNetworksCompilation_free(compilation);
    }
}

TEST_F(FaultApi, ProbabilityRepeatsWithTheSeed) {
    auto failures = [](const char* seed) {
        EXPECT_TRUE(set("vendor.nnemu.fault.seed", seed).isOk());
        EXPECT_TRUE(set("vendor.nnemu.fault.execute", "").isOk());
        AppModel model(freshConstant());
        ANeuralNetworksCompilation* compilation = nullptr;
        EXPECT_EQ(model.compile("synap-npu", &compilation), ANEURALNETWORKS_NO_ERROR);  // no rule: counts reset
        EXPECT_TRUE(set("vendor.nnemu.fault.execute", "OP_FAILED~0.5").isOk());
        ANeuralNetworksCompilation_free(compilation);
        EXPECT_EQ(model.compile("synap-npu", &compilation), ANEURALNETWORKS_NO_ERROR);
        std::string pattern;
        for (int run = 0; run < 24; ++run) {
            float out[6];
            pattern += model.run(compilation, false, out) == ANEURALNETWORKS_NO_ERROR ? '.' : 'x';
        }
        ANeuralNetworksCompilation_free(compilation);
        return pattern;
    };
    const std::string first = failures("42");
    EXPECT_EQ(failures("42"), first);
    EXPECT_NE(first.find('x'), std::string::npos) << first;
    EXPECT_NE(first.find('.'), std::string::npos) << first;
}

TEST_F(FaultApi, OutputOfUnknownSizeIsReportedTooSmall) {
    for (Driver driver : {Driver::NPU, Driver::CPU}) {
        for (bool forDevices : {true, false}) {
            SCOPED_TRACE(std::string(driver == Driver::NPU ? "synap-npu " : "nnapi-reference ") +
                         (forDevices ? "createForDevices" : "Compilation_create"));
            clearFaultProperties();
            refresh();
            if (driver == Driver::CPU && !forDevices) {
                ASSERT_TRUE(set("vendor.NNAPI_SYNAP_DISABLE", "1").isOk());
            }
            ASSERT_TRUE(set(propertyName(driver, Point::EXECUTE), "OUTPUT_INSUFFICIENT_SIZE@1").isOk());
            AppModel model(freshConstant(), true);
            ASSERT_EQ(model.finished, ANEURALNETWORKS_NO_ERROR);
            ANeuralNetworksCompilation* compilation = nullptr;
            const char* device = driver == Driver::NPU ? "synap-npu" : "nnapi-reference";
            ASSERT_EQ(model.compile(forDevices ? device : nullptr, &compilation), ANEURALNETWORKS_NO_ERROR);
            float out[6] = {0};
            ANeuralNetworksExecution* execution = nullptr;
            // Never a fallback: the application is told the size it needs.
            EXPECT_EQ(model.run(compilation, false, out, &execution), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
            uint32_t dims[2] = {0, 0};
            EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution, 0, dims),
                      ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
            EXPECT_EQ(dims[0], 2u);
            EXPECT_EQ(dims[1], 3u);
            ANeuralNetworksExecution_free(execution);
            // The 2nd call is not selected: the same compilation runs.
            EXPECT_EQ(model.run(compilation, false, out), ANEURALNETWORKS_NO_ERROR);
            EXPECT_TRUE(model.correct(out));
            ANeuralNetworksCompilation_free(compilation);
        }
    }
}

TEST_F(FaultApi, OutputOfKnownSizeIsNotInjected) {
    ASSERT_TRUE(set("vendor.nnemu.fault.execute", "OUTPUT_INSUFFICIENT_SIZE").isOk());
    AppModel model(freshConstant());
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(model.compile("synap-npu", &compilation), ANEURALNETWORKS_NO_ERROR);
    const int64_t before = npuInferences();
    ::testing::internal::CaptureStderr();
    float out[6] = {0};
    EXPECT_EQ(model.run(compilation, false, out), ANEURALNETWORKS_NO_ERROR);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_TRUE(model.correct(out));
    EXPECT_EQ(npuInferences() - before, 1);
    EXPECT_NE(log.find("OUTPUT_INSUFFICIENT_SIZE not injected"), std::string::npos) << log;
    ANeuralNetworksCompilation_free(compilation);
}

// A device memory written by a failed execution is uninitialised again: an input use fails.
TEST_F(FaultApi, FailedExecutionLeavesItsDeviceMemoryUninitialised) {
    AppModel model(freshConstant());
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(model.compile("synap-npu", &compilation), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksMemoryDesc* desc = nullptr;
    ASSERT_EQ(ANeuralNetworksMemoryDesc_create(&desc), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc, compilation, 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc, compilation, 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksMemory* memory = nullptr;
    ASSERT_EQ(ANeuralNetworksMemory_createFromDesc(desc, &memory), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksMemoryDesc_free(desc);
    static const float a[6] = {1, 1, 1, 1, 1, 1};
    auto execute = [&](bool intoMemory) {
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), ANEURALNETWORKS_NO_ERROR);
        float out[6];
        if (intoMemory) {
            ANeuralNetworksExecution_setInput(execution, 0, nullptr, a, sizeof a);
            ANeuralNetworksExecution_setOutputFromMemory(execution, 0, nullptr, memory, 0, 0);
        } else {
            ANeuralNetworksExecution_setInputFromMemory(execution, 0, nullptr, memory, 0, 0);
            ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out, sizeof out);
        }
        ANeuralNetworksExecution_setInput(execution, 1, nullptr, a, sizeof a);
        const int n = ANeuralNetworksExecution_compute(execution);
        ANeuralNetworksExecution_free(execution);
        return n;
    };
    EXPECT_EQ(execute(true), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(execute(false), ANEURALNETWORKS_NO_ERROR);  // initialised by the first
    ASSERT_TRUE(set("vendor.nnemu.fault.execute", "OP_FAILED@3").isOk());
    ANeuralNetworksCompilation* refresh = nullptr;  // a compilation reads the fault properties
    ASSERT_EQ(model.compile("nnapi-reference", &refresh), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksCompilation_free(refresh);
    EXPECT_EQ(execute(true), ANEURALNETWORKS_NO_ERROR);  // call 1, 2
    EXPECT_EQ(execute(true), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(execute(true), ANEURALNETWORKS_OP_FAILED);  // call 3
    EXPECT_EQ(execute(false), ANEURALNETWORKS_OP_FAILED);  // uninitialised again
    ANeuralNetworksMemory_free(memory);
    ANeuralNetworksCompilation_free(compilation);
}

// ---- Garbage in the properties -------------------------------------------------------------

TEST_F(FaultApi, GarbageIsIgnoredWithOneLineNamingTheProperty) {
    ASSERT_TRUE(set("vendor.nnemu.fault.execute", "OP_FAILED@zero").isOk());
    ASSERT_TRUE(set("vendor.nnemu.fault.warp", "OP_FAILED").isOk());
    ASSERT_TRUE(set("vendor.nnemu.fault.cpu.jit", "OP_FAILED").isOk());
    ASSERT_TRUE(set("vendor.nnemu.fault.seed", "-3").isOk());
    AppModel model(freshConstant());
    ::testing::internal::CaptureStderr();
    for (int compilationNumber = 0; compilationNumber < 2; ++compilationNumber) {
        ANeuralNetworksCompilation* compilation = nullptr;
        ASSERT_EQ(model.compile("synap-npu", &compilation), ANEURALNETWORKS_NO_ERROR);
        float out[6] = {0};
        EXPECT_EQ(model.run(compilation, false, out), ANEURALNETWORKS_NO_ERROR);
        EXPECT_TRUE(model.correct(out));
        ANeuralNetworksCompilation_free(compilation);
    }
    const std::string log = ::testing::internal::GetCapturedStderr();
    for (const char* line : {"ignoring property vendor.nnemu.fault.execute=OP_FAILED@zero: the count after @",
                             "ignoring property vendor.nnemu.fault.warp=OP_FAILED: unknown fault point warp",
                             "ignoring property vendor.nnemu.fault.cpu.jit=OP_FAILED: nnapi-reference has no",
                             "ignoring property vendor.nnemu.fault.seed=-3: the seed"}) {
        const auto at = log.find(line);
        EXPECT_NE(at, std::string::npos) << line << "\n" << log;
        EXPECT_EQ(log.find(line, at + 1), std::string::npos) << "once: " << line << "\n" << log;
    }
    EXPECT_EQ(log.find("fault injected"), std::string::npos) << log;
    std::vector<InForce> list = inForce();
    ASSERT_EQ(list.size(), 4u);
    for (const InForce& fault : list) EXPECT_FALSE(fault.valid) << fault.name;
}

}  // namespace
}  // namespace nnemu::props::faults

namespace nnemu::props::faults {
namespace {

// Run by the CTest fault_trace with NNEMU_TRACE set (skipped otherwise): an injected fault is a
// `fault` event of the timeline, naming the property, its value, the call and the result.
TEST_F(FaultApi, InjectedFaultIsATraceEvent) {
    const char* path = std::getenv("NNEMU_TRACE");
    if (path == nullptr || *path == '\0') GTEST_SKIP() << "needs NNEMU_TRACE (the CTest fault_trace sets it)";
    ASSERT_TRUE(set("vendor.nnemu.fault.jit", "RESOURCE_EXHAUSTED_PERSISTENT@1").isOk());
    AppModel model(freshConstant());
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(model.compile("synap-npu", &compilation), ANEURALNETWORKS_NO_ERROR);
    float out[6] = {0};
    EXPECT_EQ(model.run(compilation, false, out), ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT);
    ANeuralNetworksCompilation_free(compilation);
    trace::flush();
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    const std::string trace = text.str();
    const auto at = trace.find("\"name\":\"fault\"");
    ASSERT_NE(at, std::string::npos) << trace.substr(0, 2000);
    const std::string event = trace.substr(at, trace.find('}', trace.find("\"args\"", at)) - at);
    for (const char* member : {"\"cat\":\"fault\"", "\"property\":\"vendor.nnemu.fault.jit\"",
                               "\"value\":\"RESOURCE_EXHAUSTED_PERSISTENT@1\"", "\"call\":1",
                               "\"result\":\"RESOURCE_EXHAUSTED_PERSISTENT\""}) {
        EXPECT_NE(event.find(member), std::string::npos) << member << " in " << event;
    }
}

}  // namespace
}  // namespace nnemu::props::faults

namespace nnemu::props::faults {
namespace {

// The caches behind the application's back: a failed read is a miss, a failed write a program not
// kept; the application sees neither, the next compile does.
class FaultCaches : public FaultApi {
protected:
    void SetUp() override {
        FaultApi::SetUp();
        ASSERT_TRUE(set("vendor.npu.cache.model", "1").isOk());
        dir_ = ::testing::TempDir() + "nnemu-fault-cache-" + std::to_string(getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override {
        std::filesystem::remove_all(dir_);
        ASSERT_TRUE(set("vendor.npu.cache.model", "").isOk());
        FaultApi::TearDown();
    }
    // A compilation on synap-npu with the NNAPI compilation cache, run once; the run's code.
    int compileAndRun(const AppModel& model) {
        ANeuralNetworksCompilation* compilation = nullptr;
        const ANeuralNetworksDevice* devices[1] = {nnemu::test::deviceNamed("synap-npu")};
        EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.model, devices, 1, &compilation),
                  ANEURALNETWORKS_NO_ERROR);
        uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {7};
        EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation, dir_.c_str(), token), ANEURALNETWORKS_NO_ERROR);
        int n = ANeuralNetworksCompilation_finish(compilation);
        float out[6] = {0};
        if (n == ANEURALNETWORKS_NO_ERROR) n = model.run(compilation, false, out);
        if (n == ANEURALNETWORKS_NO_ERROR && !model.correct(out)) n = -1;
        ANeuralNetworksCompilation_free(compilation);
        return n;
    }
    std::string dir_;
};

TEST_F(FaultCaches, FailedReadOfTheNnapiCacheFilePreparesTheModel) {
    AppModel model(freshConstant());
    auto& counters = cache::cacheCounters();
    ASSERT_EQ(compileAndRun(model), ANEURALNETWORKS_NO_ERROR);  // writes the file
    const uint64_t loads = counters.modelCacheLoads;
    ASSERT_EQ(compileAndRun(model), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(counters.modelCacheLoads, loads + 1);  // without a fault, from the file
    ASSERT_TRUE(set("vendor.nnemu.fault.cache.read", "RESOURCE_EXHAUSTED_TRANSIENT@1").isOk());
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(compileAndRun(model), ANEURALNETWORKS_NO_ERROR);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(counters.modelCacheLoads, loads + 1) << log;  // prepared anew instead
    EXPECT_NE(log.find("W:SyNAP: injectedFault():"), std::string::npos) << log;
    EXPECT_NE(log.find("fault injected by vendor.nnemu.fault.cache.read=RESOURCE_EXHAUSTED_TRANSIENT@1 at call 1"),
              std::string::npos)
            << log;
}

TEST_F(FaultCaches, FailedWritesLeaveBothCachesWithoutTheProgram) {
    AppModel model(freshConstant());
    auto& counters = cache::cacheCounters();
    ASSERT_TRUE(set("vendor.nnemu.fault.cache.write", "OP_FAILED").isOk());
    const uint64_t writes = counters.modelCacheWrites, stores = counters.synapStores, compiles = counters.compiles;
    ASSERT_EQ(compileAndRun(model), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(counters.modelCacheWrites, writes);  // the NNAPI cache file stays empty
    EXPECT_EQ(counters.synapStores, stores);       // the SyNAP cache keeps nothing
    EXPECT_EQ(counters.compiles, compiles + 1);
    ASSERT_TRUE(set("vendor.nnemu.fault.cache.write", "").isOk());
    const uint64_t loads = counters.modelCacheLoads;
    EXPECT_EQ(compileAndRun(model), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(counters.modelCacheLoads, loads);     // nothing to load
    EXPECT_EQ(counters.compiles, compiles + 2);     // compiled again: no SyNAP cache hit either
}

}  // namespace
}  // namespace nnemu::props::faults
