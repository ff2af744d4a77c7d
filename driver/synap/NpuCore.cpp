#include "NpuCore.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>

#include "ActivationArena.h"
#include "Compiler.h"
#include "CoreThreads.h"
#include "LayerKinds.h"
#include "NativeLayers.h"
#include "PackedFilters.h"
#include "nnemu/base/Log.h"
#include "nnemu/base/Trace.h"

namespace nnemu::synap {
namespace {

bool initializeXnnpack() {
    static const bool initialized = xnn_initialize(nullptr) == xnn_status_success;
    return initialized;
}

// Multiply-accumulates of one inference, as the layer kinds count them.
uint64_t multiplyAccumulates(const npu::Program& program) {
    uint64_t total = 0;
    for (const npu::Layer* layer : *program.layers()) {
        const LayerKind* kind = layerKind(layer->params_type());
        if (kind->multiplyAccumulates != nullptr) total += kind->multiplyAccumulates(program, *layer);
    }
    return total;
}

// Waking pool threads costs more than a small network's whole inference (and much more on a
// loaded machine): such networks run on the calling thread.
constexpr uint64_t kParallelWorkThreshold = 1'000'000;

// Fused-activation bounds as the core takes them: infinite for float, clipped to the
// representable range for quantized outputs.
void bounds(const npu::Layer& layer, const npu::Tensor& output, float* low, float* high) {
    *low = layer.output_min();
    *high = layer.output_max();
    if (output.type() == npu::DataType::QUINT8 || output.type() == npu::DataType::QINT8) {
        const int32_t qmin = output.type() == npu::DataType::QUINT8 ? 0 : -128;
        *low = std::max(*low, static_cast<float>(qmin - output.zero_point()) * output.scale());
        *high = std::min(*high, static_cast<float>(qmin + 255 - output.zero_point()) * output.scale());
    }
}

xnn_status defineTensor(xnn_subgraph_t subgraph, const npu::Tensor& tensor, const void* data, uint32_t externalId,
                        uint32_t flags, uint32_t* id) {
    std::vector<size_t> dims(tensor.dims()->begin(), tensor.dims()->end());
    switch (tensor.type()) {
        case npu::DataType::FLOAT32:
            return xnn_define_tensor_value(subgraph, xnn_datatype_fp32, dims.size(), dims.data(), data, externalId,
                                           flags, id);
        case npu::DataType::QUINT8:
            return xnn_define_quantized_tensor_value(subgraph, xnn_datatype_quint8, tensor.zero_point(),
                                                     tensor.scale(), dims.size(), dims.data(), data, externalId, flags,
                                                     id);
        case npu::DataType::QINT32:
            return xnn_define_quantized_tensor_value(subgraph, xnn_datatype_qint32, 0, tensor.scale(), dims.size(),
                                                     dims.data(), data, externalId, flags, id);
        case npu::DataType::QINT8:
            return xnn_define_quantized_tensor_value(subgraph, xnn_datatype_qint8, tensor.zero_point(),
                                                     tensor.scale(), dims.size(), dims.data(), data, externalId, flags,
                                                     id);
        case npu::DataType::QCINT8:
        case npu::DataType::QCINT32: {
            const auto* scales = tensor.channel_scales();
            if (scales == nullptr || tensor.channel_dim() >= dims.size() ||
                scales->size() != dims[tensor.channel_dim()]) {
                return xnn_status_invalid_parameter;
            }
            return xnn_define_channelwise_quantized_tensor_value(
                    subgraph, tensor.type() == npu::DataType::QCINT8 ? xnn_datatype_qcint8 : xnn_datatype_qcint32,
                    scales->data(), dims.size(), tensor.channel_dim(), dims.data(), data, externalId, flags, id);
        }
        default:
            return xnn_status_invalid_parameter;
    }
}

using Clock = std::chrono::steady_clock;

// A profiled layer on the trace's timeline, with the unit it ran on.
void traceLayer(const LayerProfile& layer, size_t index, Clock::time_point start) {
    if (!trace::enabled()) return;
    trace::complete(layer.name.empty() ? std::string_view("layer") : std::string_view(layer.name), "npu layer", start,
                    Clock::now(),
                    trace::Args().add("unit", layer.opType).add("layer", index).add("bytes read", layer.bytesRead)
                            .add("bytes written", layer.bytesWritten).take());
}

// A stored 8-bit tensor's zero point in its type's range: XNNPACK refuses others, and the layers
// the core runs itself compute with it in 32 bits.
bool zeroPointFits(const npu::Tensor& tensor) {
    switch (tensor.type()) {
        case npu::DataType::QUINT8: return tensor.zero_point() >= 0 && tensor.zero_point() <= 255;
        case npu::DataType::QINT8: return tensor.zero_point() >= -128 && tensor.zero_point() <= 127;
        default: return true;
    }
}

}  // namespace

std::unique_ptr<NpuCore> NpuCore::load(cache::ProgramImage program, std::string* error, bool profiling,
                                       bool callingThreadOnly) {
    std::unique_ptr<NpuCore> core(new NpuCore());
    core->parallel_ = !callingThreadOnly;
    core->bytes_ = std::move(program);
    core->profiling_ = profiling;
    flatbuffers::Verifier verifier(core->bytes_.data(), core->bytes_.size());
    if (!npu::VerifyProgramBuffer(verifier)) {
        *error = "the NPU program is corrupt (verification failed)";
        return nullptr;
    }
    core->program_ = npu::GetProgram(core->bytes_.data());
    if (core->program_->compiler_version() != kCompilerVersion) {
        *error = "the NPU program comes from compiler version " + std::to_string(core->program_->compiler_version()) +
                 ", not " + std::to_string(kCompilerVersion);
        return nullptr;
    }
    if (!initializeXnnpack()) {
        *error = "the NPU core (XNNPACK) could not be initialized";
        return nullptr;
    }
    if (!checkPackedFilters(*core->program_, error)) return nullptr;
    try {
        if (!core->preparePorts(error) || !core->unpackFiltersIfNeeded(error) || !core->buildStages(error)) return nullptr;
    } catch (const std::bad_alloc&) {
        *error = "the NPU core ran out of memory for the program's buffers";
        return nullptr;
    }
    return core;
}

NpuCore::~NpuCore() {
    for (const Stage& stage : stages_) {
        for (xnn_runtime* runtime : stage.runtimes) {
            if (runtime != nullptr) xnn_delete_runtime(runtime);
        }
    }
}

size_t NpuCore::layerCount() const { return program_->layers() ? program_->layers()->size() : 0; }

// Checks the program's structure and sets up one padded buffer per network input and output.
bool NpuCore::preparePorts(std::string* error) {
    const auto* tensors = program_->tensors();
    auto fail = [&](const std::string& message) {
        *error = "the NPU program is malformed: " + message;
        return false;
    };
    if (tensors == nullptr || program_->layers() == nullptr) return fail("no tensors or layers");
    const uint32_t inputCount = program_->input_count();
    const uint32_t outputCount = program_->output_count();
    // Each port has a tensor of its own: the counts are bounded before anything is sized by them.
    if (inputCount > tensors->size() || outputCount > tensors->size() - inputCount) {
        return fail("more network inputs and outputs than tensors");
    }
    // The whole program is checked before any buffer is sized by a tensor: a malformed program
    // must not make the core touch gigabytes first.
    std::vector<bool> claimed(size_t{inputCount} + outputCount, false);
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        if (tensor.dims() == nullptr || tensor.dims()->size() > XNN_MAX_TENSOR_DIMS) return fail("tensor dimensions");
        if (byteSize(tensor) > kMaxTensorBytes) return fail("tensor " + std::to_string(t) + " is larger than 4 GiB");
        if (tensor.data() != nullptr && tensor.data()->size() > 0 && tensor.data()->size() != byteSize(tensor)) {
            return fail("constant tensor " + std::to_string(t) + " has the wrong size");
        }
        if (!zeroPointFits(tensor)) return fail("tensor " + std::to_string(t) + " has a zero point outside its type");
        const int32_t input = tensor.input_index(), output = tensor.output_index();
        const bool inputFits = input == -1 || (input >= 0 && static_cast<uint32_t>(input) < inputCount);
        const bool outputFits = output == -1 || (output >= 0 && static_cast<uint32_t>(output) < outputCount);
        if (!inputFits || !outputFits || (input >= 0 && output >= 0)) {
            return fail("tensor " + std::to_string(t) + " names no network input or output it can be");
        }
        if (input < 0 && output < 0) continue;
        const size_t id = input >= 0 ? static_cast<size_t>(input) : inputCount + static_cast<size_t>(output);
        if (claimed[id]) return fail("two tensors for one network input or output");
        claimed[id] = true;
    }
    for (bool port : claimed) {
        if (!port) return fail("a network input or output has no tensor");
    }
    if (!checkLayers(fail)) return false;
    inputs_.resize(inputCount);
    outputs_.resize(outputCount);
    constants_.assign(tensors->size(), nullptr);
    activations_.resize(tensors->size());
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        const int32_t input = tensor.input_index(), output = tensor.output_index();
        if (input < 0 && output < 0) continue;
        Port& port = input >= 0 ? inputs_[input] : outputs_[output];
        port.externalId = input >= 0 ? static_cast<uint32_t>(input) : inputCount + static_cast<uint32_t>(output);
        port.dims.assign(tensor.dims()->begin(), tensor.dims()->end());
        port.bytes = byteSize(tensor);
        port.tensor = t;
    }
    return true;
}

// Every layer is of a known kind, fits its tensors, reads what is there when it runs (a network
// input, a constant or an earlier layer's output) and writes a tensor nothing else writes; every
// network output is written.
bool NpuCore::checkLayers(const std::function<bool(const std::string&)>& fail) const {
    const auto* tensors = program_->tensors();
    const auto* layers = program_->layers();
    std::vector<bool> ready(tensors->size());
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        ready[t] = tensor.input_index() >= 0 || isStored(tensor);
    }
    for (uint32_t l = 0; l < layers->size(); ++l) {
        const std::string name = "layer " + std::to_string(l);
        const npu::Layer& layer = *layers->Get(l);
        const auto* in = layer.inputs();
        const auto* out = layer.outputs();
        if (in == nullptr || out == nullptr || in->size() == 0 || out->size() != 1) return fail(name);
        for (uint32_t index : *in) {
            if (index >= tensors->size() || !ready[index]) return fail(name + " reads a tensor nothing wrote");
        }
        if (out->Get(0) >= tensors->size() || ready[out->Get(0)]) return fail(name + " writes a tensor it may not");
        const LayerKind* kind = layerKind(layer.params_type());
        if (kind == nullptr || layer.params() == nullptr) {
            return fail(name + " is of an unknown kind or has no parameters");
        }
        if (!kind->check(*program_, layer)) return fail(name + " has tensors its kind cannot take");
        ready[out->Get(0)] = true;
    }
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        if (tensors->Get(t)->output_index() >= 0 && !ready[t]) return fail("a network output is never written");
    }
    return true;
}

// A core that does not run every packed layer on its packed weights (another ISA or layout, the
// XNNPACK core) takes the program with its filters unpacked: the same structure, checked above.
bool NpuCore::unpackFiltersIfNeeded(std::string* error) {
    if (packedFiltersRunInPlace(*program_)) return true;
    std::vector<uint8_t> bytes;
    if (!unpackFilters(*program_, &bytes, error)) return false;
    bytes_ = cache::ProgramImage(std::move(bytes));
    program_ = npu::GetProgram(bytes_.data());
    return true;
}

const void* NpuCore::constantData(uint32_t index) {
    if (constants_[index] != nullptr) return constants_[index];
    const npu::Tensor& tensor = *program_->tensors()->Get(index);
    if (tensor.data() == nullptr || tensor.data()->size() == 0) return nullptr;
    const void* data = tensor.data()->data();
    if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {  // weights are read as floats and ints
        alignedConstants_.emplace_back(tensor.data()->begin(), tensor.data()->end());
        data = alignedConstants_.back().data();
    }
    constants_[index] = data;
    return data;
}

uint8_t* NpuCore::bufferOf(uint32_t index) {
    const npu::Tensor& tensor = *program_->tensors()->Get(index);
    if (tensor.input_index() >= 0 || tensor.output_index() >= 0) return arena_.data() + arenaOffsets_[index];
    if (const void* data = constantData(index)) return static_cast<uint8_t*>(const_cast<void*>(data));
    if (index < arenaOffsets_.size() && arenaOffsets_[index] != SIZE_MAX) return arena_.data() + arenaOffsets_[index];
    if (activations_[index].empty()) activations_[index].assign(byteSize(tensor) + XNN_EXTRA_BYTES, 0);
    return activations_[index].data();
}

// Every tensor each stage reads or writes, stage by stage (with repeats).
void NpuCore::forEachStageTensor(const std::function<void(size_t stage, uint32_t tensor)>& visit) const {
    const auto* layers = program_->layers();
    for (size_t s = 0; s < stages_.size(); ++s) {
        for (size_t l = stages_[s].firstLayer; l < stages_[s].endLayer; ++l) {
            const npu::Layer& layer = *layers->Get(l);
            for (uint32_t t : *layer.inputs()) visit(s, t);
            visit(s, layer.outputs()->Get(0));
        }
    }
}

void NpuCore::planActivations() {
    std::vector<LayerRun> pairs;  // fused pairs: their layers run as one
    for (const Stage& stage : stages_) {
        if (stage.native && stage.endLayer - stage.firstLayer > 1) pairs.push_back({stage.firstLayer, stage.endLayer});
    }
    ActivationArena arena = planActivationArena(*program_, needsBuffer_, pairs);
    arenaOffsets_ = std::move(arena.offsets);
    arena_.assign(arena.bytes, 0);
}

bool NpuCore::readsPackedFilter(const npu::Layer& layer) const {
    for (uint32_t t : *layer.inputs()) {
        const npu::Tensor& tensor = tensorAt(*program_, t);
        if (tensor.packed() && (tensor.data() == nullptr || tensor.data()->size() == 0)) return true;
    }
    return false;
}

// The values inside an XNNPACK stage live in the arena too (as its external values), not in a
// workspace of each runtime, except where XNNPACK fuses two layers over an internal value: a
// constant pad into its reader, a clamp into its producer.
void NpuCore::keepStageValuesInArena() {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    std::vector<bool> fused(tensors->size(), false);
    for (const npu::Layer* layer : *layers) {
        if (layer->params_type() == npu::LayerParams::ConstantPad) fused[layer->outputs()->Get(0)] = true;
        if (layer->params_type() == npu::LayerParams::Clamp) fused[layer->inputs()->Get(0)] = true;
    }
    for (const Stage& stage : stages_) {
        if (stage.native) continue;
        for (size_t l = stage.firstLayer; l < stage.endLayer; ++l) {
            const uint32_t t = layers->Get(l)->outputs()->Get(0);
            if (!fused[t]) needsBuffer_[t] = true;
        }
    }
}

// Cuts the layers into stages and gives a buffer to every tensor that crosses one.
bool NpuCore::buildStages(std::string* error) {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    for (size_t l = 0; l < layers->size(); ++l) {
        const LayerKind& kind = *layerKind(layers->Get(l)->params_type());
        std::shared_ptr<LayerState> state;
        if (kind.ownKernel != nullptr) state = kind.ownKernel(*program_, *layers->Get(l));
        const bool native = kind.native() || state != nullptr;
        if (state == nullptr && readsPackedFilter(*layers->Get(l))) {
            *error = "the NPU program's layer " + std::to_string(l) + " has packed weights this core cannot run";
            return false;
        }
        if (native || profiling_ || stages_.empty() || stages_.back().native) {
            stages_.push_back({l, l + 1, native, {nullptr, nullptr}, {}, nullptr, std::move(state)});
        } else {
            stages_.back().endLayer = l + 1;
        }
    }
    fuseStages();
    // Tensors read or written by more than one stage, or by a native layer, live in buffers.
    std::vector<int64_t> stageOf(tensors->size(), -1);
    std::vector<bool>& needsBuffer = needsBuffer_;
    needsBuffer.assign(tensors->size(), false);
    forEachStageTensor([&](size_t s, uint32_t t) {
        if (stageOf[t] >= 0 && stageOf[t] != static_cast<int64_t>(s)) needsBuffer[t] = true;
        if (stages_[s].native) needsBuffer[t] = true;
        stageOf[t] = static_cast<int64_t>(s);
    });
    // A layer output nothing reads still needs somewhere to go (XNNPACK gives it no memory).
    std::vector<bool> read(tensors->size(), false);
    for (const npu::Layer* layer : *layers) {
        for (uint32_t t : *layer->inputs()) read[t] = true;
    }
    for (const npu::Layer* layer : *layers) {
        if (!read[layer->outputs()->Get(0)]) needsBuffer[layer->outputs()->Get(0)] = true;
    }
    for (const Stage& stage : stages_) {  // the values inside a fused pair have none
        for (size_t l = stage.firstLayer; stage.native && l + 1 < stage.endLayer; ++l) {
            needsBuffer[layers->Get(l)->outputs()->Get(0)] = false;
        }
    }
    keepStageValuesInArena();
    planActivations();
    parallel_ = parallel_ && coreThreadPool() != nullptr && multiplyAccumulates(*program_) >= kParallelWorkThreshold;
    const bool pooled = parallel_ && poolWorthUsingNow();
    for (Stage& stage : stages_) {
        if (!stage.native &&
            !buildXnnpackStage(stage.firstLayer, stage.endLayer, pooled, &stage.runtimes[pooled], error)) {
            return false;
        }
        for (size_t l = stage.firstLayer; l < stage.endLayer && profiling_; ++l) {
            const npu::Layer& layer = *layers->Get(l);
            LayerProfile entry{layer.name() ? layer.name()->str() : "", layerKind(layer.params_type())->unit, 0, 0, 0};
            for (uint32_t t : *layer.inputs()) entry.bytesRead += byteSize(*tensors->Get(t));
            entry.bytesWritten = byteSize(*tensors->Get(layer.outputs()->Get(0)));
            profile_.push_back(std::move(entry));
        }
    }
    auto stored = [&](uint32_t t) { return isStored(*tensors->Get(t)); };
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        if (needsBuffer[t] && !stored(t)) bufferOf(t);
    }
    for (Stage& stage : stages_) {
        if (!stage.native) continue;
        const npu::Layer& layer = *layers->Get(stage.firstLayer);
        // Own kernels read their weights packed (or from the program, unaligned): no aligned copy.
        for (uint32_t t : *layer.inputs()) {
            const auto* data = tensors->Get(t)->data();  // none for a filter held packed
            stage.inputs.push_back(stage.state != nullptr && stored(t) ? (data != nullptr ? data->data() : nullptr) : bufferOf(t));
        }
        stage.output = bufferOf(layers->Get(stage.endLayer - 1)->outputs()->Get(0));
    }
    return true;
}

// Native layers whose kind fuses them with their output's only reader (the next layer, on a
// native stage too) become one stage. Not in profiling mode: there every layer is timed alone.
void NpuCore::fuseStages() {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    std::vector<uint32_t> readers(tensors->size(), 0);
    for (const npu::Layer* layer : *layers) {
        for (uint32_t t : *layer->inputs()) ++readers[t];
    }
    std::vector<Stage> fused;
    for (size_t s = 0; s < stages_.size(); ++s) {
        Stage& stage = stages_[s];
        const auto pairable = [&](const Stage& one) { return one.state != nullptr && one.endLayer == one.firstLayer + 1; };
        if (!profiling_ && s + 1 < stages_.size() && pairable(stage) && pairable(stages_[s + 1])) {
            const npu::Layer& layer = *layers->Get(stage.firstLayer);
            const npu::Layer& reader = *layers->Get(stage.endLayer);
            const uint32_t value = layer.outputs()->Get(0);
            const npu::Tensor& tensor = *tensors->Get(value);
            const auto fuse = layerKind(layer.params_type())->fuseWithReader;
            if (fuse != nullptr && readers[value] == 1 && tensor.input_index() < 0 && tensor.output_index() < 0) {
                if (auto pair = fuse(*program_, layer, stage.state, reader, stages_[s + 1].state)) {
                    fused.push_back({stage.firstLayer, stage.endLayer + 1, true, {nullptr, nullptr}, {}, nullptr, pair});
                    ++s;
                    continue;
                }
            }
        }
        fused.push_back(std::move(stage));
    }
    stages_ = std::move(fused);
}

// One XNNPACK runtime for layers [first, end): tensors with buffers are its external values.
bool NpuCore::buildXnnpackStage(size_t first, size_t end, bool pooled, xnn_runtime** built, std::string* error) {
    const std::vector<bool>& needsBuffer = needsBuffer_;
    const auto* tensors = program_->tensors();
    const auto* layers = program_->layers();
    std::vector<uint32_t> ids(tensors->size(), XNN_INVALID_VALUE_ID);
    std::vector<uint32_t> externalsOf;  // tensor of each external id
    std::vector<bool> produced(tensors->size(), false);
    for (size_t l = first; l < end; ++l) produced[layers->Get(l)->outputs()->Get(0)] = true;
    for (size_t l = first; l < end; ++l) {
        const npu::Layer& layer = *layers->Get(l);
        std::vector<uint32_t> used(layer.inputs()->begin(), layer.inputs()->end());
        used.push_back(layer.outputs()->Get(0));
        for (uint32_t t : used) {
            const bool external = constantData(t) == nullptr && (needsBuffer[t] || tensors->Get(t)->input_index() >= 0 ||
                                                                 tensors->Get(t)->output_index() >= 0);
            if (external && std::find(externalsOf.begin(), externalsOf.end(), t) == externalsOf.end()) {
                externalsOf.push_back(t);
            }
        }
    }
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(static_cast<uint32_t>(externalsOf.size()), 0, &subgraph) != xnn_status_success) {
        *error = "cannot create an NPU subgraph";
        return false;
    }
    std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(subgraph, xnn_delete_subgraph);
    std::vector<xnn_external_value> externals;
    for (size_t l = first; l < end; ++l) {
        const npu::Layer& layer = *layers->Get(l);
        std::vector<uint32_t> used(layer.inputs()->begin(), layer.inputs()->end());
        used.push_back(layer.outputs()->Get(0));
        for (uint32_t t : used) {
            if (ids[t] != XNN_INVALID_VALUE_ID) continue;
            const auto position = std::find(externalsOf.begin(), externalsOf.end(), t);
            uint32_t externalId = XNN_INVALID_VALUE_ID, flags = 0;
            if (position != externalsOf.end()) {
                externalId = static_cast<uint32_t>(position - externalsOf.begin());
                flags = produced[t] ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
                externals.push_back({externalId, bufferOf(t)});
            }
            if (defineTensor(subgraph, *tensors->Get(t), constantData(t), externalId, flags, &ids[t]) !=
                xnn_status_success) {
                *error = "the NPU core rejected tensor " + std::to_string(t);
                return false;
            }
        }
        float low, high;
        bounds(layer, *tensors->Get(layer.outputs()->Get(0)), &low, &high);
        const xnn_status status = layerKind(layer.params_type())->define({subgraph, *program_, layer, ids, low, high});
        if (status != xnn_status_success) {
            *error = "the NPU core rejected layer " + std::string(layer.name() ? layer.name()->c_str() : "?") +
                     " (status " + std::to_string(status) + ")";
            return false;
        }
    }
    xnn_runtime_t runtime = nullptr;
    if (xnn_create_runtime_v2(subgraph, pooled ? coreThreadPool() : nullptr, 0, &runtime) != xnn_status_success) {
        *error = "the NPU core could not build a runtime for the program";
        return false;
    }
    *built = runtime;  // owned by the stage from here on
    if (xnn_setup_runtime(runtime, externals.size(), externals.data()) != xnn_status_success) {
        *error = "the NPU core could not set up its buffers";
        return false;
    }
    return true;
}

bool NpuCore::choosePool() {
    const bool pooled = parallel_ && poolWorthUsingNow();
    for (Stage& stage : stages_) {
        if (stage.native || stage.runtimes[pooled] != nullptr) continue;
        std::string ignored;  // the other runtime exists and serves instead
        if (!buildXnnpackStage(stage.firstLayer, stage.endLayer, pooled, &stage.runtimes[pooled], &ignored)) {
            if (stage.runtimes[pooled] != nullptr) xnn_delete_runtime(stage.runtimes[pooled]);
            stage.runtimes[pooled] = nullptr;
            return !pooled;
        }
    }
    return pooled;
}

bool NpuCore::run(const std::vector<const uint8_t*>& inputs, const std::vector<uint8_t*>& outputs, std::string* error,
                  const hal::Deadline& deadline) {
    if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size()) {
        *error = "wrong number of NPU inputs or outputs";
        return false;
    }
    const bool pooled = choosePool();
    const auto runStart = Clock::now();
    trace::Span copyIn("copy inputs", "npu");
    // An empty port's caller buffer may be null, which memcpy may not be given even for 0 bytes.
    for (size_t i = 0; i < inputs_.size(); ++i) {
        if (inputs_[i].bytes > 0) std::memcpy(bufferOf(inputs_[i].tensor), inputs[i], inputs_[i].bytes);
    }
    copyIn.end();
    for (size_t s = 0; s < stages_.size(); ++s) {
        if (hal::deadlinePassed(deadline)) {
            *error = "the NPU run missed its deadline";
            return false;
        }
        const Stage& stage = stages_[s];
        const auto start = Clock::now();
        const npu::Layer& first = *program_->layers()->Get(stage.firstLayer);
        const bool ok = stage.native
                                ? layerKind(first.params_type())->run(
                                          {*program_, first, stage.inputs, stage.output, stage.state.get(),
                                           pooled ? coreThreadPool() : nullptr})
                                : xnn_invoke_runtime(stage.runtimes[pooled]) == xnn_status_success;
        if (!ok) {
            *error = "the NPU core failed to run layer " + std::string(first.name() ? first.name()->c_str() : "?");
            return false;
        }
        if (profiling_) {
            profile_[stage.firstLayer].timeUs = static_cast<uint32_t>(
                    std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
            traceLayer(profile_[stage.firstLayer], stage.firstLayer, start);
        }
    }
    trace::Span copyOut("copy outputs", "npu");
    for (size_t i = 0; i < outputs_.size(); ++i) {
        if (outputs_[i].bytes > 0) std::memcpy(outputs[i], bufferOf(outputs_[i].tensor), outputs_[i].bytes);
    }
    noteRunTime(pooled, static_cast<uint64_t>(
                                std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - runStart).count()));
    return true;
}

// A pooled run far slower than this network's runs on the pool, or than its runs on one
// thread, met a busy core.
void NpuCore::noteRunTime(bool pooled, uint64_t us) {
    fastestUs_[pooled] = std::min(fastestUs_[pooled], us);
    if (!parallel_ || profiling_ || !pooled) return;
    const bool slow = us > 3 * fastestUs_[1] || (fastestUs_[0] != UINT64_MAX && us > 2 * fastestUs_[0]);
    pooledRunWas(slow);
}

}  // namespace nnemu::synap
