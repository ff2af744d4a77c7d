// Real TensorFlow Lite 2.21's own NNAPI delegate driving nnemu's library, as a second oracle
// for the delegated modes where TFLite's builtin kernels round otherwise (RealTfliteModelsTest).
#pragma once

#include "RealTflite.h"

namespace nnemu::tflite::test {

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
    std::ofstream(modelPath, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    std::string names, shapes, files;
    for (size_t i = 0; i < inputs.size() && i < model.inputs().size(); ++i) {
        const Tensor& tensor = model.tensors()[model.inputs()[i]];
        const std::string file = (dir / ("in" + std::to_string(i) + ".raw")).string();
        std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(inputs[i].data()), inputs[i].size());
        std::string shape;
        for (int32_t d : tensor.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
        names += (i ? "," : "") + tensor.name;
        shapes += (i ? ":" : "") + shape;
        files += (i ? "," : "") + tensor.name + ":" + file;
    }
    const std::string libDir = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "lib";
    const std::string command = "LD_LIBRARY_PATH='" + libDir + "' '" + realBenchmarkModel() +
                                "' --graph='" + modelPath + "' --use_xnnpack=false --use_nnapi=true" +
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

// The model gives on the CPU path (no delegate) what TFLite's builtin kernels give (tflite_run
// --xnnpack=0), and in each delegated mode what real TFLite's own NNAPI delegate gives through
// nnemu's library on the same accelerator: for forms whose TFLite results differ from NNAPI's
// (src/TfliteKernelForms.h), where a delegated node computes NNAPI's.
inline void expectCpuPathAsTfliteDelegatedAsItsDelegate(const std::vector<uint8_t>& bytes, const Model& model,
                                                        const std::vector<std::vector<uint8_t>>& inputs, int floatUlps) {
    const RealTfliteResult builtin = runRealTflite(bytes, inputs);
    ASSERT_TRUE(builtin.ok) << "tflite_run failed:\n" << builtin.log;
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        RealTfliteResult want = builtin;
        if (mode.options.useNnapi) {
            want = runRealTfliteNnapi(bytes, model, inputs, mode.options.acceleratorName);
            ASSERT_TRUE(want.ok) << "benchmark_model --use_nnapi=true failed:\n" << want.log;
        }
        const std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(model, mode.options));
        ASSERT_NE(interpreter, nullptr);
        for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
        ASSERT_TRUE(isOk(interpreter->invoke()));
        ASSERT_EQ(interpreter->outputCount(), want.outputs.size());
        for (size_t o = 0; o < want.outputs.size(); ++o) {
            SCOPED_TRACE("output " + std::to_string(o));
            ASSERT_EQ(interpreter->outputTensor(o).byteSize(), want.outputs[o].size());
            expectSameBytes(interpreter->outputTensor(o), interpreter->outputData(o), want.outputs[o], floatUlps);
        }
    }
}

}  // namespace nnemu::tflite::test
