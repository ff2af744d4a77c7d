// Real TensorFlow Lite 2.21 as the oracle (../shared/tflite/bin/tflite_run, see its README):
// a model built by a test is written to a file, run there with TFLite's builtin kernels only
// (--xnnpack=0), and every output compared with what nnemu's interpreter gives in each of its
// modes (the CPU path, the delegate on nnapi-reference, the delegate on synap-npu).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CpuKernelHarness.h"
#include "GraphBuilder.h"
#include "TfliteKernelForms.h"
#include "TestSupport.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {

inline std::string realTfliteRun() { return sharedDir() + "/tflite/bin/tflite_run"; }

// Skips the calling test when ../shared/tflite is absent.
#define NNEMU_REQUIRE_REAL_TFLITE()                                                                     \
    do {                                                                                               \
        if (access(::nnemu::tflite::test::realTfliteRun().c_str(), X_OK) != 0) {                       \
            GTEST_SKIP() << "real TensorFlow Lite not found at " << ::nnemu::tflite::test::realTfliteRun() \
                         << " (../shared/tflite; set NNEMU_SHARED_DIR)";                               \
        }                                                                                              \
    } while (0)

struct RealTfliteResult {
    bool ok = false;
    std::string log;                             // tflite_run's output, for failure messages
    std::vector<std::vector<uint8_t>> outputs;   // per model output, its bytes
};

// Runs the model bytes with TFLite's builtin kernels on `inputs` (one byte vector per model
// input, in order). Outputs are split by the sizes tflite_run prints ("output N: ... bytes=K").
// runs > 1: invoked that many times on the same inputs, the outputs of the last (variable
// tensors carry the recurrent operators' state from one invoke to the next). xnnpack: with
// TFLite's default delegate on the nodes it claims (--xnnpack=1) instead of builtin kernels only.
inline RealTfliteResult runRealTflite(const std::vector<uint8_t>& model, const std::vector<std::vector<uint8_t>>& inputs,
                                      int runs = 1, bool xnnpack = false) {
    RealTfliteResult result;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("nnemu-real-tflite-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string modelPath = (dir / "m.tflite").string(), inPath = (dir / "in.raw").string(),
                      outPath = (dir / "out.raw").string(), logPath = (dir / "log.txt").string();
    std::ofstream(modelPath, std::ios::binary).write(reinterpret_cast<const char*>(model.data()), model.size());
    std::ofstream in(inPath, std::ios::binary);
    for (const std::vector<uint8_t>& input : inputs) in.write(reinterpret_cast<const char*>(input.data()), input.size());
    in.close();
    std::filesystem::remove(outPath);
    const std::string command = "'" + realTfliteRun() + "' --model='" + modelPath + "' --xnnpack=" +
                                (xnnpack ? "1" : "0") + " --input='" + inPath +
                                "' --output='" + outPath + "' --runs=" + std::to_string(runs) + " > '" + logPath + "' 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream logFile(logPath);
    std::stringstream log;
    log << logFile.rdbuf();
    result.log = log.str();
    const std::vector<uint8_t> all = readFile(outPath);
    std::filesystem::remove_all(dir);
    if (status != 0) return result;
    size_t offset = 0;
    std::istringstream lines(result.log);
    for (std::string line; std::getline(lines, line);) {
        const size_t bytes = line.find(" bytes=");
        if (line.rfind("output ", 0) != 0 || bytes == std::string::npos) continue;
        const size_t size = std::stoul(line.substr(bytes + 7));
        if (offset + size > all.size()) return result;
        result.outputs.emplace_back(all.begin() + offset, all.begin() + offset + size);
        offset += size;
    }
    result.ok = offset == all.size();
    return result;
}

// Floating-point values (T: float or double) within `ulps` units in the last place of the
// tensor's largest magnitude (withinFloatBound, ResultCheck.h). floor > 0: a difference up to
// floor times that magnitude passes too (the rounding residue of a transform computed in double
// where the exact value is zero).
template <typename T>
void expectWithinUlps(const uint8_t* got, const std::vector<uint8_t>& want, int ulps, double floor = 0) {
    const std::vector<T> a = valuesOf<T>(got, want.size() / sizeof(T)), b = valuesOf<T>(want.data(), want.size() / sizeof(T));
    double largest = 0;
    for (T value : b) largest = std::isfinite(value) ? std::max(largest, std::fabs(static_cast<double>(value))) : largest;
    size_t differing = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (withinFloatBound<T>(a[i], b[i], largest, ulps)) continue;
        if (floor > 0 && std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])) <= floor * largest) continue;
        if (++differing > 8) continue;   // the first few, and the count below
        ADD_FAILURE() << "element " << i << ": " << a[i] << " vs TFLite's " << b[i] << " (apart "
                      << std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])) / ulpOf<T>(largest)
                      << " ULP of the largest magnitude " << largest << ", bound " << ulps << ")";
    }
    EXPECT_EQ(differing, 0u) << "float elements beyond the bound, of " << a.size();
}

// Floats (float32, float64 and the parts of complex64, complex128) within `ulps` units in the
// last place; everything else byte for byte.
inline void expectSameBytes(const Tensor& tensor, const uint8_t* got, const std::vector<uint8_t>& want, int ulps,
                            double floor = 0) {
    const bool singles = tensor.type == ElementType::FLOAT32 || tensor.type == ElementType::COMPLEX64;
    const bool doubles = tensor.type == ElementType::FLOAT64 || tensor.type == ElementType::COMPLEX128;
    if (ulps > 0 && singles) return expectWithinUlps<float>(got, want, ulps, floor);
    if (ulps > 0 && doubles) return expectWithinUlps<double>(got, want, ulps, floor);
    // The count and the first differing bytes (gtest prints only the head of long vectors).
    size_t differing = 0;
    std::string first;
    for (size_t i = 0; i < want.size(); ++i) {
        if (got[i] == want[i]) continue;
        if (++differing <= 8) {
            first += " [" + std::to_string(i) + "] " + std::to_string(got[i]) + " vs " + std::to_string(want[i]);
        }
    }
    EXPECT_EQ(differing, 0u) << "bytes differing of " << want.size() << " (nnemu vs TFLite):" << first;
}

// The nodes of forms whose TFLite kernel computes other values than NNAPI's operation
// (frontends/tflite/src/TfliteKernelForms.cpp: quantized MEAN and SUM, ...) that `interpreter`
// delegates, as "BUILTIN at node N". A delegate computes NNAPI's semantics, as real TFLite's own
// NNAPI delegate does on nnemu's library (benchmark_model --use_nnapi=true), so a mode that
// delegates one of them legitimately differs from TFLite's builtin kernels: it is named in the
// log and not compared. Modes that delegate none (and the CPU path, always) are compared.
inline std::string delegatedNnapiForms(const Model& model, const Interpreter& interpreter) {
    std::string forms;
    for (const Partition& partition : interpreter.partitions()) {
        if (!partition.delegated) continue;
        for (uint32_t n : partition.nodes) {
            if (!tfliteKernelDiffersFromNnapi(model, model.nodes()[n])) continue;
            forms += (forms.empty() ? "" : ", ") + model.nodes()[n].opName + " at node " + std::to_string(n);
        }
    }
    return forms;
}

inline std::string realBenchmarkModel() { return sharedDir() + "/tflite/bin/benchmark_model"; }

// Runs the model bytes with real TFLite's own NNAPI delegate on nnemu's libneuralnetworks.so
// (benchmark_model --use_nnapi=true with LD_LIBRARY_PATH at this build's lib folder, beside the
// test binary's bin folder), on
// accelerator `device`, XNNPACK off: what TFLite's delegate computes through nnemu's library.
// Outputs are split by the sizes of `model`'s output tensors.
inline RealTfliteResult runRealTfliteNnapi(const std::vector<uint8_t>& bytes, const Model& model,
                                           const std::vector<std::vector<uint8_t>>& inputs, const std::string& device) {
    RealTfliteResult result;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("nnemu-real-tflite-nnapi-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string modelPath = (dir / "m.tflite").string(), outPath = (dir / "out.raw").string(),
                      logPath = (dir / "log.txt").string();
    // benchmark_model finds each input by its name, and GraphBuilder names every tensor "t": the
    // copy run here gives the model inputs distinct one-letter names, in place.
    std::vector<uint8_t> renamed = bytes;
    std::vector<std::string> inputNames;
    const auto* subgraph = fb::GetModel(renamed.data())->subgraphs()->Get(0);
    for (size_t i = 0; i < inputs.size() && i < model.inputs().size(); ++i) {
        const auto* name = subgraph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(model.inputs()[i]))->name();
        if (name != nullptr && name->size() == 1 && i < 52) {
            const_cast<char*>(name->c_str())[0] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[i];
        }
        inputNames.push_back(name != nullptr ? name->str() : model.tensors()[model.inputs()[i]].name);
    }
    std::ofstream(modelPath, std::ios::binary).write(reinterpret_cast<const char*>(renamed.data()), renamed.size());
    std::string names, shapes, files;
    for (size_t i = 0; i < inputNames.size(); ++i) {
        const Tensor& tensor = model.tensors()[model.inputs()[i]];
        const std::string file = (dir / ("in" + std::to_string(i) + ".raw")).string();
        std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(inputs[i].data()), inputs[i].size());
        std::string shape;
        for (int32_t d : tensor.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
        names += (i ? "," : "") + inputNames[i];
        shapes += (i ? ":" : "") + shape;
        files += (i ? "," : "") + inputNames[i] + ":" + file;
    }
    const std::string libDir = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "lib";
    // A model with control flow: TFLite re-applies its delegate to an IF or WHILE body at the
    // first invoke, when the body's outputs hold no bytes yet, and its NNAPI kernel then never
    // initialises ("failed to prepare", on any NNAPI library: every NNAPI call answers
    // NO_ERROR). With dynamic dimensions allowed the delegate keeps its kernels.
    const std::string dynamic = model.subgraphs().size() > 1 ? " --nnapi_allow_dynamic_dimensions=true" : "";
    const std::string command = "LD_LIBRARY_PATH='" + libDir + "' '" + realBenchmarkModel() +
                                "' --graph='" + modelPath + "' --use_xnnpack=false --use_nnapi=true" + dynamic +
                                " --nnapi_accelerator_name=" + device + " --disable_nnapi_cpu=false --input_layer='" +
                                names + "' --input_layer_shape='" + shapes + "' --input_layer_value_files='" + files +
                                "' --output_filepath='" + outPath +
                                "' --num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0 > '" + logPath + "' 2>&1";
    const int status = std::system(command.c_str());
    const std::vector<uint8_t> log = readFile(logPath), all = readFile(outPath);
    result.log.assign(log.begin(), log.end());
    std::filesystem::remove_all(dir);
    if (status != 0 || result.log.find("NNAPI acceleration is unsupported") != std::string::npos) return result;
    size_t offset = 0;
    for (int32_t t : model.outputs()) {
        const size_t size = model.tensors()[t].byteSize();
        if (offset + size > all.size()) return result;
        result.outputs.emplace_back(all.begin() + offset, all.begin() + offset + size);
        offset += size;
    }
    result.ok = offset == all.size();
    return result;
}

// A delegated mode on `device` whose execution failed (`status`): real TFLite's own delegate on
// nnemu's library and the same device must fail at the same stage, the invoke (an execution
// Android's runtime refuses, e.g. a RELU whose output is quantized otherwise than its input,
// which keeps the input's quantization, then a bias of another scale), never run.
inline void expectRealTfliteDelegateFailsToo(const std::vector<uint8_t>& bytes, const Model& model,
                                             const std::vector<std::vector<uint8_t>>& inputs, const std::string& device,
                                             const Status& status) {
    ASSERT_FALSE(device.empty()) << "the CPU path failed: " << status.message();
    const RealTfliteResult oracle = runRealTfliteNnapi(bytes, model, inputs, device);
    ASSERT_FALSE(oracle.ok) << "nnemu's execution failed (" << status.message()
                            << ") where real TFLite's delegate ran on the same device";
    EXPECT_NE(oracle.log.find("failed to invoke"), std::string::npos) << oracle.log;
}

// The model (.tflite bytes), on `inputs`, gives in every interpreter mode what real TFLite's
// builtin kernels give (a delegated mode that gives NNAPI's semantics by design, see
// delegatedNnapiForms: what real TFLite's own delegate gives on nnemu's library) (after `runs` invokes: state such as resource variables carries over;
// floatFloor: see expectWithinUlps).
inline void expectSameAsRealTflite(const std::vector<uint8_t>& bytes, const std::vector<std::vector<uint8_t>>& inputs,
                                   int floatUlps = 4, int runs = 1, double floatFloor = 0) {
    const RealTfliteResult real = runRealTflite(bytes, inputs, runs);
    ASSERT_TRUE(real.ok) << "tflite_run failed:\n" << real.log;
    const std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    forEachKernelRunMode(bytes, [&](Interpreter& interpreter, const RunMode& mode) {
        ASSERT_EQ(interpreter.inputCount(), inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) {
            ASSERT_EQ(interpreter.inputTensor(i).byteSize(), inputs[i].size());
            if (!inputs[i].empty()) std::memcpy(interpreter.inputData(i), inputs[i].data(), inputs[i].size());
        }
        Status status;
        for (int run = 0; run < runs && status.isOk(); ++run) status = interpreter.invoke();
        if (!status.isOk()) {
            // Allowed only where Android refuses it too: real TFLite's delegate on the same device.
            expectRealTfliteDelegateFailsToo(bytes, *model, inputs, mode.options.acceleratorName, status);
            return;
        }
        ASSERT_EQ(interpreter.outputCount(), real.outputs.size());
        // A delegated form whose NNAPI result is not TFLite's kernel's: the oracle is what real
        // TFLite's own NNAPI delegate gives through nnemu's library on the same device (the mode's
        // accelerator; not the last device listed, which is always nnapi-reference).
        RealTfliteResult delegatedOracle;
        if (const std::string forms = delegatedNnapiForms(*model, interpreter); !forms.empty()) {
            ASSERT_FALSE(mode.options.acceleratorName.empty()) << forms;
            SCOPED_TRACE("delegated " + forms + ": against real TFLite's delegate on nnemu's library, " +
                         mode.options.acceleratorName);
            delegatedOracle = runRealTfliteNnapi(bytes, *model, inputs, mode.options.acceleratorName);
            ASSERT_TRUE(delegatedOracle.ok) << "benchmark_model --use_nnapi=true failed:\n" << delegatedOracle.log;
        }
        const RealTfliteResult& want = delegatedOracle.ok ? delegatedOracle : real;
        for (size_t o = 0; o < want.outputs.size(); ++o) {
            SCOPED_TRACE("output " + std::to_string(o));
            ASSERT_EQ(interpreter.outputTensor(o).byteSize(), want.outputs[o].size());
            expectSameBytes(interpreter.outputTensor(o), interpreter.outputData(o), want.outputs[o], floatUlps,
                            floatFloor);
        }
    });
}

// Only the CPU path (no delegate) against TFLite's builtin kernels: for a model whose delegated
// modes are known to differ from what real TFLite's own delegate gives on nnemu's library, named
// with the reason where it is called. `real`: what tflite_run gave on these inputs
// (runRealTflite); outputNames: what each output is, for failure messages (a model of many
// independent cases); options.xnnpack: nnemu's CPU path as TFLite's default delegate (then `real`
// comes from tflite_run --xnnpack=1).
inline void expectCpuPathAsRealTflite(const std::vector<uint8_t>& bytes, const std::vector<std::vector<uint8_t>>& inputs,
                                      const RealTfliteResult& real, int floatUlps = 4,
                                      const std::vector<std::string>& outputNames = {},
                                      const DelegateOptions& options = {}) {
    ASSERT_TRUE(real.ok) << "tflite_run failed:\n" << real.log;
    const std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    const std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, options));
    ASSERT_NE(interpreter, nullptr);
    ASSERT_EQ(interpreter->inputCount(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
    const Status status = interpreter->invoke();
    ASSERT_TRUE(status.isOk()) << status.message();
    ASSERT_EQ(interpreter->outputCount(), real.outputs.size());
    for (size_t o = 0; o < real.outputs.size(); ++o) {
        SCOPED_TRACE("output " + std::to_string(o) + (o < outputNames.size() ? ": " + outputNames[o] : ""));
        ASSERT_EQ(interpreter->outputTensor(o).byteSize(), real.outputs[o].size());
        expectSameBytes(interpreter->outputTensor(o), interpreter->outputData(o), real.outputs[o], floatUlps);
    }
}
inline void expectCpuPathAsRealTflite(const std::vector<uint8_t>& bytes, const std::vector<std::vector<uint8_t>>& inputs,
                                      int floatUlps = 4, const std::vector<std::string>& outputNames = {},
                                      bool xnnpack = false) {
    DelegateOptions options;
    options.xnnpack = xnnpack;
    expectCpuPathAsRealTflite(bytes, inputs, runRealTflite(bytes, inputs, 1, xnnpack), floatUlps, outputNames, options);
}

inline void expectSameAsRealTflite(const GraphBuilder& builder, const std::vector<std::vector<uint8_t>>& inputs,
                                   int floatUlps = 4, int runs = 1, double floatFloor = 0) {
    expectSameAsRealTflite(builder.buildBytes(), inputs, floatUlps, runs, floatFloor);
}

// Deterministic test data: `count` values of T spread over [low, high].
template <typename T>
std::vector<uint8_t> rampBytes(size_t count, double low, double high) {
    std::vector<T> values(count);
    for (size_t i = 0; i < count; ++i) {
        const double t = count > 1 ? static_cast<double>((i * 7919) % count) / static_cast<double>(count - 1) : 0.0;
        values[i] = static_cast<T>(low + t * (high - low));
    }
    return GraphBuilder::bytes(values);
}

// How many nodes the delegate takes on nnapi-reference. NNEMU_DUMP_MODELS=DIR also writes the
// model to DIR/<test>.tflite, to compare with what real TFLite's delegate takes
// (benchmark_model --use_nnapi=true with nnemu's libneuralnetworks.so).
inline size_t delegatedNodes(const GraphBuilder& g) {
    if (const char* dir = std::getenv("NNEMU_DUMP_MODELS")) {
        const std::vector<uint8_t> bytes = g.buildBytes();
        // A test's later models get a numbered name: <test>.1.tflite, <test>.2.tflite, ...
        static std::map<std::string, int> dumped;
        std::string name = testing::UnitTest::GetInstance()->current_test_info()->name();
        if (const int n = dumped[name]++; n > 0) name += "." + std::to_string(n);
        std::ofstream(std::string(dir) + "/" + name + ".tflite", std::ios::binary)
                .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(g.buildBytes()));
    EXPECT_NE(model, nullptr);
    if (model == nullptr) return 0;
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, nnapiReferenceOptions()));
    EXPECT_NE(interpreter, nullptr);
    return interpreter == nullptr ? 0 : interpreter->delegatedNodeCount();
}

}  // namespace nnemu::tflite::test
