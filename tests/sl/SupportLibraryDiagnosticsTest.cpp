// The diagnostic callbacks (nnapi-fl30plus.md §4.3), registered and read through the table as
// TensorFlow Lite's delegate does: every getter, from inside the callback.
#include <mutex>
#include <string>
#include <vector>

#include "SlConvModel.h"

namespace nnemu::sltest {
namespace {

struct Report {
    bool isCompilation = false;
    int32_t sessionId = -1;
    int64_t version = 0;
    std::vector<uint8_t> hash;
    std::string devices;
    int64_t errorCode = -1;
    int32_t inputClass = -1;
    int32_t outputClass = -1;
    int32_t mode = -1;
    bool caching = true;
    bool controlFlow = true;
    bool dynamicTensors = true;
};

struct Collected {
    const NnApiSLDriverImplFL5* sl = nullptr;
    std::mutex mutex;
    std::vector<Report> reports;
};

void onCompilation(const void* context, const ANeuralNetworksDiagnosticCompilationInfo* info) {
    auto* collected = static_cast<Collected*>(const_cast<void*>(context));
    const NnApiSLDriverImplFL5& sl = *collected->sl;
    Report report;
    report.isCompilation = true;
    report.sessionId = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getSessionId(info);
    report.version = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getNnApiVersion(info);
    const uint8_t* hash = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getModelArchHash(info);
    report.hash.assign(hash, hash + 32);
    report.devices = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getDeviceIds(info);
    report.errorCode = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getErrorCode(info);
    report.inputClass = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getInputDataClass(info);
    report.outputClass = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getOutputDataClass(info);
    (void)sl.SL_ANeuralNetworksDiagnosticCompilationInfo_getCompilationTimeNanos(info);
    report.caching = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_isCachingEnabled(info);
    report.controlFlow = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_isControlFlowUsed(info);
    report.dynamicTensors = sl.SL_ANeuralNetworksDiagnosticCompilationInfo_areDynamicTensorsUsed(info);
    std::lock_guard lock(collected->mutex);
    collected->reports.push_back(report);
}

void onExecution(const void* context, const ANeuralNetworksDiagnosticExecutionInfo* info) {
    auto* collected = static_cast<Collected*>(const_cast<void*>(context));
    const NnApiSLDriverImplFL5& sl = *collected->sl;
    Report report;
    report.sessionId = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getSessionId(info);
    report.version = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getNnApiVersion(info);
    const uint8_t* hash = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getModelArchHash(info);
    report.hash.assign(hash, hash + 32);
    report.devices = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getDeviceIds(info);
    report.errorCode = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getErrorCode(info);
    report.inputClass = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getInputDataClass(info);
    report.outputClass = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getOutputDataClass(info);
    report.mode = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getExecutionMode(info);
    (void)sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getRuntimeExecutionTimeNanos(info);
    (void)sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getDriverExecutionTimeNanos(info);
    (void)sl.SL_ANeuralNetworksDiagnosticExecutionInfo_getHardwareExecutionTimeNanos(info);
    report.caching = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_isCachingEnabled(info);
    report.controlFlow = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_isControlFlowUsed(info);
    report.dynamicTensors = sl.SL_ANeuralNetworksDiagnosticExecutionInfo_areDynamicTensorsUsed(info);
    std::lock_guard lock(collected->mutex);
    collected->reports.push_back(report);
}

class DiagnosticsTest : public ConvModelTest {
protected:
    void SetUp() override {
        ConvModelTest::SetUp();
        if (HasFatalFailure()) return;
        collected_.sl = &sl();
        sl().SL_ANeuralNetworksDiagnostic_registerCallbacks(onCompilation, onExecution, &collected_);
    }
    void TearDown() override {
        sl().SL_ANeuralNetworksDiagnostic_registerCallbacks(nullptr, nullptr, nullptr);
        ConvModelTest::TearDown();
    }

    Collected collected_;
};

TEST_F(DiagnosticsTest, CompilationAndExecutionsAreReported) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());
    ASSERT_EQ(sl().ANeuralNetworksCompilation_createForDevices(model_, &npu, 1, &compilation_),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_finish(compilation_), ANEURALNETWORKS_NO_ERROR);
    std::vector<float> in(9, 1.0f), out(4);
    ASSERT_EQ(sl().ANeuralNetworksExecution_create(compilation_, &execution_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setInput(execution_, 0, nullptr, in.data(), in.size() * sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setOutput(execution_, 0, nullptr, out.data(), out.size() * sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_compute(execution_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(sl().ANeuralNetworksExecution_compute(execution_), ANEURALNETWORKS_BAD_STATE);  // not reusable

    std::lock_guard lock(collected_.mutex);
    ASSERT_EQ(collected_.reports.size(), 2u);  // a refused start is no execution
    const Report& compiled = collected_.reports[0];
    const Report& executed = collected_.reports[1];
    EXPECT_TRUE(compiled.isCompilation);
    EXPECT_FALSE(executed.isCompilation);
    EXPECT_EQ(compiled.sessionId, executed.sessionId);
    EXPECT_EQ(compiled.hash, executed.hash);
    EXPECT_NE(compiled.hash, std::vector<uint8_t>(32, 0));
    EXPECT_EQ(compiled.version, sl().ANeuralNetworks_getRuntimeFeatureLevel());
    for (const Report* report : {&compiled, &executed}) {
        EXPECT_EQ(report->devices, "synap-npu");
        EXPECT_EQ(report->errorCode, ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(report->inputClass, ANNDIAG_DATA_CLASS_FLOAT32);
        EXPECT_EQ(report->outputClass, ANNDIAG_DATA_CLASS_FLOAT32);
        EXPECT_FALSE(report->caching);
        EXPECT_FALSE(report->controlFlow);
        EXPECT_FALSE(report->dynamicTensors);
    }
    EXPECT_EQ(executed.mode, ANNDIAG_EXECUTION_MODE_SYNC);
}

TEST_F(DiagnosticsTest, ARefusedSecondFinishIsNotReported) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());
    ASSERT_EQ(sl().ANeuralNetworksCompilation_createForDevices(model_, &npu, 1, &compilation_),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_finish(compilation_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(sl().ANeuralNetworksCompilation_finish(compilation_), ANEURALNETWORKS_BAD_STATE);
    std::lock_guard lock(collected_.mutex);
    ASSERT_EQ(collected_.reports.size(), 1u);
    EXPECT_EQ(collected_.reports[0].errorCode, ANEURALNETWORKS_NO_ERROR);
}

TEST_F(DiagnosticsTest, NothingIsReportedOnceUnregistered) {
    sl().SL_ANeuralNetworksDiagnostic_registerCallbacks(nullptr, nullptr, nullptr);
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());
    ASSERT_EQ(sl().ANeuralNetworksCompilation_createForDevices(model_, &npu, 1, &compilation_),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_finish(compilation_), ANEURALNETWORKS_NO_ERROR);
    std::lock_guard lock(collected_.mutex);
    EXPECT_TRUE(collected_.reports.empty());
}

}  // namespace
}  // namespace nnemu::sltest
