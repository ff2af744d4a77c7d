// libFuzzer target for the .tflite loader: any bytes go through Model::fromBuffer; a model that
// loads goes on to Interpreter::create (lowering, partitioning, NNAPI compilation on
// nnapi-reference) and, when its tensors are small, to invoke. Nothing may crash, hang or leak.
// The same function backs tflite_loader_fuzz_replay (FuzzReplay.cpp), which CI runs over the
// seed corpus with any compiler.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"

namespace {

constexpr size_t kMaxCreateBytes = size_t{16} << 20;   // tensors of models we compile
constexpr size_t kMaxInvokeBytes = size_t{256} << 10;  // tensors of models we also run

size_t totalTensorBytes(const nnemu::tflite::Model& model) {
    size_t total = 0;
    // Every subgraph: the bodies of WHILE and IF run inside the main graph's execution.
    for (const nnemu::tflite::Subgraph& subgraph : model.subgraphs()) {
        for (const nnemu::tflite::Tensor& tensor : subgraph.tensors) total += tensor.byteSize();
    }
    return total;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setenv("NNEMU_LOG", "silent", 1);   // rejected models are expected; keep the output readable
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    nnemu::Result<std::unique_ptr<nnemu::tflite::Model>> loaded =
            nnemu::tflite::Model::fromBuffer(std::vector<uint8_t>(data, data + size));
    if (!loaded) return 0;
    const std::unique_ptr<nnemu::tflite::Model> model = std::move(loaded).value();
    const size_t bytes = totalTensorBytes(*model);
    if (bytes > kMaxCreateBytes) return 0;
    // Both paths: the delegate on nnapi-reference, or TFLite's CPU path node by node; and both
    // semantics of the CPU nodes: TFLite's builtin kernels, or its default delegate's (XNNPACK
    // forms, the tools' default).
    nnemu::tflite::DelegateOptions options;
    if (size > 0 && (data[size - 1] & 1) != 0) {
        options.useNnapi = true;
        options.acceleratorName = "nnapi-reference";
        options.disableNnapiCpu = false;
    }
    options.xnnpack = size > 0 && (data[size - 1] & 2) != 0;
    nnemu::Result<std::unique_ptr<nnemu::tflite::Interpreter>> created = nnemu::tflite::Interpreter::create(*model, options);
    if (!created || bytes > kMaxInvokeBytes) return 0;
    nnemu::tflite::Interpreter* interpreter = created->get();
    for (size_t i = 0; i < interpreter->inputCount(); ++i) {
        uint8_t* input = interpreter->inputData(i);
        for (size_t k = 0; k < interpreter->inputTensor(i).byteSize(); ++k) input[k] = static_cast<uint8_t>(k * 31 + i);
    }
    (void)interpreter->invoke();
    return 0;
}
