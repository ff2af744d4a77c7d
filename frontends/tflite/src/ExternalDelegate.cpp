// The host side of TensorFlow Lite's external delegate ABI over a nnemu Model.
#include "nnemu/tflite/ExternalDelegate.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "Partitioning.h"
#include "nnemu/delegate/TfLiteAbi.h"
#include "nnemu/tflite/Interpreter.h"

namespace nnemu::tflite {
namespace {

struct FreeArray {
    void operator()(TfLiteIntArray* array) const { std::free(array); }
};
using IntArray = std::unique_ptr<TfLiteIntArray, FreeArray>;

IntArray makeArray(const std::vector<int32_t>& values) {
    auto* array = static_cast<TfLiteIntArray*>(std::malloc(sizeof(TfLiteIntArray) + sizeof(int) * values.size()));
    array->size = static_cast<int>(values.size());
    for (size_t i = 0; i < values.size(); ++i) array->data[i] = values[i];
    return IntArray(array);
}

TfLiteType tensorType(ElementType type) {
    switch (type) {
        case ElementType::FLOAT32: return kTfLiteFloat32;
        case ElementType::UINT8: return kTfLiteUInt8;
        case ElementType::INT8: return kTfLiteInt8;
        case ElementType::INT16: return kTfLiteInt16;
        case ElementType::INT32: return kTfLiteInt32;
        case ElementType::INT64: return kTfLiteInt64;
        case ElementType::BOOL: return kTfLiteBool;
        case ElementType::FLOAT64: return kTfLiteFloat64;
        case ElementType::COMPLEX64: return kTfLiteComplex64;
        case ElementType::COMPLEX128: return kTfLiteComplex128;
        case ElementType::RESOURCE: return kTfLiteResource;
        case ElementType::STRING: return kTfLiteString;
        default: return kTfLiteNoType;
    }
}

}  // namespace

// One delegate kernel: its registration, node and what init returned.
struct KernelNode {
    TfLiteRegistration registration{};
    TfLiteNode node{};
    IntArray inputs, outputs;
    std::vector<TfLiteDelegateParams> params;  // one element; kept for the kernel's lifetime
    IntArray nodes, paramInputs, paramOutputs;
    bool initialised = false;
};

struct ExternalDelegate::Host {
    void* library = nullptr;
    TfLiteDelegate* delegate = nullptr;
    TfLitePluginDestroyDelegate destroy = nullptr;
    const Model* model = nullptr;
    TfLiteContext context{};
    std::vector<TfLiteTensor> tensors;
    std::vector<IntArray> dims;
    std::vector<std::unique_ptr<TfLiteAffineQuantization>> quantization;
    std::vector<IntArray> zeroPoints;
    std::vector<std::unique_ptr<TfLiteFloatArray, void (*)(void*)>> scales;
    std::vector<TfLiteNode> nodes;
    std::vector<TfLiteRegistration> registrations;
    std::vector<IntArray> nodeArrays;
    IntArray plan;
    std::vector<std::unique_ptr<KernelNode>> kernels;
    std::vector<void*> persistent;
    std::vector<TfLiteDelegateParams> preview;
    std::vector<IntArray> previewArrays;
    std::string failure;   // why a delegate kernel's prepare failed, for apply()
    // Where apply() wants the results of the delegate's ReplaceNodeSubsetsWithDelegateKernels.
    std::vector<std::vector<uint32_t>>* kernelsOut = nullptr;
    size_t* partitionsOut = nullptr;
    bool wantKernelName = false;
    std::string kernelName;

    void buildTensors(const Model& model);
    void buildNodes(const Model& model);
    TfLiteStatus replace(const TfLiteRegistration& registration, const TfLiteIntArray* nodesToReplace,
                         std::vector<std::vector<uint32_t>>* kernelsOut, size_t* partitions);
    // The subsets of the graph when `claimed` nodes are delegated, with TFLite's params.
    std::vector<NodeSubset> subsets(const TfLiteIntArray* claimed) const;
    void fillParams(const NodeSubset& subset, TfLiteDelegateParams* params, std::vector<IntArray>& arrays) const;
    ~Host();
};

namespace {

ExternalDelegate::Host* hostOf(const TfLiteContext* context) {
    return static_cast<ExternalDelegate::Host*>(context->impl_);
}

TfLiteStatus getExecutionPlan(TfLiteContext* context, TfLiteIntArray** plan) {
    *plan = hostOf(context)->plan.get();
    return kTfLiteOk;
}

TfLiteStatus getNodeAndRegistration(TfLiteContext* context, int index, TfLiteNode** node,
                                    TfLiteRegistration** registration) {
    ExternalDelegate::Host* host = hostOf(context);
    if (index < 0 || static_cast<size_t>(index) >= host->nodes.size()) return kTfLiteError;
    *node = &host->nodes[index];
    *registration = &host->registrations[index];
    return kTfLiteOk;
}

TfLiteStatus replaceNodeSubsets(TfLiteContext* context, TfLiteRegistration registration,
                                const TfLiteIntArray* nodesToReplace, TfLiteDelegate*) {
    ExternalDelegate::Host* host = hostOf(context);
    if (host->wantKernelName && registration.custom_name != nullptr) host->kernelName = registration.custom_name;
    return host->replace(registration, nodesToReplace, host->kernelsOut, host->partitionsOut);
}

TfLiteStatus resizeTensor(TfLiteContext* context, TfLiteTensor* tensor, TfLiteIntArray* newSize) {
    ExternalDelegate::Host* host = hostOf(context);
    const auto index = static_cast<size_t>(tensor - host->tensors.data());
    if (index >= host->tensors.size()) {
        std::free(newSize);
        return kTfLiteError;
    }
    host->dims[index].reset(newSize);
    tensor->dims = newSize;
    return kTfLiteOk;
}

void reportError(TfLiteContext*, const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::fputs("ERROR: ", stderr);
    std::vfprintf(stderr, format, args);
    std::fputc('\n', stderr);
    va_end(args);
}

TfLiteStatus addTensors(TfLiteContext*, int, int*) { return kTfLiteError; }  // never needed by a delegate here

void* getExternalContext(TfLiteContext*, int) { return nullptr; }
void setExternalContext(TfLiteContext*, int, void*) {}

void* allocatePersistent(TfLiteContext* context, size_t bytes) {
    void* memory = std::calloc(1, bytes == 0 ? 1 : bytes);
    if (memory != nullptr) hostOf(context)->persistent.push_back(memory);
    return memory;
}

TfLiteTensor* getTensor(const TfLiteContext* context, int index) {
    ExternalDelegate::Host* host = hostOf(context);
    return index >= 0 && static_cast<size_t>(index) < host->tensors.size() ? &host->tensors[index] : nullptr;
}

TfLiteStatus previewPartitioning(TfLiteContext* context, const TfLiteIntArray* claimed,
                                 TfLiteDelegateParams** params, int* count) {
    ExternalDelegate::Host* host = hostOf(context);
    host->preview.clear();
    host->previewArrays.clear();
    for (const NodeSubset& subset : host->subsets(claimed)) {
        if (!subset.delegated) continue;
        host->preview.emplace_back();
        host->fillParams(subset, &host->preview.back(), host->previewArrays);
    }
    *params = host->preview.data();
    *count = static_cast<int>(host->preview.size());
    return kTfLiteOk;
}

TfLiteStatus unavailable() { return kTfLiteError; }
TfLiteStatus getModelMetadata(const TfLiteContext*, const char*, const char**, size_t*) { return unavailable(); }
TfLiteStatus acquireSubgraph(TfLiteContext*, int, TfLiteContext**) { return unavailable(); }
TfLiteStatus releaseSubgraph(TfLiteContext*, int) { return unavailable(); }

}  // namespace

void ExternalDelegate::Host::buildTensors(const Model& model) {
    const std::vector<Tensor>& source = model.tensors();
    tensors.assign(source.size(), TfLiteTensor{});
    dims.resize(source.size());
    for (size_t t = 0; t < source.size(); ++t) {
        const Tensor& tensor = source[t];
        TfLiteTensor& out = tensors[t];
        out.type = tensorType(tensor.type);
        dims[t] = makeArray(tensor.shape);
        out.dims = dims[t].get();
        out.params = {tensor.scale, tensor.zeroPoint};
        out.allocation_type = tensor.isConstant ? kTfLiteMmapRo : kTfLiteArenaRw;
        out.bytes = tensor.isConstant ? tensor.dataSize : tensor.byteSize();
        out.data.raw_const = tensor.isConstant ? reinterpret_cast<const char*>(tensor.data) : nullptr;
        out.name = tensor.name.c_str();
        out.buffer_handle = -1;
        out.is_variable = tensor.isVariable;
        if (tensor.scale != 0.0f || tensor.isPerChannel()) {
            const std::span<const float> scaleValues =
                    tensor.isPerChannel() ? tensor.channelScales : std::span<const float>(&tensor.scale, 1);
            auto* scaleArray = static_cast<TfLiteFloatArray*>(
                    std::malloc(sizeof(TfLiteFloatArray) + sizeof(float) * scaleValues.size()));
            scaleArray->size = static_cast<int>(scaleValues.size());
            std::memcpy(scaleArray->data, scaleValues.data(), sizeof(float) * scaleValues.size());
            scales.emplace_back(scaleArray, std::free);
            std::vector<int32_t> zeros(scaleValues.size(), tensor.zeroPoint);
            for (size_t c = 0; c < tensor.channelZeroPointBytes.size() / sizeof(int64_t) && c < zeros.size(); ++c) {
                zeros[c] = static_cast<int32_t>(tensor.channelZeroPoint(c));
            }
            zeroPoints.push_back(makeArray(zeros));
            quantization.push_back(std::make_unique<TfLiteAffineQuantization>(
                    TfLiteAffineQuantization{scaleArray, zeroPoints.back().get(), tensor.quantizedDimension}));
            out.quantization = {kTfLiteAffineQuantization, quantization.back().get()};
        }
    }
}

void ExternalDelegate::Host::buildNodes(const Model& model) {
    nodes.assign(model.nodes().size(), TfLiteNode{});
    registrations.assign(model.nodes().size(), TfLiteRegistration{});
    std::vector<int32_t> order;
    for (const Node& node : model.nodes()) {
        TfLiteNode& out = nodes[node.index];
        nodeArrays.push_back(makeArray(node.inputs));
        out.inputs = nodeArrays.back().get();
        nodeArrays.push_back(makeArray(node.outputs));
        out.outputs = nodeArrays.back().get();
        nodeArrays.push_back(makeArray({}));
        out.intermediates = nodeArrays.back().get();
        out.temporaries = nodeArrays.back().get();
        // The Model's own builtin_data and custom options, which delegates only read.
        out.builtin_data = const_cast<void*>(node.builtinData);
        out.custom_initial_data = node.customData.empty() ? nullptr : node.customData.data();
        out.custom_initial_data_size = static_cast<int>(node.customData.size());
        TfLiteRegistration& registration = registrations[node.index];
        registration.builtin_code = node.builtinCode;
        registration.custom_name = node.builtinCode == 32 ? node.opName.c_str() : nullptr;
        registration.version = 1;
        order.push_back(static_cast<int32_t>(node.index));
    }
    plan = makeArray(order);
}

std::vector<NodeSubset> ExternalDelegate::Host::subsets(const TfLiteIntArray* claimed) const {
    std::vector<bool> supported(model->nodes().size(), false);
    for (int i = 0; claimed != nullptr && i < claimed->size; ++i) {
        const int n = claimed->data[i];
        if (n >= 0 && static_cast<size_t>(n) < supported.size()) supported[n] = true;
    }
    return partitionNodes(*model, supported);
}

void ExternalDelegate::Host::fillParams(const NodeSubset& subset, TfLiteDelegateParams* params,
                                        std::vector<IntArray>& arrays) const {
    std::set<int32_t> produced, inputs;
    const std::set<uint32_t> inside(subset.nodes.begin(), subset.nodes.end());
    for (uint32_t n : subset.nodes) {
        for (int32_t t : model->nodes()[n].inputs) {
            if (t >= 0 && produced.count(t) == 0) inputs.insert(t);
        }
        produced.insert(model->nodes()[n].outputs.begin(), model->nodes()[n].outputs.end());
    }
    // Outputs: produced inside and read outside or by the graph's caller.
    std::set<int32_t> outputs;
    std::set<int32_t> readOutside(model->outputs().begin(), model->outputs().end());
    for (const Node& node : model->nodes()) {
        if (inside.count(node.index) == 0) readOutside.insert(node.inputs.begin(), node.inputs.end());
    }
    for (int32_t t : produced) {
        if (readOutside.count(t) != 0) outputs.insert(t);
    }
    std::vector<int32_t> nodeList(subset.nodes.begin(), subset.nodes.end());
    arrays.push_back(makeArray(nodeList));
    params->nodes_to_replace = arrays.back().get();
    arrays.push_back(makeArray(std::vector<int32_t>(inputs.begin(), inputs.end())));
    params->input_tensors = arrays.back().get();
    arrays.push_back(makeArray(std::vector<int32_t>(outputs.begin(), outputs.end())));
    params->output_tensors = arrays.back().get();
    params->delegate = delegate;
}

TfLiteStatus ExternalDelegate::Host::replace(const TfLiteRegistration& registration,
                                             const TfLiteIntArray* nodesToReplace,
                                             std::vector<std::vector<uint32_t>>* kernelsOut, size_t* partitions) {
    const std::vector<NodeSubset> all = subsets(nodesToReplace);
    if (partitions != nullptr) *partitions = all.size();
    for (const NodeSubset& subset : all) {
        if (!subset.delegated) continue;
        auto kernel = std::make_unique<KernelNode>();
        kernel->registration = registration;
        kernel->params.resize(1);
        std::vector<IntArray> arrays;
        fillParams(subset, kernel->params.data(), arrays);
        kernel->nodes = std::move(arrays[0]);
        kernel->paramInputs = std::move(arrays[1]);
        kernel->paramOutputs = std::move(arrays[2]);
        kernel->node.inputs = kernel->paramInputs.get();
        kernel->node.outputs = kernel->paramOutputs.get();
        kernel->node.delegate = delegate;
        if (registration.init != nullptr) {
            kernel->node.user_data = registration.init(&context, reinterpret_cast<const char*>(kernel->params.data()), 0);
        }
        kernel->initialised = true;
        kernels.push_back(std::move(kernel));
        if (kernelsOut != nullptr) kernelsOut->push_back(subset.nodes);
        KernelNode& added = *kernels.back();
        if (registration.prepare != nullptr && registration.prepare(&context, &added.node) != kTfLiteOk) {
            failure = "the delegate kernel's prepare failed";
            return kTfLiteDelegateError;
        }
    }
    return kTfLiteOk;
}

ExternalDelegate::Host::~Host() {
    for (auto& kernel : kernels) {
        if (kernel->initialised && kernel->registration.free != nullptr) kernel->registration.free(&context, kernel->node.user_data);
    }
    kernels.clear();
    for (void* memory : persistent) std::free(memory);
    if (delegate != nullptr && destroy != nullptr) destroy(delegate);
    if (library != nullptr) dlclose(library);
}

Result<ExternalDelegate::Options> ExternalDelegate::parseOptions(const std::string& text) {
    Options options;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(';', start), text.size());
        const std::string entry = text.substr(start, end - start);
        if (!entry.empty()) {
            const size_t colon = entry.find(':');
            if (colon == std::string::npos) {
                return badData("malformed external delegate option '" + entry + "' (expected key:value)");
            }
            options.emplace_back(entry.substr(0, colon), entry.substr(colon + 1));
        }
        start = end + 1;
    }
    return options;
}

std::string ExternalDelegate::resolvePath(const std::string& path) {
    void* library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (library == nullptr) return path;
    const link_map* map = nullptr;
    std::string resolved = path;
    if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr && *map->l_name) {
        resolved = std::filesystem::absolute(map->l_name).lexically_normal().string();
    }
    dlclose(library);
    return resolved;
}

Result<std::unique_ptr<ExternalDelegate>> ExternalDelegate::load(const std::string& path, const Options& options) {
    std::unique_ptr<ExternalDelegate> result(new ExternalDelegate());
    result->host_ = std::make_unique<Host>();
    Host& host = *result->host_;
    host.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (host.library == nullptr) {
        const char* why = dlerror();
        return ::nnemu::unavailable("cannot load the external delegate " + path + ": " + (why != nullptr ? why : "unknown error"));
    }
    auto create = reinterpret_cast<TfLitePluginCreateDelegate>(dlsym(host.library, "tflite_plugin_create_delegate"));
    host.destroy = reinterpret_cast<TfLitePluginDestroyDelegate>(dlsym(host.library, "tflite_plugin_destroy_delegate"));
    if (create == nullptr || host.destroy == nullptr) {
        return ::nnemu::unavailable(path + " does not export tflite_plugin_create_delegate and tflite_plugin_destroy_delegate");
    }
    std::vector<char*> keys, values;
    for (const auto& [key, value] : options) {
        keys.push_back(const_cast<char*>(key.c_str()));
        values.push_back(const_cast<char*>(value.c_str()));
    }
    host.delegate = create(keys.data(), values.data(), options.size(),
                           [](const char* message) { std::fprintf(stderr, "ERROR: %s\n", message); });
    if (host.delegate == nullptr) {
        return ::nnemu::unavailable("the external delegate " + path + " refused its options and created no delegate");
    }
    return result;
}

Result<std::unique_ptr<ExternalDelegate>> ExternalDelegate::loadWithOptionText(const std::string& path,
                                                                               const std::string& optionsText) {
    NNEMU_ASSIGN_OR_RETURN(const Options options, parseOptions(optionsText));
    return load(path, options);
}

ExternalDelegate::~ExternalDelegate() = default;

Status ExternalDelegate::apply(const Model& model) {
    Host& host = *host_;
    host.model = &model;
    host.failure.clear();
    host.buildTensors(model);
    host.buildNodes(model);
    TfLiteContext& context = host.context;
    context.tensors_size = host.tensors.size();
    context.tensors = host.tensors.data();
    context.impl_ = &host;
    context.GetExecutionPlan = getExecutionPlan;
    context.ResizeTensor = resizeTensor;
    context.ReportError = reportError;
    context.AddTensors = addTensors;
    context.GetNodeAndRegistration = getNodeAndRegistration;
    context.ReplaceNodeSubsetsWithDelegateKernels = replaceNodeSubsets;
    context.recommended_num_threads = -1;
    context.GetExternalContext = getExternalContext;
    context.SetExternalContext = setExternalContext;
    context.AllocatePersistentBuffer = allocatePersistent;
    context.PreviewDelegatePartitioning = previewPartitioning;
    context.GetTensor = getTensor;
    context.GetModelMetadata = getModelMetadata;
    context.AcquireSubgraphContext = acquireSubgraph;
    context.ReleaseSubgraphContext = releaseSubgraph;

    host.kernelsOut = &kernels_;
    host.partitionsOut = &partitionCount_;
    host.wantKernelName = true;
    const TfLiteStatus status = host.delegate->Prepare != nullptr ? host.delegate->Prepare(&context, host.delegate)
                                                                   : kTfLiteError;
    if (status != kTfLiteOk) {
        releaseKernels();
        return ::nnemu::unavailable(host.failure.empty() ? "the external delegate's Prepare failed" : host.failure);
    }
    return {};
}

const std::string& ExternalDelegate::kernelName() const { return host_->kernelName; }

void ExternalDelegate::releaseKernels() {
    Host& host = *host_;
    for (auto& kernel : host.kernels) {
        if (kernel->initialised && kernel->registration.free != nullptr) {
            kernel->registration.free(&host.context, kernel->node.user_data);
        }
    }
    host.kernels.clear();
    kernels_.clear();
    partitionCount_ = 0;
}

void ExternalDelegate::bind(Interpreter& interpreter) {
    Host& host = *host_;
    for (size_t t = 0; t < host.tensors.size(); ++t) {
        TfLiteTensor& tensor = host.tensors[t];
        if (tensor.allocation_type == kTfLiteMmapRo) continue;
        tensor.data.data = interpreter.tensorData(static_cast<int32_t>(t), &tensor.bytes);
    }
}

Status ExternalDelegate::invokeKernel(size_t kernel) {
    Host& host = *host_;
    if (kernel >= host.kernels.size()) return opFailed("");   // as before: no reason
    KernelNode& node = *host.kernels[kernel];
    if (node.registration.invoke == nullptr || node.registration.invoke(&host.context, &node.node) != kTfLiteOk) {
        return opFailed("the external delegate's kernel failed");
    }
    return {};
}

}  // namespace nnemu::tflite
