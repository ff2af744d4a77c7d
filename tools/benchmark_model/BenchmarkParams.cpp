#include "BenchmarkParams.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace nnemu::benchmark {

const std::vector<ParamSpec>& benchmarkParamSpecs() {
    using T = ParamType;
    static const std::vector<ParamSpec> specs = {
        // The benchmark loop.
        {"num_runs", T::INT32, "50", "expected number of runs, see also min_secs, max_secs"},
        {"min_secs", T::FLOAT, "1", "minimum number of seconds to rerun for, potentially making the actual number of runs to be greater than num_runs"},
        {"max_secs", T::FLOAT, "150", "maximum number of seconds to rerun for, potentially making the actual number of runs to be less than num_runs. A run in progress finishes, but no new run starts."},
        {"run_delay", T::FLOAT, "-1", "delay between runs in seconds"},
        {"run_frequency", T::FLOAT, "-1", "execute at a fixed frequency (runs per second) instead of a fixed delay; overrides run_delay"},
        {"num_threads", T::INT32, "-1", "number of threads"},
        {"warmup_runs", T::INT32, "1", "minimum number of warm-up runs, see also warmup_min_secs"},
        {"warmup_min_secs", T::FLOAT, "0.5", "minimum number of seconds to run warm-up runs for"},
        {"verbose", T::BOOL, "false", "log every parameter, not only those set on the command line"},
        {"report_peak_memory_footprint", T::BOOL, "false", "report the peak memory footprint by checking it periodically from a separate thread"},
        {"memory_footprint_check_interval_ms", T::INT32, "50", "interval between two memory footprint checks, with --report_peak_memory_footprint"},
        // The model.
        {"graph", T::STRING, "", "graph file name (.tflite)"},
        {"require_full_delegation", T::BOOL, "false", "require the delegate to run the entire graph"},
        {"enable_op_profiling", T::BOOL, "false", "enable op profiling"},
        {"max_profiling_buffer_entries", T::INT32, "1024", "max profiling buffer entries"},
        {"profiling_output_csv_file", T::STRING, "", "file path to export profile data to as CSV; if not set, the tables are logged"},
        // Common delegate parameters.
        {"help", T::BOOL, "false", "print out all supported flags if true"},
        {"max_delegated_partitions", T::INT32, "0", "max number of partitions to be delegated (<= 0: no limit)"},
        {"min_nodes_per_partition", T::INT32, "0", "minimal number of nodes a partition needs to be delegated (accepted, not used by nnemu)"},
        {"delegate_serialize_dir", T::STRING, "", "directory for the NNAPI compilation cache; needs --delegate_serialize_token too"},
        {"delegate_serialize_token", T::STRING, "", "model-specific token for the NNAPI compilation cache; needs --delegate_serialize_dir too"},
        // The NNAPI delegate.
        {"use_nnapi", T::BOOL, "false", "use nnapi delegate api"},
        {"nnapi_execution_preference", T::STRING, "", "execution preference for nnapi delegate: fast_single_answer, sustained_speed, low_power, undefined"},
        {"nnapi_execution_priority", T::STRING, "", "execution priority in nnapi: default, low, medium, high (needs feature level 30; ignored)"},
        {"nnapi_accelerator_name", T::STRING, "", "the name of the nnapi accelerator to use, e.g. synap-npu"},
        {"disable_nnapi_cpu", T::BOOL, "true", "disable the NNAPI CPU device (nnapi-reference); ignored when an accelerator name is given"},
        {"nnapi_allow_fp16", T::BOOL, "false", "allow fp32 computation to be run in fp16 (relaxComputationFloat32toFloat16)"},
        {"nnapi_allow_dynamic_dimensions", T::BOOL, "false", "allow dynamic dimensions in NNAPI (accepted, not used by nnemu)"},
        {"nnapi_use_burst_mode", T::BOOL, "false", "use burst computation in NNAPI (accepted, not used by nnemu)"},
        {"nnapi_support_library_path", T::STRING, "", "path to an NNAPI support library: the libneuralnetworks.so benchmark_model is linked with"},
        // Other delegates of the board's build.
        {"external_delegate_path", T::STRING, "", "path to an external delegate library (not supported by nnemu)"},
        {"external_delegate_options", T::STRING, "", "external delegate options, k1:v1;k2:v2 (not supported by nnemu)"},
        {"use_xnnpack", T::BOOL, "false", "TFLite's XNNPACK delegate on the CPU nodes: 8-bit nodes it would take compute its arithmetic (nnemu has no XNNPACK: the tools' CPU kernels do); unset: applied as TFLite applies it implicitly, false: TFLite's builtin kernels only"},
        // nnemu's additions, so that results can be checked.
        {"input_file", T::STRING, "", "nnemu: raw bytes for each model input, in the input tensor's type and layout, PATH[,PATH...] in input order (default: random data)"},
        {"output_file", T::STRING, "", "nnemu: write the raw bytes of each model output after the last run, PATH[,PATH...] in output order"},
        {"nnemu_trace", T::STRING, "", "nnemu: write a Chrome/Perfetto trace of the NNAPI runtime and devices to this JSON file (as NNEMU_TRACE does)"},
    };
    return specs;
}

bool parseBool(const std::string& text, bool* value) {
    if (text == "true" || text == "1") {
        *value = true;
        return true;
    }
    if (text == "false" || text == "0") {
        *value = false;
        return true;
    }
    return false;
}

bool parseInt32(const std::string& text, int32_t* value) {
    if (text.empty()) return false;
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size()) return false;
    if (parsed < std::numeric_limits<int32_t>::min() || parsed > std::numeric_limits<int32_t>::max()) return false;
    *value = static_cast<int32_t>(parsed);
    return true;
}

bool parseFloat(const std::string& text, float* value) {
    if (text.empty()) return false;
    errno = 0;
    char* end = nullptr;
    const float parsed = std::strtof(text.c_str(), &end);
    if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(parsed)) return false;
    *value = parsed;
    return true;
}

BenchmarkParams::BenchmarkParams() {
    for (const ParamSpec& spec : benchmarkParamSpecs()) {
        Entry entry{spec.type, Value{}, false};
        switch (spec.type) {
            case ParamType::BOOL: {
                bool value = false;
                parseBool(spec.defaultValue, &value);
                entry.value = value;
                break;
            }
            case ParamType::INT32: {
                int32_t value = 0;
                parseInt32(spec.defaultValue, &value);
                entry.value = value;
                break;
            }
            case ParamType::FLOAT: {
                float value = 0;
                parseFloat(spec.defaultValue, &value);
                entry.value = value;
                break;
            }
            case ParamType::STRING: entry.value = spec.defaultValue; break;
        }
        values_.emplace(spec.name, std::move(entry));
    }
}

const BenchmarkParams::Entry& BenchmarkParams::entry(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) throw std::logic_error("benchmark_model: no parameter named " + name);
    return it->second;
}

BenchmarkParams::Entry& BenchmarkParams::entry(const std::string& name) {
    const auto it = values_.find(name);
    if (it == values_.end()) throw std::logic_error("benchmark_model: no parameter named " + name);
    return it->second;
}

bool BenchmarkParams::isSet(const std::string& name) const { return entry(name).set; }

ParamType BenchmarkParams::type(const std::string& name) const { return entry(name).type; }

bool BenchmarkParams::setFromText(const std::string& name, const std::string& text) {
    Entry& target = entry(name);
    switch (target.type) {
        case ParamType::BOOL: {
            bool value = false;
            if (!parseBool(text, &value)) return false;
            target.value = value;
            break;
        }
        case ParamType::INT32: {
            int32_t value = 0;
            if (!parseInt32(text, &value)) return false;
            target.value = value;
            break;
        }
        case ParamType::FLOAT: {
            float value = 0;
            if (!parseFloat(text, &value)) return false;
            target.value = value;
            break;
        }
        case ParamType::STRING: target.value = text; break;
    }
    target.set = true;
    return true;
}

std::string BenchmarkParams::valueText(const std::string& name) const {
    std::ostringstream out;
    std::visit([&out](const auto& value) { out << value; }, entry(name).value);
    return out.str();
}

}  // namespace nnemu::benchmark
