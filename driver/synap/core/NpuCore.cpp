#include "NpuCore.h"

#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "../program/ProgramVersion.h"
#include "CoreThreads.h"
#include "LayerKinds.h"
#include "NativeLayers.h"
#include "../program/PackedFilters.h"
#include "OwnKernelLayers.h"
#include "../kernels/Isa.h"
#include "nnemu/base/Allocation.h"
#include "nnemu/base/Trace.h"

namespace nnemu::synap {
namespace {

using Clock = std::chrono::steady_clock;

// A profiled layer on the trace's timeline, with the unit it ran on.
void traceLayer(const LayerProfile& layer, size_t index, Clock::time_point start) {
    if (!trace::enabled()) return;
    trace::complete(layer.name.empty() ? std::string_view("layer") : std::string_view(layer.name), "npu layer", start,
                    Clock::now(),
                    trace::Args().add("unit", layer.opType).add("layer", index).add("bytes read", layer.bytesRead)
                            .add("bytes written", layer.bytesWritten).take());
}

// Whether the program's own GEMMs may run on AMX tiles here: the 8-bit ones (1x1 and unfolded
// convolutions, fully connected layers) where amxInt8Usable(), a relaxed program's bf16 ones
// where amxBf16Usable(). Which calls do is the kernels' choice by shape; a thread that runs none
// has only taken its tile state for nothing.
bool mayRunOnAmxTiles(const npu::Program& program) {
    if (program.packed_weights() == nullptr) return false;
    for (const npu::PackedWeights* entry : *program.packed_weights()) {
        const npu::PackedKernel kernel = entry->kernel();
        if ((kernel == npu::PackedKernel::QUANT_GEMM || kernel == npu::PackedKernel::QUANT_CONV) &&
            kernels::amxInt8Usable()) {
            return true;
        }
        if (kernel == npu::PackedKernel::FLOAT_GEMM_BF16 && kernels::amxBf16Usable()) return true;
    }
    return false;
}

}  // namespace

Result<std::unique_ptr<NpuCore>> NpuCore::load(cache::ProgramImage program, bool profiling, bool callingThreadOnly,
                                               int callerCpu, PoolStart poolStart) {
    std::unique_ptr<NpuCore> core(new NpuCore());
    core->parallel_ = !callingThreadOnly;
    core->bytes_ = std::move(program);
    core->profiling_ = profiling;
    flatbuffers::Verifier verifier(core->bytes_.data(), core->bytes_.size());
    if (!npu::VerifyProgramBuffer(verifier)) {
        return Status(StatusCode::DAMAGED, "the NPU program is corrupt (verification failed)");
    }
    core->program_ = npu::GetProgram(core->bytes_.data());
    if (core->program_->compiler_version() != kCompilerVersion) {
        return Status(StatusCode::DAMAGED, "the NPU program comes from compiler version " +
                                                   std::to_string(core->program_->compiler_version()) + ", not " +
                                                   std::to_string(kCompilerVersion));
    }
    NNEMU_RETURN_IF_ERROR(core->build());
    // The own pool's workers start now and sleep until the first inference wakes them
    // (CoreThreads.h); a network with XNNPACK stages starts the pthreadpool after its first run.
    if (core->usesCorePool() && poolStart == PoolStart::kAtLoad) startCoreThreadPool(callerCpu);
    return core;
}

// A machine short of memory fails the program's load (and the compilation falls back), whichever
// thread loads it: this catch is the driver's, not the C API's.
Status NpuCore::build() {
    NNEMU_RETURN_IF_ERROR(checkPackedFilters(*program_));
    return guardAllocation(
            [this] {
                NNEMU_RETURN_IF_ERROR(preparePorts());
                NNEMU_RETURN_IF_ERROR(unpackFiltersIfNeeded());
                return buildStages();
            },
            "the NPU core ran out of memory for the program's buffers");
}

NpuCore::~NpuCore() {
    for (const Stage& stage : stages_) {
        for (xnn_runtime* runtime : stage.runtimes) {
            if (runtime != nullptr) xnn_delete_runtime(runtime);
        }
    }
}

void NpuCore::prepareCallingThread() const {
    if (mayRunOnAmxTiles(*program_)) kernels::prepareAmxThread();
}

std::vector<std::span<const uint8_t>> NpuCore::constantsInRunOrder() const {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    const size_t layerCount = layers != nullptr ? layers->size() : 0;
    std::vector<std::vector<const flatbuffers::Vector<uint8_t>*>> packed(layerCount);
    if (program_->packed_weights() != nullptr) {
        for (const npu::PackedWeights* weights : *program_->packed_weights()) {
            if (weights->layer() < layerCount && weights->data() != nullptr) packed[weights->layer()].push_back(weights->data());
        }
    }
    std::vector<std::span<const uint8_t>> constants;
    std::vector<bool> listed(tensors != nullptr ? tensors->size() : 0, false);
    for (size_t l = 0; l < layerCount; ++l) {
        for (uint32_t t : *layers->Get(static_cast<uint32_t>(l))->inputs()) {
            if (t >= listed.size() || listed[t]) continue;
            listed[t] = true;
            const auto* data = tensors->Get(t)->data();
            if (data != nullptr && data->size() > 0) constants.emplace_back(data->data(), data->size());
        }
        for (const auto* data : packed[l]) constants.emplace_back(data->data(), data->size());
    }
    return constants;
}

size_t NpuCore::layerCount() const { return program_->layers() ? program_->layers()->size() : 0; }

// A core that does not run every packed layer on its packed weights (another ISA or layout, the
// XNNPACK core) takes the program with its filters unpacked: the same structure, checked above.
Status NpuCore::unpackFiltersIfNeeded() {
    const std::vector<uint32_t> layers = layersOfPackedFilters(*program_);
    if (std::all_of(layers.begin(), layers.end(),
                    [&](uint32_t l) { return packedWeightsRunInPlace(*program_, *program_->layers()->Get(l)); })) {
        return {};
    }
    NNEMU_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, unpackFilters(*program_));
    bytes_ = cache::ProgramImage(std::move(bytes));
    program_ = npu::GetProgram(bytes_.data());
    return {};
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
    if (tensor.input_index() >= 0 || tensor.output_index() >= 0) {
        return arenaOffsets_[index] != SIZE_MAX ? arena_.data() + arenaOffsets_[index] : nullptr;  // or the caller's
    }
    if (const void* data = constantData(index)) return static_cast<uint8_t*>(const_cast<void*>(data));
    if (index < arenaOffsets_.size() && arenaOffsets_[index] != SIZE_MAX) return arena_.data() + arenaOffsets_[index];
    if (activations_[index].empty()) activations_[index] = ZeroedBytes(byteSize(tensor) + XNN_EXTRA_BYTES);
    return activations_[index].data();
}

bool NpuCore::choosePool(const PoolUse& use, bool worthUsing) {
    const bool pooled = worthUsing && use.pool() != nullptr;
    for (Stage& stage : stages_) {
        if (stage.native || stage.runtimes[pooled] != nullptr) continue;
        // A failure is no error: the other runtime exists and serves instead.
        if (!buildXnnpackStage(stage.firstLayer, stage.endLayer, pooled, &stage.runtimes[pooled]).isOk()) {
            if (stage.runtimes[pooled] != nullptr) xnn_delete_runtime(stage.runtimes[pooled]);
            stage.runtimes[pooled] = nullptr;
            return !pooled;
        }
    }
    return pooled;
}

Status NpuCore::run(const std::vector<const uint8_t*>& inputs, const std::vector<uint8_t*>& outputs,
                    const hal::Deadline& deadline) {
    if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size()) {
        return badData("wrong number of NPU inputs or outputs");
    }
    arena_.adoptHugePagesIfReady();  // once the helper the second run started has them (ArenaPages.h)
    // Whether the pool would serve now, asked before it is acquired: a large network waits for
    // the pool still starting only then (on a busy machine the thread starting it may itself
    // wait a scheduler slice for a core, for a pool this run would not use). The PoolUse stays
    // alive until this run ends, even if the process exits meanwhile.
    const bool worthUsing = parallel_ && poolWorthUsingNow();
    const PoolUse use(hasXnnpackStages_, worthUsing && awaitsPool_);
    const bool pooled = choosePool(use, worthUsing);
    if (pooled) use.pool()->wake();  // workers asleep since the last inference start rising now
    const auto runStart = Clock::now();
    trace::Span copyIn("copy inputs", "npu");
    // An empty port's caller buffer may be null, which memcpy may not be given even for 0 bytes.
    for (size_t i = 0; i < inputs_.size(); ++i) {
        Port& port = inputs_[i];
        const uint8_t* input = inputs[i];
        if (!port.readers.empty() && reinterpret_cast<uintptr_t>(input) % port.valueBytes != 0) {
            port.aligned.resize((port.bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t));
            std::memcpy(port.aligned.data(), input, port.bytes);
            input = reinterpret_cast<const uint8_t*>(port.aligned.data());
        }
        for (size_t stage : port.readers) stages_[stage].inputs[0] = input;
        if (inputs_[i].bytes > 0 && inputs_[i].readers.empty()) {
            std::memcpy(bufferOf(inputs_[i].tensor), inputs[i], inputs_[i].bytes);
        }
    }
    copyIn.end();
    for (size_t s = 0; s < stages_.size(); ++s) {
        if (hal::deadlinePassed(deadline)) {
            return {StatusCode::MISSED_DEADLINE_TRANSIENT, "the NPU run missed its deadline"};
        }
        const Stage& stage = stages_[s];
        const auto start = Clock::now();
        const npu::Layer& first = *program_->layers()->Get(stage.firstLayer);
        StageThreadTimes times;
        const bool timed = threadTimesOn();
        const uint64_t callerStart = timed ? threadCpuNs() : 0;
        if (timed) recordThreadTimesInto(&times);
        const bool ok = stage.native
                                ? layerKind(first.params_type())->run(
                                          {*program_, first, stage.inputs, stage.output, stage.state.get(),
                                           pooled ? use.pool() : nullptr, stage.workspace})
                                : xnn_invoke_runtime(stage.runtimes[pooled]) == xnn_status_success;
        if (timed) {
            recordThreadTimesInto(nullptr);
            times.callerNs = threadCpuNs() - callerStart;
            addThreadTimes(s, times);
        }
        if (!ok) {
            return opFailed("the NPU core failed to run layer " + std::string(first.name() ? first.name()->c_str() : "?"));
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
    const auto runTime = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - runStart);
    noteRunTime(pooled, static_cast<uint64_t>(runTime.count()));
    copyOut.end();
    // After the second inference (a network run once never needs them; the helper competes
    // for the cores, and started any earlier it slowed the first inference): once.
    if (runCount() >= 2) arena_.startHugePages();
    if (parallel_ && hasXnnpackStages_ && runCount() == 1) startXnnpackThreadPool();
    return {};
}

void NpuCore::addThreadTimes(size_t stage, const StageThreadTimes& times) {
    if (threadTimes_.size() != stages_.size()) threadTimes_.assign(stages_.size(), {});
    StageThreadTimes& sum = threadTimes_[stage];
    sum.callerNs += times.callerNs;
    for (size_t t = 0; t < kTimedThreads; ++t) sum.taskNs[t] += times.taskNs[t];
    sum.longestTaskNs += times.longestTaskNs;
    sum.parallelCalls += times.parallelCalls;
    sum.tasks += times.tasks;
}

std::string NpuCore::stageName(size_t stage) const {
    const npu::Layer& layer = *program_->layers()->Get(stages_[stage].firstLayer);
    std::string name = npu::EnumNameLayerParams(layer.params_type());
    if (!stages_[stage].native) name = "xnnpack:" + name;
    if (stages_[stage].endLayer - stages_[stage].firstLayer > 1) {
        name += "+" + std::to_string(stages_[stage].endLayer - stages_[stage].firstLayer - 1);
    }
    return name + " " + (layer.name() ? layer.name()->str() : std::string("?"));
}

// A pooled run far slower than this network's runs on the pool, or than its runs on one
// thread, met a busy core.
void NpuCore::noteRunTime(bool pooled, uint64_t us) {
    ++runs_[pooled];
    lastPooled_ = pooled;
    fastestUs_[pooled] = std::min(fastestUs_[pooled], us);
    if (!parallel_ || profiling_ || !pooled) return;
    const bool slow = us > 3 * fastestUs_[1] || (fastestUs_[0] != UINT64_MAX && us > 2 * fastestUs_[0]);
    pooledRunWas(slow);
}

}  // namespace nnemu::synap
