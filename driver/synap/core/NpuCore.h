// The emulated NPU core: executes one verified NPU program as a sequence of stages: XNNPACK
// runtimes (on a process-wide thread pool) for runs of layers XNNPACK computes, and layers the
// core runs itself (see LayerKinds.h). Normally a run of layers is one whole-graph
// runtime; in profiling mode every layer is its own stage, timed, like the board's NPU stopped
// and restarted between layers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../stats/Statistics.h"
#include "nnemu/base/Status.h"
#include "nnemu/hal/Device.h"
#include "npu_program_generated.h"
#include "ThreadTimes.h"
#include "ArenaPages.h"
#include "ZeroedBytes.h"
#include "nnemu/cache/ProgramImage.h"

struct xnn_runtime;

namespace nnemu::synap {

class PoolUse;  // CoreThreads.h

struct LayerState;  // LayerKinds.h

class NpuCore {
public:
    // Verifies `program` (flatbuffers verifier, identifier, compiler version) and builds the
    // runtime, packing its weights. DAMAGED saying why when the program is corrupt or foreign,
    // OUT_OF_MEMORY when its buffers cannot be allocated.
    // `callingThreadOnly` keeps it off the thread pool whatever CoreThreads.h says (benchmarks).
    // A mapped program (from the SyNAP cache's program file) stays mapped: layers read its
    // weights where they lie. A network for the pool starts the pool's workers (CoreThreads.h),
    // which keep off `callerCpu`, the CPU of the thread that will run its inferences (-1: this
    // thread's); with PoolStart::kByCaller the caller starts them (startCoreThreadPool) when
    // usesCorePool() says so, e.g. after handing the core over.
    enum class PoolStart { kAtLoad, kByCaller };
    static Result<std::unique_ptr<NpuCore>> load(cache::ProgramImage program, bool profiling = false,
                                                 bool callingThreadOnly = false, int callerCpu = -1,
                                                 PoolStart poolStart = PoolStart::kAtLoad);
    static Result<std::unique_ptr<NpuCore>> load(std::vector<uint8_t> program, bool profiling = false,
                                                 bool callingThreadOnly = false) {
        return load(cache::ProgramImage(std::move(program)), profiling, callingThreadOnly);
    }
    ~NpuCore();
    NpuCore(const NpuCore&) = delete;
    NpuCore& operator=(const NpuCore&) = delete;

    size_t inputCount() const { return inputs_.size(); }
    size_t outputCount() const { return outputs_.size(); }
    const std::vector<uint32_t>& inputDims(size_t i) const { return inputs_[i].dims; }
    const std::vector<uint32_t>& outputDims(size_t i) const { return outputs_[i].dims; }
    size_t inputBytes(size_t i) const { return inputs_[i].bytes; }
    size_t outputBytes(size_t i) const { return outputs_[i].bytes; }
    size_t layerCount() const;
    // Its inferences may run on the own thread pool (CoreThreads.h).
    bool usesCorePool() const { return parallel_ && !hasXnnpackStages_; }
    std::span<const uint8_t> programBytes() const { return bytes_.bytes(); }
    bool programMapped() const { return bytes_.mapped(); }
    // The program's constants in the order the layers first read them (each layer's input
    // tensors' bytes, then its packed weights): what an inference reads of the program.
    std::vector<std::span<const uint8_t>> constantsInRunOrder() const;
    // Bytes of the activation arena (every activation between stages, planned by lifetime).
    size_t arenaBytes() const { return arena_.size(); }
    // The arena's own pages (none for a small one), for faulting them in ahead (PageTouches).
    std::span<const uint8_t> arenaPages() const { return arena_.mappedPages(); }
    // Whether the arena's huge pages (ArenaPages.h) are still being prepared (tests).
    bool arenaHugePagesPending() const { return arena_.hugePagesPending(); }
    // Bytes of the largest working memory a stage has in the arena (band buffers).
    size_t largestWorkspace() const;

    // Runs the program once: copies the inputs in, invokes, copies the outputs out.
    // Stops between stages once `deadline` has passed (MISSED_DEADLINE_TRANSIENT, "the NPU run
    // missed its deadline").
    Status run(const std::vector<const uint8_t*>& inputs, const std::vector<uint8_t*>& outputs,
               const hal::Deadline& deadline = std::nullopt);

    bool profiling() const { return profiling_; }
    // Takes on the calling thread, now, what this program's first run on it would take once per
    // thread: the AMX tile state where its GEMMs may run on tiles (kernels::prepareAmxThread).
    // For a load on the thread that will run it (from the NNAPI cache, during Compilation_finish).
    void prepareCallingThread() const;
    // Per layer of the last run, in profiling mode: time, bytes read and written, unit.
    const std::vector<LayerProfile>& lastProfile() const { return profile_; }

    // Inferences run, and how many of them on the thread pool (CoreThreads.h decides per run).
    uint64_t runCount() const { return runs_[0] + runs_[1]; }
    uint64_t pooledRunCount() const { return runs_[1]; }
    // Whether the last run used the thread pool.
    bool lastRunPooled() const { return lastPooled_; }
    // Per stage, summed over the runs since threadTimesOn() (ThreadTimes.h) was set: each
    // thread's CPU time in the stage's pool tasks (longestTaskNs: the sum of each run's longest).
    const std::vector<StageThreadTimes>& stageThreadTimes() const { return threadTimes_; }
    // A stage's first layer's name and kind, for such reports.
    std::string stageName(size_t stage) const;

private:
    struct Port {
        std::vector<uint32_t> dims;
        size_t bytes = 0;
        uint32_t externalId = 0;
        uint32_t tensor = 0;  // its values: in the arena, padded (XNNPACK may read past the end)
        // An input only layers that read no byte past it take: read where the caller holds it,
        // bound as the first input of these stages at each run (from a copy in `aligned` where
        // the caller's bytes are not aligned for its values: float layers read floats).
        std::vector<size_t> readers;
        size_t valueBytes = 1;
        std::vector<uint64_t> aligned;
    };

    NpuCore() = default;
    struct Stage;
    Status build();  // everything load does past the checks of the program's header
    Status unpackFiltersIfNeeded();
    // NpuCoreChecks.cpp: the program's structure, the ports.
    Status preparePorts();
    Status checkLayers(const std::function<Status(const std::string&)>& fail) const;
    // NpuStages.cpp: stages, fused pairs, buffers.
    Status buildStages();
    Status cutIntoStages();
    bool readsPackedFilter(const npu::Layer& layer) const;
    void fuseStages();
    void markBufferedTensors();
    void keepStageValuesInArena();
    void forEachStageTensor(const std::function<void(size_t stage, uint32_t tensor)>& visit) const;
    void planActivations();  // the arena (ActivationArena.h) for the stages built
    std::vector<bool> inputsReadInPlace();  // per tensor; fills the ports' `readers`
    void addProfileRows(const Stage& stage);
    void bindBuffers();
    // XnnpackStages.cpp: one XNNPACK runtime for layers [firstLayer, endLayer).
    Status buildXnnpackStage(size_t firstLayer, size_t endLayer, bool pooled, xnn_runtime** runtime);
    // Whether this inference runs on the thread pool (CoreThreads.h); builds the stages'
    // runtimes for that choice the first time it is made.
    bool choosePool(const PoolUse& use, bool worthUsing);
    void noteRunTime(bool pooled, uint64_t us);
    void addThreadTimes(size_t stage, const StageThreadTimes& times);
    // Static bytes of a constant tensor, aligned for the core; nullptr for activations.
    const void* constantData(uint32_t tensor);
    // Where a tensor's values live between stages: the arena (ports and activations), an own
    // buffer, or a constant's bytes.
    uint8_t* bufferOf(uint32_t tensor);

    // A run of layers: one XNNPACK runtime (per threading: on the calling thread, on the pool),
    // or one layer the core runs itself on its buffers (or a pair its first layer's kind fused:
    // the first layer's inputs, the last one's output).
    struct Stage {
        size_t firstLayer;
        size_t endLayer;
        bool native;
        xnn_runtime* runtimes[2] = {nullptr, nullptr};  // [pooled]
        std::vector<const uint8_t*> inputs;  // native only
        uint8_t* output = nullptr;
        std::shared_ptr<LayerState> state;  // native layers on the core's own kernels
        std::span<uint8_t> workspace;        // in the arena, what `state` asked for
    };

    cache::ProgramImage bytes_;
    const npu::Program* program_ = nullptr;
    bool profiling_ = false;
    std::vector<std::vector<uint8_t>> alignedConstants_;
    std::vector<const void*> constants_;  // per tensor, once aligned
    std::vector<Port> inputs_;
    std::vector<Port> outputs_;
    // Zero until written, never cleared at load (ZeroedBytes.h): a warm start touches no page
    // the first inference does not write.
    std::vector<ZeroedBytes> activations_;  // per tensor crossing stages, unless in the arena:
    ArenaPages arena_;                      // activations crossing stages, by lifetime
    std::vector<size_t> arenaOffsets_;      // per tensor: offset in arena_ or SIZE_MAX
    std::vector<Stage> stages_;
    std::vector<bool> needsBuffer_;  // per tensor: crosses stages or lives in the arena (an external value)
    bool parallel_ = false;          // large enough for the thread pool, and allowed on it
    bool awaitsPool_ = false;        // on the own pool, and large enough to wait for it starting (NpuStages.cpp)
    bool hasXnnpackStages_ = false;  // then every layer runs on the pthreadpool (CoreThreads.h)
    uint64_t fastestUs_[2] = {UINT64_MAX, UINT64_MAX};  // [pooled]: the quickest whole run seen
    std::vector<LayerProfile> profile_;
    uint64_t runs_[2] = {0, 0};  // [pooled]
    bool lastPooled_ = false;
    std::vector<StageThreadTimes> threadTimes_;
};

}  // namespace nnemu::synap
