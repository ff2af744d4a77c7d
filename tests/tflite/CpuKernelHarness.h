// Runs a one-graph model built in a test through the interpreter in each mode (TFLite's CPU
// path, the delegate on nnapi-reference, synap-npu when listed) and compares the outputs with
// the test's own computation: for the tools' CPU kernels (frontends/tflite/src/cpu).
#pragma once

#include <random>
#include <type_traits>

#include "GraphBuilder.h"
#include "TestSupport.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {

template <typename T>
std::vector<T> valuesOf(const uint8_t* data, size_t count) {
    std::vector<T> values(count);
    if (count != 0) std::memcpy(values.data(), data, count * sizeof(T));
    return values;
}

inline std::vector<RunMode> kernelRunModes() {
    std::vector<RunMode> modes = runModes();
    DelegateOptions npu;
    npu.useNnapi = true;
    npu.acceleratorName = "synap-npu";
    modes.push_back({"synap_npu", npu});
    return modes;
}

// Calls check(interpreter), or check(interpreter, mode) when it takes the mode, for the model in
// `bytes` in every kernel run mode, under a SCOPED_TRACE of the mode's name; a model or an
// interpreter that cannot be made fails the test.
template <typename Check>
void forEachKernelRunMode(const std::vector<uint8_t>& bytes, Check&& check) {
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, mode.options));
        ASSERT_NE(interpreter, nullptr);
        if constexpr (std::is_invocable_v<Check, Interpreter&, const RunMode&>) {
            check(*interpreter, mode);
        } else {
            check(*interpreter);
        }
    }
}

// Runs `model` in every mode with `inputs` (bytes per model input, TFLite layout) and checks each
// output against `expected` (bytes per output): exactly, or float32 within `tolerance` and
// 8-bit values within 1 when tolerance > 0. Modes whose accelerator is not listed are skipped.
// expectCpuKernel: some node must stay off the delegate (it runs on the tools' CPU kernel).
inline void compareOutput(const Tensor& tensor, const uint8_t* got, const std::vector<uint8_t>& want, float tolerance) {
    if (tolerance <= 0) {
        EXPECT_EQ(std::vector<uint8_t>(got, got + want.size()), want);
    } else if (tensor.type == ElementType::FLOAT32) {
        const std::vector<float> a = valuesOf<float>(got, want.size() / 4), b = valuesOf<float>(want.data(), want.size() / 4);
        for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tolerance) << "element " << i;
    } else {
        for (size_t i = 0; i < want.size(); ++i) {
            const int a = tensor.type == ElementType::INT8 ? static_cast<int8_t>(got[i]) : got[i];
            const int b = tensor.type == ElementType::INT8 ? static_cast<int8_t>(want[i]) : want[i];
            EXPECT_NEAR(a, b, 1) << "element " << i;
        }
    }
}

inline void expectOutputs(const Model& model, const std::vector<std::vector<uint8_t>>& inputs,
                          const std::vector<std::vector<uint8_t>>& expected, bool expectCpuKernel = true,
                          float tolerance = 0) {
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        Result<std::unique_ptr<Interpreter>> created = Interpreter::create(model, mode.options);
        if (!created && created.message().find("synap-npu") != std::string::npos) continue;   // not listed
        ASSERT_TRUE(isOk(created.status()));
        const std::unique_ptr<Interpreter> interpreter = std::move(created).value();
        if (expectCpuKernel && mode.options.useNnapi) {
            EXPECT_LT(interpreter->delegatedNodeCount(), model.nodes().size());
        }
        ASSERT_EQ(interpreter->inputCount(), inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) {
            ASSERT_EQ(interpreter->inputTensor(i).byteSize(), inputs[i].size());
            if (!inputs[i].empty()) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
        }
        ASSERT_TRUE(isOk(interpreter->invoke()));
        ASSERT_EQ(interpreter->outputCount(), expected.size());
        for (size_t o = 0; o < expected.size(); ++o) {
            ASSERT_EQ(interpreter->outputTensor(o).byteSize(), expected[o].size());
            SCOPED_TRACE("output " + std::to_string(o));
            compareOutput(interpreter->outputTensor(o), interpreter->outputData(o), expected[o], tolerance);
        }
    }
}

// Interpreter::create's error for a model (empty when it succeeds).
inline std::string createError(const Model& model) { return Interpreter::create(model, DelegateOptions{}).message(); }

template <typename T>
std::vector<T> randomValues(size_t count, double low, double high, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(low, high);
    std::vector<T> values(count);
    for (T& v : values) v = static_cast<T>(dist(rng));
    return values;
}

}  // namespace nnemu::tflite::test
