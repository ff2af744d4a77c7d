// libvx_delegate.so: a TensorFlow Lite external delegate on nnemu's emulated NPU, like the
// board's timvx delegate. Prepare claims what synap-npu runs (the loader's TFLite-to-NNAPI
// mapping, then the driver's own claim), each delegated partition becomes a network of the same
// driver, compiled at its first invoke (synap-behaviors.md §2.1, §6.1).
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>

#include "GraphCache.h"
#include "HalPartition.h"
#include "VxOptions.h"
#include "nnemu/delegate/TfLiteAbi.h"
#include "nnemu/synap/DirectAccess.h"
#include "nnemu/tflite/ContextReader.h"
#include "nnemu/tflite/Lowering.h"

namespace nnemu::vx {
namespace {

constexpr int32_t kBuiltinDelegate = 51;  // kTfLiteBuiltinDelegate: the code of delegate kernels
constexpr const char* kKernelName = "Vx Delegate";

// One Prepare's view of the host graph, shared by the kernels it created.
struct PreparedGraph {
    std::unique_ptr<tflite::ContextGraph> context;
    tflite::NnapiGraph graph;
    int kernelsMade = 0;
};

struct Delegate {
    TfLiteDelegate abi{};
    VxOptions options;
    bool takesNothing = false;  // refused options, for a host that cannot take a null delegate
    std::shared_ptr<PreparedGraph> current;   // the graph of the Prepare in progress
};

struct Kernel {
    std::shared_ptr<PreparedGraph> graph;
    HalPartition partition;
    std::shared_ptr<hal::IPreparedModel> network;
    const VxOptions* options = nullptr;
    bool saveToCache = false;  // write the program to cache_file_path after the first invoke
    GraphKey cacheKey{};
};

// A host tensor's memory, lent to one execution.
class BorrowedPool final : public hal::MemoryPool {
public:
    BorrowedPool(void* data, size_t size) : data_(static_cast<uint8_t*>(data)), size_(size) {}
    uint8_t* data() const override { return data_; }
    size_t size() const override { return size_; }

private:
    uint8_t* data_;
    size_t size_;
};

Delegate* delegateOf(TfLiteDelegate* abi) { return static_cast<Delegate*>(abi->data_); }

std::set<int32_t> arraySet(const TfLiteIntArray* array) {
    std::set<int32_t> values;
    for (int i = 0; array != nullptr && i < array->size; ++i) values.insert(array->data[i]);
    return values;
}

// allowed_cache_mode (synap-behaviors.md §6.1): the file holds the program of one partition, the
// first; a usable one replaces compilation, otherwise the program is saved after the first invoke.
void useGraphCache(Kernel& kernel, int partitionIndex) {
    const std::string& path = kernel.options->cacheFilePath;
    if (path.empty()) return;  // said once, at creation
    if (partitionIndex > 0) {
        std::fprintf(stderr,
                     "WARNING: Vx delegate: cache_file_path holds one compiled graph; delegated partition %d "
                     "compiles without it.\n",
                     partitionIndex + 1);
        return;
    }
    kernel.cacheKey = synap::networkKey(kernel.partition.model);
    if (kernel.cacheKey == GraphKey{}) return;  // no digest, no key to trust
    CachedGraph cached = loadCachedGraph(path, kernel.cacheKey, synap::networkCompilerVersion());
    if (!cached.message.empty()) std::fprintf(stderr, "WARNING: Vx delegate: %s\n", cached.message.c_str());
    if (!cached.program.empty()) {
        Result<std::shared_ptr<hal::IPreparedModel>> network = synap::networkFromProgram(std::move(cached.program));
        if (network.isOk()) {
            kernel.network = std::move(network).value();
            std::fprintf(stderr, "INFO: Vx delegate: compiled graph loaded from %s; compilation skipped.\n",
                         path.c_str());
            return;
        }
        std::fprintf(stderr, "WARNING: Vx delegate: %s\n",
                     ("cache_file_path " + path + ": its program does not load (" + network.message() +
                      "); the graph compiles and its program replaces the file.").c_str());
    }
    kernel.saveToCache = cached.mayReplace;
}

// After the first invoke compiled the graph.
void saveGraphCache(Kernel& kernel) {
    kernel.saveToCache = false;
    const std::vector<uint8_t> program = synap::compiledProgram(*kernel.network);
    const std::string& path = kernel.options->cacheFilePath;
    const Status saved = program.empty() ? Status(StatusCode::NOT_FOUND, "no program")
                                         : saveCachedGraph(path, kernel.cacheKey, synap::networkCompilerVersion(), program);
    if (saved) {
        std::fprintf(stderr, "INFO: Vx delegate: compiled graph saved to %s.\n", path.c_str());
    } else {
        std::fprintf(stderr, "WARNING: Vx delegate: cannot save the compiled graph to %s: %s\n", path.c_str(),
                     saved.message().c_str());
    }
}

void* kernelInit(TfLiteContext* context, const char* buffer, size_t) {
    const auto* params = reinterpret_cast<const TfLiteDelegateParams*>(buffer);
    Delegate* delegate = delegateOf(params->delegate);
    if (delegate->options.errorDuringInit || delegate->current == nullptr) return nullptr;
    auto kernel = std::make_unique<Kernel>();
    kernel->graph = delegate->current;
    kernel->options = &delegate->options;
    const tflite::ContextGraph& graph = *kernel->graph->context;
    std::vector<uint32_t> nodes;
    for (int i = 0; i < params->nodes_to_replace->size; ++i) {
        const int planNode = params->nodes_to_replace->data[i];
        for (size_t n = 0; n < graph.planNodes.size(); ++n) {
            if (graph.planNodes[n] == planNode) nodes.push_back(static_cast<uint32_t>(n));
        }
    }
    Result<HalPartition> partition = nodes.size() == static_cast<size_t>(params->nodes_to_replace->size)
                                             ? buildHalPartition(kernel->graph->graph, nodes, arraySet(params->output_tensors))
                                             : badData("unknown node");
    if (!partition.isOk()) {
        context->ReportError(context, "Vx delegate: cannot build the partition: %s", partition.message().c_str());
        return nullptr;
    }
    kernel->partition = std::move(partition).value();
    if (kernel->options->allowedCacheMode) useGraphCache(*kernel, kernel->graph->kernelsMade);
    kernel->graph->kernelsMade++;
    // Compilation waits for the first invoke (synap-behaviors.md §2.1).
    if (kernel->network == nullptr) {
        Result<std::shared_ptr<hal::IPreparedModel>> network = synap::prepareNetwork(kernel->partition.model);
        if (!network.isOk()) {
            context->ReportError(context, "Vx delegate: %s", network.message().c_str());
            return nullptr;
        }
        kernel->network = std::move(network).value();
    }
    return kernel.release();
}

void kernelFree(TfLiteContext*, void* buffer) { delete static_cast<Kernel*>(buffer); }

TfLiteStatus kernelPrepare(TfLiteContext* context, TfLiteNode* node) {
    auto* kernel = static_cast<Kernel*>(node->user_data);
    if (kernel == nullptr) {
        context->ReportError(context, "Vx delegate: the kernel was not initialised");
        return kTfLiteError;
    }
    return kernel->options->errorDuringPrepare ? kTfLiteError : kTfLiteOk;
}

// Binds the host tensors as one pool each.
bool bindArgument(TfLiteContext* context, int32_t tensorIndex, hal::Request& request,
                  std::vector<hal::RequestArgument>& arguments) {
    if (tensorIndex < 0 || static_cast<size_t>(tensorIndex) >= context->tensors_size) return false;
    TfLiteTensor& tensor = context->tensors[tensorIndex];
    if (tensor.data.data == nullptr) return false;
    hal::RequestArgument argument;
    argument.location = {static_cast<uint32_t>(request.pools.size()), 0, static_cast<uint32_t>(tensor.bytes)};
    request.pools.push_back(std::make_shared<BorrowedPool>(tensor.data.data, tensor.bytes));
    arguments.push_back(std::move(argument));
    return true;
}

TfLiteStatus kernelInvoke(TfLiteContext* context, TfLiteNode* node) {
    auto* kernel = static_cast<Kernel*>(node->user_data);
    if (kernel == nullptr || kernel->options->errorDuringInvoke) return kTfLiteError;
    hal::Request request;
    for (int32_t t : kernel->partition.inputTensors) {
        if (!bindArgument(context, t, request, request.inputs)) return kTfLiteError;
    }
    for (int32_t t : kernel->partition.outputTensors) {
        if (!bindArgument(context, t, request, request.outputs)) return kTfLiteError;
    }
    const auto [status, shapes, timing] = kernel->network->execute(request, hal::MeasureTiming::NO, {});
    if (status != hal::ErrorStatus::NONE) {
        context->ReportError(context, "Vx delegate: the NPU execution failed (status %d)", static_cast<int>(status));
        return kTfLiteError;
    }
    if (kernel->saveToCache) saveGraphCache(*kernel);
    return kTfLiteOk;
}

// Per plan position: synap-npu runs every NNAPI operation of the node.
std::vector<bool> claimNodes(const PreparedGraph& prepared, const VxOptions& options) {
    const tflite::ContextGraph& context = *prepared.context;
    std::vector<bool> claimed(context.builtinCodes.size(), false);
    std::vector<uint32_t> lowered;
    for (uint32_t n = 0; n < context.planNodes.size(); ++n) {
        if (!prepared.graph.nodeOperations[n].empty() && !prepared.graph.cpuOnly[n]) lowered.push_back(n);
    }
    std::set<int32_t> everyTensor;
    for (const tflite::NnOperand& operand : prepared.graph.operands) {
        if (operand.tensor >= 0) everyTensor.insert(operand.tensor);
    }
    if (lowered.empty()) return claimed;
    const Result<HalPartition> partition = buildHalPartition(prepared.graph, lowered, everyTensor);
    if (!partition.isOk()) return claimed;
    const HalPartition& whole = *partition;
    const Result<std::vector<bool>> claimedOperations = synap::claimOperations(whole.model);
    if (!claimedOperations.isOk()) return claimed;
    const std::vector<bool>& supported = *claimedOperations;
    std::vector<bool> nodeOk(context.planNodes.size(), true);
    for (size_t op = 0; op < supported.size(); ++op) {
        if (!supported[op]) nodeOk[whole.operationNodes[op]] = false;
    }
    for (size_t i = 0; i < claimed.size(); ++i) {
        const int n = context.modelNodeOfPlan[i];
        claimed[i] = n >= 0 && !prepared.graph.nodeOperations[n].empty() && !prepared.graph.cpuOnly[n] && nodeOk[n] &&
                     (options.allowedBuiltinCode == 0 || context.builtinCodes[i] == options.allowedBuiltinCode);
    }
    return claimed;
}

TfLiteStatus delegatePrepare(TfLiteContext* context, TfLiteDelegate* abi) {
    Delegate* delegate = delegateOf(abi);
    if (delegate->takesNothing) return kTfLiteOk;
    auto prepared = std::make_shared<PreparedGraph>();
    Result<std::unique_ptr<tflite::ContextGraph>> read = tflite::readContext(context);
    if (!read) {
        context->ReportError(context, "Vx delegate: %s", read.message().c_str());
        return kTfLiteDelegateError;
    }
    prepared->context = std::move(read).value();
    prepared->graph.signedInt8 = true;  // the driver takes TENSOR_QUANT8_ASYMM_SIGNED
    tflite::lowerMappableNodes(*prepared->context->model, prepared->graph, nullptr);
    const std::vector<bool> claimed = claimNodes(*prepared, delegate->options);

    TfLiteIntArray* plan = nullptr;
    context->GetExecutionPlan(context, &plan);
    std::vector<int> replace;
    for (size_t i = 0; i < claimed.size(); ++i) {
        if (claimed[i]) {
            replace.push_back(plan->data[i]);
        } else {
            std::fprintf(stderr, "WARNING: Fallback unsupported op %d to TfLite\n", prepared->context->builtinCodes[i]);
        }
    }
    auto* nodes = static_cast<TfLiteIntArray*>(std::malloc(sizeof(TfLiteIntArray) + sizeof(int) * replace.size()));
    nodes->size = static_cast<int>(replace.size());
    if (!replace.empty()) std::memcpy(nodes->data, replace.data(), sizeof(int) * replace.size());

    TfLiteRegistration registration{};
    registration.init = kernelInit;
    registration.free = kernelFree;
    registration.prepare = kernelPrepare;
    registration.invoke = kernelInvoke;
    registration.builtin_code = kBuiltinDelegate;
    registration.custom_name = kKernelName;
    registration.version = 1;
    delegate->current = prepared;
    const TfLiteStatus status = context->ReplaceNodeSubsetsWithDelegateKernels(context, registration, nodes, abi);
    delegate->current.reset();
    std::free(nodes);
    return status;
}

}  // namespace
}  // namespace nnemu::vx

extern "C" {

__attribute__((visibility("default"))) TfLiteDelegate* tflite_plugin_create_delegate(
        char** keys, char** values, size_t count, void (*reportError)(const char*)) {
    using namespace nnemu::vx;
    // Its driver is its own copy, at the newest level: builtins and forms that need level 30 and
    // later are claimed whether or not the host has a libneuralnetworks.so in its global scope.
    constexpr int64_t kFeatureLevel8 = 1000008;   // ANEURALNETWORKS_FEATURE_LEVEL_8
    nnemu::tflite::useOwnNnapiFeatureLevel(kFeatureLevel8);
    auto delegate = std::make_unique<Delegate>();
    if (const nnemu::Status parsed = parseVxOptions(keys, values, count, &delegate->options); !parsed) {
        if (reportError != nullptr) {
            reportError(parsed.message().c_str());
            return nullptr;
        }
        // TFLite's own loader (TfLiteExternalDelegateCreate) passes no report_error and never
        // checks for a null delegate: it would apply its wrapper uninitialised. Such a host gets
        // a delegate that takes no node, so the graph runs on its CPU path.
        std::fprintf(stderr, "ERROR: %s; the delegate takes no node.\n", parsed.message().c_str());
        delegate->takesNothing = true;
    } else {
        logVxOptions(delegate->options);
    }
    if (!delegate->takesNothing && delegate->options.allowedCacheMode && delegate->options.cacheFilePath.empty()) {
        std::fprintf(stderr, "WARNING: Vx delegate: allowed_cache_mode is set but cache_file_path is empty: "
                             "no compiled graph is saved or loaded.\n");
    }
    delegate->abi.data_ = delegate.get();
    delegate->abi.Prepare = delegatePrepare;
    delegate->abi.flags = kTfLiteDelegateFlagsAllowDynamicTensors | kTfLiteDelegateFlagsRequirePropagatedShapes;
    return &delegate.release()->abi;
}

__attribute__((visibility("default"))) void tflite_plugin_destroy_delegate(TfLiteDelegate* abi) {
    if (abi != nullptr) delete static_cast<nnemu::vx::Delegate*>(abi->data_);
}

}  // extern "C"
