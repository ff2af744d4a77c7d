#include "BenchmarkSession.h"

#include <android/NeuralNetworks.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "MemoryFootprint.h"
#include "NnapiDeviceList.h"
#include "SupportLibrary.h"
#include "TensorFiles.h"
#include "ToolLog.h"

namespace nnemu::benchmark {
namespace {

const char* const kDelegateName = "NNAPI";
const char* const kDelegateKernelName = "TfLiteNnapiDelegate";
constexpr int32_t kDefaultMemoryCheckIntervalMs = 50;

// Floats over [-0.5, 0.5].
template <typename T>
void fillUniform(uint8_t* data, size_t bytes, std::mt19937& rng) {
    std::uniform_real_distribution<T> dist(-0.5, 0.5);
    for (size_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
        const T value = dist(rng);
        std::memcpy(data + i, &value, sizeof value);
    }
}

// Random input contents in the ranges TFLite's benchmark_model uses per type.
void fillRandom(tflite::ElementType type, uint8_t* data, size_t bytes, std::mt19937& rng) {
    switch (type) {
        case tflite::ElementType::FLOAT32: fillUniform<float>(data, bytes, rng); return;
        case tflite::ElementType::UINT8: {
            std::uniform_int_distribution<int> dist(0, 254);
            for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(dist(rng));
            return;
        }
        case tflite::ElementType::INT8: {
            std::uniform_int_distribution<int> dist(-127, 127);
            for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(static_cast<int8_t>(dist(rng)));
            return;
        }
        case tflite::ElementType::INT16: {
            std::uniform_int_distribution<int> dist(0, 99);
            for (size_t i = 0; i + 2 <= bytes; i += 2) {
                const int16_t value = static_cast<int16_t>(dist(rng));
                std::memcpy(data + i, &value, sizeof value);
            }
            return;
        }
        case tflite::ElementType::INT32: {
            std::uniform_int_distribution<int32_t> dist(0, 99);
            for (size_t i = 0; i + 4 <= bytes; i += 4) {
                const int32_t value = dist(rng);
                std::memcpy(data + i, &value, sizeof value);
            }
            return;
        }
        case tflite::ElementType::INT64: {
            std::uniform_int_distribution<int64_t> dist(0, 99);
            for (size_t i = 0; i + 8 <= bytes; i += 8) {
                const int64_t value = dist(rng);
                std::memcpy(data + i, &value, sizeof value);
            }
            return;
        }
        case tflite::ElementType::BOOL: {
            std::uniform_int_distribution<int> dist(0, 1);
            for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(dist(rng));
            return;
        }
        case tflite::ElementType::FLOAT64: fillUniform<double>(data, bytes, rng); return;
        // Complex inputs as float pairs over the float range; a resource id is no input to fill.
        case tflite::ElementType::COMPLEX64: fillUniform<float>(data, bytes, rng); return;
        case tflite::ElementType::COMPLEX128: fillUniform<double>(data, bytes, rng); return;
        case tflite::ElementType::RESOURCE:
        case tflite::ElementType::STRING:   // the interpreter refuses string inputs
        case tflite::ElementType::OTHER: std::memset(data, 0, bytes); return;
    }
}

}  // namespace

void BenchmarkSession::logParam(const std::string& name, const std::string& description, bool always) const {
    if (always || params_.getBool("verbose") || params_.isSet(name)) {
        TOOL_LOG(INFO) << description << ": [" << params_.valueText(name) << "]";
    }
}

void BenchmarkSession::logParams() const {
    TOOL_LOG(INFO) << "Log parameter values verbosely: [" << params_.valueText("verbose") << "]";
    // The benchmark loop, then the model, then each delegate provider, as the board's tool does.
    logParam("num_runs", "Min num runs");
    logParam("min_secs", "Min runs duration (seconds)");
    logParam("max_secs", "Max runs duration (seconds)");
    logParam("run_delay", "Inter-run delay (seconds)");
    logParam("run_frequency", "Number of prorated runs per second");
    logParam("num_threads", "Num threads");
    logParam("warmup_runs", "Min warmup runs");
    logParam("warmup_min_secs", "Min warmup runs duration (seconds)");
    logParam("report_peak_memory_footprint", "Report the peak memory footprint");
    logParam("memory_footprint_check_interval_ms", "Memory footprint check interval (ms)");
    logParam("graph", "Graph", /*always=*/true);
    logParam("require_full_delegation", "Require full delegation");
    logParam("enable_op_profiling", "Enable op profiling");
    logParam("max_profiling_buffer_entries", "Max profiling buffer entries");
    logParam("profiling_output_csv_file", "CSV File to export profiling data to");
    logParam("input_file", "Input files");
    logParam("output_file", "Output files");
    logParam("nnemu_trace", "nnemu trace file");
    logParam("num_threads", "#threads used for CPU inference");
    logParam("max_delegated_partitions", "Max number of delegated partitions");
    logParam("min_nodes_per_partition", "Min nodes per partition");
    logParam("delegate_serialize_dir", "Directory for delegate serialization");
    logParam("delegate_serialize_token", "Model-specific token/key for delegate serialization.");
    logParam("use_nnapi", "Use NNAPI");
    if (params_.getBool("use_nnapi")) {
        logParam("nnapi_execution_preference", "NNAPI execution preference");
        logParam("nnapi_execution_priority", "Model execution priority in nnapi");
        logParam("nnapi_accelerator_name", "NNAPI accelerator name");
        const std::string devices = joinDeviceNames(nnapiDeviceNames());
        if (!devices.empty()) TOOL_LOG(INFO) << "NNAPI accelerators available: [" << devices << "]";
        logParam("disable_nnapi_cpu", "Disable NNAPI cpu");
        logParam("nnapi_allow_fp16", "Allow fp16 in NNAPI");
        logParam("nnapi_allow_dynamic_dimensions", "Allow dynamic dimensions in NNAPI");
        logParam("nnapi_use_burst_mode", "Use burst computation in NNAPI");
        logParam("nnapi_support_library_path", "NNAPI support library path");
    }
    // The board's tool shows the path the loader resolved (synap-behaviors.md §6.1).
    if (params_.isSet("external_delegate_path")) {
        TOOL_LOG(INFO) << "External delegate path: ["
                       << tflite::ExternalDelegate::resolvePath(params_.getString("external_delegate_path")) << "]";
    } else {
        logParam("external_delegate_path", "External delegate path");
    }
    logParam("external_delegate_options", "External delegate options");
    logParam("use_xnnpack", "Use xnnpack");
}

bool BenchmarkSession::validateParams() {
    if (params_.getString("graph").empty()) {
        TOOL_LOG(ERROR) << "Please specify the name of your TF Lite input file with --graph";
        return false;
    }
    if (params_.getBool("report_peak_memory_footprint")) {
        const int32_t interval = params_.getInt("memory_footprint_check_interval_ms");
        if (interval <= 0) {
            TOOL_LOG(WARNING) << "--memory_footprint_check_interval_ms is set to " << interval
                              << " (ms), This value is invalid, and it will be set to the default value "
                              << kDefaultMemoryCheckIntervalMs << " (ms).";
            params_.setInt("memory_footprint_check_interval_ms", kDefaultMemoryCheckIntervalMs);
        }
    }
    return true;
}

bool BenchmarkSession::useXnnpack() const {
    // TFLite applies XNNPACK implicitly unless --use_xnnpack=false is given explicitly.
    return params_.isSet("use_xnnpack") ? params_.getBool("use_xnnpack") : kXnnpackByDefault;
}

tflite::DelegateOptions BenchmarkSession::delegateOptions() const {
    tflite::DelegateOptions options;
    options.useNnapi = params_.getBool("use_nnapi") && !supportLibraryFailed_;
    options.acceleratorName = params_.getString("nnapi_accelerator_name");
    options.disableNnapiCpu = params_.getBool("disable_nnapi_cpu");
    options.allowFp16 = params_.getBool("nnapi_allow_fp16");
    options.xnnpack = useXnnpack();
    options.maxDelegatedPartitions = params_.getInt("max_delegated_partitions");
    options.numThreads = params_.getInt("num_threads");
    const std::string& dir = params_.getString("delegate_serialize_dir");
    const std::string& token = params_.getString("delegate_serialize_token");
    if (!dir.empty() && !token.empty()) {
        options.cacheDir = dir;
        options.cacheToken = token;
    }
    const std::string& preference = params_.getString("nnapi_execution_preference");
    if (preference == "low_power") {
        options.executionPreference = ANEURALNETWORKS_PREFER_LOW_POWER;
    } else if (preference == "fast_single_answer") {
        options.executionPreference = ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER;
    } else if (preference == "sustained_speed") {
        options.executionPreference = ANEURALNETWORKS_PREFER_SUSTAINED_SPEED;
    }
    return options;
}

bool BenchmarkSession::init() {
    const std::string& graph = params_.getString("graph");
    Result<std::unique_ptr<tflite::Model>> loaded = tflite::Model::load(graph);
    if (!loaded) {
        TOOL_LOG(ERROR) << loaded.message();
        TOOL_LOG(ERROR) << "Failed to mmap model " << graph;
        return false;
    }
    model_ = std::move(loaded).value();
    TOOL_LOG(INFO) << "Loaded model " << graph;
    TOOL_LOG(INFO) << "Initialized TensorFlow Lite runtime.";

    const bool useNnapi = params_.getBool("use_nnapi");
    const std::string& accelerator = params_.getString("nnapi_accelerator_name");
    const std::string& preference = params_.getString("nnapi_execution_preference");
    if (useNnapi) {
        if (!preference.empty() && preference != "low_power" && preference != "fast_single_answer" &&
            preference != "sustained_speed" && preference != "undefined") {
            TOOL_LOG(WARNING) << "The provided value (" << preference << ") is not a valid nnapi execution preference.";
        }
        TOOL_LOG(INFO) << "Created TensorFlow Lite delegate for NNAPI.";
        TOOL_LOG(INFO) << kDelegateName << " delegate created.";
    } else if (!accelerator.empty()) {
        TOOL_LOG(WARNING) << "`--use_nnapi=true` must be set for the provided NNAPI accelerator (" << accelerator
                          << ") to be used.";
    } else if (!preference.empty()) {
        TOOL_LOG(WARNING) << "`--use_nnapi=true` must be set for the provided NNAPI execution preference ("
                          << preference << ") to be used.";
    }
    const std::string& supportLibrary = params_.getString("nnapi_support_library_path");
    if (useNnapi && !supportLibrary.empty()) {
        // As TensorFlow Lite does: a library that does not load leaves the model without the delegate.
        int64_t level = 0;
        if (const Status checked = checkSupportLibrary(supportLibrary, &level); checked) {
            TOOL_LOG(INFO) << "Loaded NNAPI support library from path: " << supportLibrary << " (feature level "
                           << level << ")";
        } else {
            TOOL_LOG(ERROR) << "Couldn't load NNAPI support library from path: " << supportLibrary << " (" << checked.message() << ")";
            supportLibraryFailed_ = true;
        }
    }
    if (useNnapi && supportLibrary.empty()) {
        // TFLite looks the SL-only diagnostic hook up among libneuralnetworks.so's exports, which
        // never have it (only a Support Library's table does), as on the board.
        TOOL_LOG(WARNING) << "NNAPI SL driver did not implement SL_ANeuralNetworksDiagnostic_registerCallbacks!";
    }
    if (!params_.getString("external_delegate_path").empty() && !loadExternalDelegate()) return false;
    // TFLite's default delegate (XNNPACK) is created for a graph no explicit delegate takes
    // whole: here when there is none (or --use_xnnpack=true asks for it), after the explicit
    // delegate's lines otherwise (reportDelegation); a fully delegated graph never creates it,
    // as the board's documented NNAPI and vx runs show.
    if (useXnnpack() && (params_.isSet("use_xnnpack") || (!useNnapi && external_ == nullptr))) {
        TOOL_LOG(INFO) << "Created TensorFlow Lite XNNPACK delegate for CPU.";
    }

    // Applying the delegate and allocating tensors both happen in Interpreter::create.
    const int64_t startKb = readPeakResidentKb();
    const int64_t startUs = clock_.nowUs();
    tflite::DelegateOptions options = delegateOptions();
    if (external_ != nullptr) {
        if (const Status applied = external_->apply(*model_); applied) {
            options.externalKernels = external_->kernels();
            options.runExternalKernel = [this](size_t kernel) { return external_->invokeKernel(kernel); };
        } else {
            // TFLite restores the plan it had before the delegate: the graph runs on the CPU path.
            TOOL_LOG(ERROR) << applied.message();
            TOOL_LOG(WARNING) << "Restored original execution plan after delegate application failure.";
            external_.reset();
        }
    }
    Result<std::unique_ptr<tflite::Interpreter>> created = tflite::Interpreter::create(*model_, options);
    if (created) interpreter_ = std::move(created).value();
    if (interpreter_ && external_ != nullptr) external_->bind(*interpreter_);
    const int64_t elapsedUs = clock_.nowUs() - startUs;
    if (!interpreter_) {
        TOOL_LOG(ERROR) << created.message();
        if (useNnapi || external_ != nullptr) {
            TOOL_LOG(ERROR) << "Failed to apply " << delegateName() << " delegate.";
        } else {
            TOOL_LOG(ERROR) << "Failed to initialize the interpreter";
        }
        return false;
    }
    if (profiling_) {
        const std::string event = useNnapi || external_ != nullptr ? "ModifyGraphWithDelegate" : "AllocateTensors";
        const int64_t grownKb = startKb >= 0 ? readPeakResidentKb() - startKb : 0;
        initProfile_.addNodeStats(event + "/0", event, 0, elapsedUs, grownKb * 1000);
        initProfile_.addRunTotal(elapsedUs);
    }
    return useNnapi || external_ != nullptr ? reportDelegation() : true;
}

// The plugin and its options; a plugin that cannot be loaded or refuses its options leaves the
// graph to the CPU path, with the reason.
bool BenchmarkSession::loadExternalDelegate() {
    const std::string& path = params_.getString("external_delegate_path");
    Result<std::unique_ptr<tflite::ExternalDelegate>> loaded =
            tflite::ExternalDelegate::loadWithOptionText(path, params_.getString("external_delegate_options"));
    if (!loaded) {
        TOOL_LOG(ERROR) << loaded.message();
        TOOL_LOG(WARNING) << "EXTERNAL delegate not created: the graph runs on the CPU path.";
        return true;
    }
    external_ = std::move(loaded).value();
    TOOL_LOG(INFO) << "EXTERNAL delegate created.";
    return true;
}

const char* BenchmarkSession::delegateName() const { return external_ != nullptr ? "EXTERNAL" : kDelegateName; }

std::string BenchmarkSession::delegateKernelName() const {
    return external_ != nullptr ? external_->kernelName() : kDelegateKernelName;
}

bool BenchmarkSession::reportDelegation() {
    const size_t delegatedNodes = interpreter_->delegatedNodeCount();
    const size_t kernels = interpreter_->delegateKernelCount();
    const size_t partitions = interpreter_->partitions().size();
    if (delegatedNodes > 0) {
        TOOL_LOG(VERBOSE) << "Replacing " << delegatedNodes << " out of " << model_->nodes().size()
                          << " node(s) with delegate (" << delegateKernelName() << ") node, yielding " << partitions
                          << " partitions for the whole graph.";
    }
    const bool fullyDelegated = kernels == 1 && partitions == 1;
    if (params_.getBool("require_full_delegation") && !fullyDelegated) {
        TOOL_LOG(ERROR) << "Disallowed CPU fallback detected.";
        return false;
    }
    if (fullyDelegated) {
        TOOL_LOG(INFO) << "Explicitly applied " << delegateName()
                       << " delegate, and the model graph will be completely executed by the delegate.";
    } else if (kernels > 0) {
        TOOL_LOG(INFO) << "Explicitly applied " << delegateName()
                       << " delegate, and the model graph will be partially executed by the delegate w/ " << kernels
                       << " delegate kernels.";
    } else {
        TOOL_LOG(INFO) << "Though " << delegateName()
                       << " delegate is explicitly applied, the model graph will not be executed by the delegate.";
    }
    if (!fullyDelegated && !params_.isSet("use_xnnpack") && useXnnpack()) {
        TOOL_LOG(INFO) << "Created TensorFlow Lite XNNPACK delegate for CPU.";
    }
    return true;
}

bool BenchmarkSession::prepareInputs() {
    const std::vector<std::string> inputFiles = splitPathList(params_.getString("input_file"));
    const std::vector<std::string> outputFiles = splitPathList(params_.getString("output_file"));
    const size_t inputs = interpreter_->inputCount();
    if (!inputFiles.empty() && inputFiles.size() != inputs) {
        TOOL_LOG(ERROR) << "--input_file names " << inputFiles.size() << " file(s) but the model has " << inputs
                        << " input(s).";
        return false;
    }
    if (!outputFiles.empty() && outputFiles.size() != interpreter_->outputCount()) {
        TOOL_LOG(ERROR) << "--output_file names " << outputFiles.size() << " file(s) but the model has "
                        << interpreter_->outputCount() << " output(s).";
        return false;
    }
    std::mt19937 rng(5489u);   // fixed: runs are repeatable
    inputData_.assign(inputs, {});
    for (size_t i = 0; i < inputs; ++i) {
        const tflite::Tensor& tensor = interpreter_->inputTensor(i);
        const size_t bytes = tensor.byteSize();
        if (!inputFiles.empty()) {
            if (const Status read = readTensorFile(inputFiles[i], bytes, &inputData_[i]); !read) {
                TOOL_LOG(ERROR) << read.message();
                return false;
            }
        } else {
            inputData_[i].resize(bytes);
            fillRandom(tensor.type, inputData_[i].data(), bytes, rng);
        }
    }
    return true;
}

void BenchmarkSession::resetInputs() {
    for (size_t i = 0; i < inputData_.size(); ++i) {
        if (!inputData_[i].empty()) std::memcpy(interpreter_->inputData(i), inputData_[i].data(), inputData_[i].size());
    }
}

std::string BenchmarkSession::partitionName(const tflite::Partition& partition) const {
    // A node's name in the tables is its output tensor names, then ":" and its index; a delegate
    // kernel's outputs are the tensors its partition hands to the rest of the graph.
    const auto& nodes = model_->nodes();
    const auto& tensors = model_->tensors();
    std::set<uint32_t> members(partition.nodes.begin(), partition.nodes.end());
    std::vector<int32_t> outputs;
    if (!partition.delegated && partition.nodes.size() == 1) {
        outputs = nodes[partition.nodes.front()].outputs;
    } else {
        std::set<int32_t> consumedOutside;
        for (const tflite::Node& node : nodes) {
            if (members.count(node.index)) continue;
            consumedOutside.insert(node.inputs.begin(), node.inputs.end());
        }
        consumedOutside.insert(model_->outputs().begin(), model_->outputs().end());
        for (uint32_t index : partition.nodes) {
            for (int32_t output : nodes[index].outputs) {
                if (output >= 0 && consumedOutside.count(output)) outputs.push_back(output);
            }
        }
    }
    std::string names = "[";
    for (size_t i = 0; i < outputs.size(); ++i) {
        if (i > 0) names += ", ";
        const int32_t tensor = outputs[i];
        names += tensor >= 0 && static_cast<size_t>(tensor) < tensors.size() ? tensors[tensor].name : "Unknown";
    }
    names += "]:";
    const uint32_t index = partition.delegated || partition.nodes.empty() ? partition.kernelIndex : partition.nodes.front();
    return names + std::to_string(index);
}

void BenchmarkSession::recordRunProfile() {
    const auto& partitions = interpreter_->partitions();
    const auto& times = interpreter_->lastPartitionTimesUs();
    const auto& nodeTimes = interpreter_->lastNodeTimesUs();
    int64_t totalUs = 0;
    int64_t runOrder = 0;
    const auto addRow = [&](const tflite::Partition& rowPartition, const std::string& type, uint64_t elapsed) {
        const int64_t elapsedUs = static_cast<int64_t>(elapsed);
        runProfile_.addNodeStats(partitionName(rowPartition), type, runOrder++, elapsedUs, 0);
        totalUs += elapsedUs;
    };
    for (size_t i = 0; i < partitions.size() && i < times.size(); ++i) {
        const tflite::Partition& partition = partitions[i];
        if (partition.delegated) {
            addRow(partition, delegateKernelName(), times[i]);
            continue;
        }
        // CPU nodes run one by one, each timed and shown under its op name as TFLite's profiler does.
        for (uint32_t index : partition.nodes) {
            tflite::Partition node;
            node.nodes = {index};
            node.kernelIndex = index;
            addRow(node, model_->nodes()[index].opName, index < nodeTimes.size() ? nodeTimes[index] : 0);
        }
    }
    runProfile_.addRunTotal(totalUs);
}

bool BenchmarkSession::writeOutputs() {
    const std::vector<std::string> outputFiles = splitPathList(params_.getString("output_file"));
    for (size_t i = 0; i < outputFiles.size(); ++i) {
        if (const Status written =
                    writeTensorFile(outputFiles[i], interpreter_->outputData(i), interpreter_->outputTensor(i).byteSize());
            !written) {
            TOOL_LOG(ERROR) << written.message();
            return false;
        }
    }
    return true;
}

void BenchmarkSession::reportResults(int64_t initUs, int64_t startKb, int64_t initKb, int64_t overallKb, float peakMb) {
    TOOL_LOG(INFO) << "Inference timings in us: Init: " << initUs << ", First inference: " << warmupUs_.first()
                   << ", Warmup (avg): " << warmupUs_.average() << ", Inference (avg): " << inferenceUs_.average();
    if (startKb < 0) return;   // memory information is not available here
    TOOL_LOG(INFO) << "Note: as the benchmark tool itself affects memory footprint, the following is only "
                      "APPROXIMATE to the actual memory footprint of the model at runtime. Take the information at "
                      "your discretion.";
    TOOL_LOG(INFO) << "Memory footprint delta from the start of the tool (MB): init="
                   << static_cast<double>(initKb - startKb) / 1024.0
                   << " overall=" << static_cast<double>(overallKb - startKb) / 1024.0;
    if (peakMb > 0) {
        TOOL_LOG(INFO) << "Overall peak memory footprint (MB) via periodic monitoring: " << peakMb;
    }
}

void BenchmarkSession::reportProfiles() {
    const std::string& csvPath = params_.getString("profiling_output_csv_file");
    std::ofstream csvFile;
    if (!csvPath.empty()) csvFile.open(csvPath);
    const auto emit = [&](const std::string& header, const OpProfileTable& table) {
        if (!table.hasProfiles()) return;
        if (csvFile.is_open() && csvFile.good()) {
            csvFile << header << "\n" << table.report() << "\n";
        } else {
            TOOL_LOG(INFO) << header << "\n" << table.report() << "\n";
        }
    };
    emit("Profiling Info for Benchmark Initialization:", initProfile_);
    emit("Operator-wise Profiling Info for Regular Benchmark Runs:", runProfile_);
}

bool BenchmarkSession::run() {
    if (!validateParams()) return false;
    logParams();

    profiling_ = params_.getBool("enable_op_profiling");
    const bool csv = !params_.getString("profiling_output_csv_file").empty();
    initProfile_ = OpProfileTable(csv);
    runProfile_ = OpProfileTable(csv);

    std::unique_ptr<PeakMemoryMonitor> peakMonitor;
    if (params_.getBool("report_peak_memory_footprint")) {
        peakMonitor = std::make_unique<PeakMemoryMonitor>(params_.getInt("memory_footprint_check_interval_ms"));
        peakMonitor->start();
    }
    std::error_code sizeError;
    const auto fileBytes = std::filesystem::file_size(params_.getString("graph"), sizeError);
    const double modelSizeMb = sizeError ? -1.0 : static_cast<double>(fileBytes) / 1e6;

    const int64_t startKb = readPeakResidentKb();
    const int64_t initStartUs = clock_.nowUs();
    if (!init()) return false;
    const int64_t initKb = readPeakResidentKb();
    const int64_t initUs = clock_.nowUs() - initStartUs;

    if (modelSizeMb > 0) {
        TOOL_LOG(INFO) << "The input model file size (MB): " << modelSizeMb;
    } else {
        TOOL_LOG(WARNING) << "Failed to get the input model file size.";
    }
    TOOL_LOG(INFO) << "Initialized session in " << static_cast<double>(initUs) / 1e3 << "ms.";

    if (!prepareInputs()) return false;

    const auto runPhaseLogged = [&](const PhaseLimits& limits, bool regular, RunStatistic* stats) {
        TOOL_LOG(INFO) << phaseHeader(limits);
        PhaseHooks hooks;
        hooks.beforeRun = [this] { resetInputs(); };
        hooks.invoke = [this] { return interpreter_->invoke(); };
        if (regular && profiling_) hooks.afterRun = [this] { recordRunProfile(); };
        PhaseOutcome outcome = runPhase(limits, clock_, hooks);
        TOOL_LOG(INFO) << outcome.timesUs.toString() << "\n";
        *stats = outcome.timesUs;
        if (!outcome.ok) TOOL_LOG(ERROR) << outcome.error;
        return outcome.ok;
    };
    PhaseLimits limits;
    limits.maxSecs = params_.getFloat("max_secs");
    limits.runDelaySecs = params_.getFloat("run_delay");
    limits.runFrequency = params_.getFloat("run_frequency");
    limits.minRuns = params_.getInt("warmup_runs");
    limits.minSecs = params_.getFloat("warmup_min_secs");
    if (!runPhaseLogged(limits, false, &warmupUs_)) return false;
    limits.minRuns = params_.getInt("num_runs");
    limits.minSecs = params_.getFloat("min_secs");
    const bool regularOk = runPhaseLogged(limits, true, &inferenceUs_);
    const int64_t overallKb = readPeakResidentKb();
    float peakMb = -1.0f;
    if (peakMonitor) {
        peakMonitor->stop();
        peakMb = peakMonitor->peakMb();
    }
    if (!regularOk) return false;
    if (!writeOutputs()) return false;

    reportResults(initUs, startKb, initKb, overallKb, peakMb);
    if (profiling_) reportProfiles();
    return true;
}

}  // namespace nnemu::benchmark
