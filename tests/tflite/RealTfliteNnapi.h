// Real TensorFlow Lite 2.21's own NNAPI delegate driving nnemu's library, as a second oracle
// for the delegated modes where TFLite's builtin kernels round otherwise (RealTfliteModelsTest).
#pragma once

#include "RealTflite.h"

namespace nnemu::tflite::test {

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
        const std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(model, mode.options));
        ASSERT_NE(interpreter, nullptr);
        for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
        const Status status = interpreter->invoke();
        if (!status.isOk() && mode.options.useNnapi) {
            expectRealTfliteDelegateFailsToo(bytes, model, inputs, mode.options.acceleratorName, status);
            continue;
        }
        ASSERT_TRUE(status.isOk()) << status.message();
        RealTfliteResult want = builtin;
        if (mode.options.useNnapi) {
            want = runRealTfliteNnapi(bytes, model, inputs, mode.options.acceleratorName);
            ASSERT_TRUE(want.ok) << "benchmark_model --use_nnapi=true failed:\n" << want.log;
        }
        ASSERT_EQ(interpreter->outputCount(), want.outputs.size());
        for (size_t o = 0; o < want.outputs.size(); ++o) {
            SCOPED_TRACE("output " + std::to_string(o));
            ASSERT_EQ(interpreter->outputTensor(o).byteSize(), want.outputs[o].size());
            expectSameBytes(interpreter->outputTensor(o), interpreter->outputData(o), want.outputs[o], floatUlps);
        }
    }
}

}  // namespace nnemu::tflite::test
