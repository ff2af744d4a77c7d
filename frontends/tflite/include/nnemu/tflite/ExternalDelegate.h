// Hosting a TensorFlow Lite external delegate plugin (tflite_plugin_create_delegate /
// tflite_plugin_destroy_delegate, the C ABI of nnemu/delegate/TfLiteAbi.h) over a loaded Model,
// as TFLite's interpreter hosts one: a TfLiteContext over the model's tensors and nodes, the
// delegate's Prepare, then its kernels for the node subsets it replaced. The Interpreter runs
// the kernels in place of those subsets and everything else on its own path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

class Interpreter;

class ExternalDelegate {
public:
    using Options = std::vector<std::pair<std::string, std::string>>;
    // "k1:v1;k2:v2" (benchmark_model's --external_delegate_options); BAD_DATA on an entry without ':'.
    static Result<Options> parseOptions(const std::string& text);
    // dlopen + tflite_plugin_create_delegate. UNAVAILABLE with a message when the library or its
    // entry points are missing or the plugin refuses to create a delegate (bad options).
    // Where the dynamic loader finds `path` (a bare name goes through its search path), as an
    // absolute path: what the board's tool logs as "External delegate path". `path` itself when
    // it does not load.
    static std::string resolvePath(const std::string& path);
    static Result<std::unique_ptr<ExternalDelegate>> load(const std::string& path, const Options& options);
    // parseOptions(optionsText), then load: what the tools' --external_delegate_* flags ask for.
    static Result<std::unique_ptr<ExternalDelegate>> loadWithOptionText(const std::string& path,
                                                                        const std::string& optionsText);
    ~ExternalDelegate();

    // Runs the delegate's Prepare over the model. A failure: the delegate failed (the model then
    // runs without it). Afterwards kernels() lists the replaced node subsets, in execution order.
    Status apply(const Model& model);
    const std::vector<std::vector<uint32_t>>& kernels() const { return kernels_; }
    // The delegate kernel's registration name (e.g. "Vx Delegate"); "" before apply.
    const std::string& kernelName() const;
    // Node subsets in execution order (delegated or not), after apply.
    size_t partitionCount() const { return partitionCount_; }

    // Points the context's tensors at the interpreter's buffers (after Interpreter::create).
    void bind(Interpreter& interpreter);
    Status invokeKernel(size_t kernel);

    ExternalDelegate(const ExternalDelegate&) = delete;
    ExternalDelegate& operator=(const ExternalDelegate&) = delete;

    struct Host;  // internal: the TfLiteContext and everything it points to

private:
    ExternalDelegate() = default;
    void releaseKernels();

    std::unique_ptr<Host> host_;
    std::vector<std::vector<uint32_t>> kernels_;
    size_t partitionCount_ = 0;
};

}  // namespace nnemu::tflite
