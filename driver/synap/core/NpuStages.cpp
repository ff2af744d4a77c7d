// How the NPU core cuts a program into stages: runs of layers on one XNNPACK runtime, layers
// it runs itself (pairs fused), the buffers of the values crossing them.
#include <algorithm>
#include <functional>
#include <string>

#include "ActivationArena.h"
#include "CoreThreads.h"
#include "LayerKinds.h"
#include "NativeLayers.h"
#include "NpuCore.h"
#include "OwnLayerSupport.h"

namespace nnemu::synap {
namespace {

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
// An inference this large waits for the own pool still starting rather than run alone
// (PoolUse), when the pool would serve it now (poolWorthUsingNow): starting it (a thread
// created, 0.1-0.25 ms) costs less than the second thread saves on 50 M multiply-accumulates or
// more (0.3-1.2 ms on one Zen 4 thread, int8 to float).
// A warm v1 float whose first inference met the pool still starting ran it alone: 12.5-13.9 ms
// against 7.0 pooled (2-core Zen 4 VM). MobileNet v1 0.25 128 (14 M) does not wait.
constexpr uint64_t kAwaitPoolWorkThreshold = 50'000'000;

}  // namespace

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

// Network inputs that only stages on own kernels reading no byte past them take (as their
// first layer's first input), so that they need no copy in the arena.
std::vector<bool> NpuCore::inputsReadInPlace() {
    const auto* layers = program_->layers();
    std::vector<bool> inPlace(program_->tensors()->size(), false);
    for (Port& port : inputs_) {
        const npu::Tensor& tensor = *program_->tensors()->Get(port.tensor);
        if (tensor.output_index() >= 0 || port.bytes == 0) continue;
        bool ok = true;
        std::vector<size_t> readers;
        for (size_t s = 0; s < stages_.size() && ok; ++s) {
            const Stage& stage = stages_[s];
            for (size_t l = stage.firstLayer; l < stage.endLayer && ok; ++l) {
                const auto* inputs = layers->Get(l)->inputs();
                for (uint32_t i = 0; i < inputs->size() && ok; ++i) {
                    if (inputs->Get(i) != port.tensor) continue;
                    const auto* own = dynamic_cast<const own::OwnLayer*>(stage.state.get());
                    ok = stage.native && l == stage.firstLayer && i == 0 && own != nullptr && own->readsOnlyItsInput();
                    readers.push_back(s);
                }
            }
        }
        if (!ok || readers.empty()) continue;
        port.readers = std::move(readers);
        port.valueBytes = std::max<size_t>(elementBytes(tensor.type()), 1);
        inPlace[port.tensor] = true;
    }
    return inPlace;
}

void NpuCore::planActivations() {
    std::vector<LayerRun> pairs;  // fused pairs: their layers run as one
    // Own layers' working memory, for as many threads as will run them.
    const size_t threads = parallel_ ? coreThreadCount() : 1;
    std::vector<LiveRange> workspaces;  // over the stage's layers
    std::vector<size_t> workspaceStage;
    for (size_t s = 0; s < stages_.size(); ++s) {
        const Stage& stage = stages_[s];
        if (stage.native && stage.endLayer - stage.firstLayer > 1) pairs.push_back({stage.firstLayer, stage.endLayer});
        const auto* own = dynamic_cast<const own::OwnLayer*>(stage.state.get());
        const size_t bytes = stage.native && own != nullptr ? own->workspaceBytes(threads) : 0;
        if (bytes == 0) continue;
        workspaces.push_back({static_cast<int64_t>(stage.firstLayer), static_cast<int64_t>(stage.endLayer) - 1, bytes});
        workspaceStage.push_back(s);
    }
    ActivationArena arena = planActivationArena(*program_, needsBuffer_, pairs, inputsReadInPlace(), workspaces);
    arenaOffsets_ = std::move(arena.offsets);
    arena_ = ArenaPages(arena.bytes);
    for (size_t w = 0; w < workspaces.size(); ++w) {
        stages_[workspaceStage[w]].workspace = {arena_.data() + arena.workspaceOffsets[w], workspaces[w].bytes};
    }
}

size_t NpuCore::largestWorkspace() const {
    size_t largest = 0;
    for (const Stage& stage : stages_) largest = std::max(largest, stage.workspace.size());
    return largest;
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

// One stage per layer the core runs itself (or per layer when profiling), one per run of the
// layers between them.
Status NpuCore::cutIntoStages() {
    const auto* layers = program_->layers();
    for (size_t l = 0; l < layers->size(); ++l) {
        const LayerKind& kind = *layerKind(layers->Get(l)->params_type());
        std::shared_ptr<LayerState> state;
        if (kind.ownKernel != nullptr) state = kind.ownKernel(*program_, *layers->Get(l));
        const bool native = kind.native() || state != nullptr;
        if (state == nullptr && readsPackedFilter(*layers->Get(l))) {
            return badData("the NPU program's layer " + std::to_string(l) + " has packed weights this core cannot run");
        }
        if (native || profiling_ || stages_.empty() || stages_.back().native) {
            stages_.push_back({l, l + 1, native, {nullptr, nullptr}, {}, nullptr, std::move(state), {}});
        } else {
            stages_.back().endLayer = l + 1;
        }
    }
    return {};
}

// Tensors read or written by more than one stage, or by a native layer, live in buffers.
void NpuCore::markBufferedTensors() {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
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
}

// The profiling rows of a stage's layers: name, unit, bytes read and written.
void NpuCore::addProfileRows(const Stage& stage) {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    for (size_t l = stage.firstLayer; l < stage.endLayer; ++l) {
        const npu::Layer& layer = *layers->Get(l);
        LayerProfile entry{layer.name() ? layer.name()->str() : "", layerKind(layer.params_type())->unit, 0, 0, 0};
        for (uint32_t t : *layer.inputs()) entry.bytesRead += byteSize(*tensors->Get(t));
        entry.bytesWritten = byteSize(*tensors->Get(layer.outputs()->Get(0)));
        profile_.push_back(std::move(entry));
    }
}

// Gives every buffered tensor its bytes and every native stage its inputs and output.
void NpuCore::bindBuffers() {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    auto stored = [&](uint32_t t) { return isStored(*tensors->Get(t)); };
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        if (needsBuffer_[t] && !stored(t)) bufferOf(t);
    }
    for (Stage& stage : stages_) {
        if (!stage.native) continue;
        const npu::Layer& layer = *layers->Get(stage.firstLayer);
        // Own kernels read their weights packed (or from the program, unaligned): no aligned copy.
        for (uint32_t t : *layer.inputs()) {
            const auto* data = tensors->Get(t)->data();  // none for a filter held packed
            const bool inPlace = stage.state != nullptr && stored(t);
            stage.inputs.push_back(inPlace ? (data != nullptr ? data->data() : nullptr) : bufferOf(t));
        }
        stage.output = bufferOf(layers->Get(stage.endLayer - 1)->outputs()->Get(0));
    }
}

// Cuts the layers into stages, fuses pairs, plans the buffers and builds the runtimes.
Status NpuCore::buildStages() {
    NNEMU_RETURN_IF_ERROR(cutIntoStages());
    fuseStages();
    markBufferedTensors();
    hasXnnpackStages_ = std::any_of(stages_.begin(), stages_.end(), [](const Stage& stage) { return !stage.native; });
    const PoolUse use(hasXnnpackStages_);  // a pooled runtime records the pool: it must not go while one is built
    const uint64_t work = multiplyAccumulates(*program_);
    parallel_ = parallel_ && coreThreadCount() > 1 && work >= kParallelWorkThreshold;
    awaitsPool_ = parallel_ && !hasXnnpackStages_ && work >= kAwaitPoolWorkThreshold;
    planActivations();
    const bool pooled = parallel_ && use.pool() != nullptr && poolWorthUsingNow();
    for (Stage& stage : stages_) {
        if (!stage.native) {
            NNEMU_RETURN_IF_ERROR(buildXnnpackStage(stage.firstLayer, stage.endLayer, pooled, &stage.runtimes[pooled]));
        }
        if (profiling_) addProfileRows(stage);
    }
    bindBuffers();
    return {};
}

// Native layers whose kind fuses them with their output's only reader (the next layer, on a
// native stage too) become one stage, and that stage may take the next reader the same way. A
// layer that could head such a stage itself stays its head: joining the stage before would leave
// its own output whole. Not in profiling mode: there every layer is timed alone.
void NpuCore::fuseStages() {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    std::vector<uint32_t> readers(tensors->size(), 0);
    for (const npu::Layer* layer : *layers) {
        for (uint32_t t : *layer->inputs()) ++readers[t];
    }
    const auto fused = [&](const Stage& stage, const Stage& next) -> std::shared_ptr<LayerState> {
        // (A native layer without an own kernel, a sign flip, may head a stage too.)
        if (profiling_ || !stage.native || next.state == nullptr || next.endLayer != next.firstLayer + 1) {
            return nullptr;
        }
        const npu::Layer& layer = *layers->Get(stage.endLayer - 1);
        const uint32_t value = layer.outputs()->Get(0);
        const npu::Tensor& tensor = *tensors->Get(value);
        const auto fuse = layerKind(layer.params_type())->fuseWithReader;
        if (fuse == nullptr || readers[value] != 1 || tensor.input_index() >= 0 || tensor.output_index() >= 0) {
            return nullptr;
        }
        return fuse(*program_, layer, stage.state, *layers->Get(next.firstLayer), next.state);
    };
    std::vector<Stage> result;
    for (size_t s = 0; s < stages_.size(); ++s) {
        Stage stage = std::move(stages_[s]);
        while (s + 1 < stages_.size()) {
            const bool grown = stage.endLayer - stage.firstLayer > 1;
            if (grown && s + 2 < stages_.size() && fused(stages_[s + 1], stages_[s + 2]) != nullptr) break;
            std::shared_ptr<LayerState> state = fused(stage, stages_[s + 1]);
            if (state == nullptr) break;
            stage.endLayer = stages_[++s].endLayer;
            stage.state = std::move(state);
        }
        result.push_back(std::move(stage));
    }
    stages_ = std::move(result);
}

}  // namespace nnemu::synap
