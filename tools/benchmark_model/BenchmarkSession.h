// One benchmark_model run over a .tflite file: loads it, applies the NNAPI "delegate" (the
// nnemu_tflite Interpreter), runs the warm-up and regular phases and prints what TFLite's tool
// prints, in its order: parameters, delegate lines, the count= lines, the final timings, the
// memory footprint and the op-profiling tables.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "BenchmarkLoop.h"
#include "BenchmarkParams.h"
#include "OpProfileTable.h"
#include "RunStatistic.h"
#include "nnemu/tflite/ExternalDelegate.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::benchmark {

class BenchmarkSession {
public:
    BenchmarkSession(const BenchmarkParams& params, BenchmarkClock& clock) : params_(params), clock_(clock) {}

    // Everything after flag parsing; true when the benchmark completed.
    bool run();

private:
    bool validateParams();
    void logParams() const;
    void logParam(const std::string& name, const std::string& description, bool always = false) const;
    bool init();
    tflite::DelegateOptions delegateOptions() const;
    // --use_xnnpack as TFLite reads it: explicit true or false, unset kXnnpackByDefault.
    bool useXnnpack() const;
    // Whether an unset --use_xnnpack applies TFLite's default delegate (XnnpackForms.h).
    static constexpr bool kXnnpackByDefault = true;
    bool reportDelegation();
    bool loadExternalDelegate();
    const char* delegateName() const;
    std::string delegateKernelName() const;
    bool prepareInputs();
    void resetInputs();
    void recordRunProfile();
    bool writeOutputs();
    void reportResults(int64_t initUs, int64_t startKb, int64_t initKb, int64_t overallKb, float peakMb);
    void reportProfiles();
    std::string partitionName(const tflite::Partition& partition) const;

    BenchmarkParams params_;
    BenchmarkClock& clock_;
    std::unique_ptr<tflite::Model> model_;
    // --external_delegate_path: the plugin, kept while the interpreter runs its kernels.
    std::unique_ptr<tflite::ExternalDelegate> external_;
    std::unique_ptr<tflite::Interpreter> interpreter_;
    std::vector<std::vector<uint8_t>> inputData_;
    RunStatistic warmupUs_;
    RunStatistic inferenceUs_;
    OpProfileTable initProfile_;
    OpProfileTable runProfile_;
    bool profiling_ = false;
    bool supportLibraryFailed_ = false;  // --nnapi_support_library_path did not load: no delegate
};

}  // namespace nnemu::benchmark
