// A model prepared on synap-npu. Preparing only keeps the model: the network is compiled at
// its first execution, when the input shapes are known, and those shapes are then frozen. (A
// program the SyNAP cache already holds for the declared shapes is looked up and loaded in the
// background from prepare on, for the first execution to take: PreparedNetwork.cpp, Prefetch.)
// vendor.NNAPI_SYNAP_PROFILE is read then: a network compiled while it is 1 runs layer by
// layer and publishes its per-layer profile.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <memory>
#include <mutex>
#include <vector>

#include "../core/NpuCore.h"
#include "../stats/Statistics.h"
#include "nnemu/synap/cache/SharedSynapCache.h"
#include "nnemu/hal/Device.h"

namespace nnemu::synap {

// Where the first inference's time went (microseconds), for logs and benchmarks.
struct JitCost {
    uint64_t loweringUs = 0;  // NNAPI model -> NPU program
    uint64_t loadUs = 0;      // NPU program -> core runtime (weight packing)
    uint64_t cacheUs = 0;     // SyNAP cache key, lookup and store; NNAPI model cache write
};

class PreparedNetwork final : public hal::IPreparedModel {
public:
    // The model stays shared (the runtime's, immutable) for compiling at the first inference.
    explicit PreparedNetwork(std::shared_ptr<const hal::Model> model);
    ~PreparedNetwork() override;

    // NNAPI compilation cache hit: a network rebuilt from a verified cached NPU program (the model
    // cache file, mapped), loaded now so its first inference has no JIT. Its input shapes are the
    // program's.
    // The core's failure when the program does not load.
    static Result<std::shared_ptr<PreparedNetwork>> fromCachedProgram(cache::ProgramImage program);
    // NNAPI compilation cache miss: keeps a duplicate of `modelCacheFd` and writes the whole
    // program there after the first-inference JIT.
    void saveProgramTo(int modelCacheFd, const hal::CacheToken& token);

    std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> executeSynchronously(
            const hal::Request& request, hal::MeasureTiming measure) override;
    // The deadline is checked before anything starts, after the first inference's JIT and
    // between the core's stages.
    std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> execute(
            const hal::Request& request, hal::MeasureTiming measure, const hal::Deadline& deadline) override;

    JitCost jitCost() const { return jitCost_; }
    // The loaded program and its core; nullptr before the first inference.
    const NpuCore* core() const { return core_.get(); }

private:
    // Compiles on first use; checks the shapes of later executions against the frozen ones.
    bool ensureCompiled(const std::vector<std::vector<uint32_t>>& inputDims);
    // The JIT: the program from the SyNAP cache or the compiler, loaded on the core; then the
    // caches are filled.
    bool jitCompile(const std::vector<std::vector<uint32_t>>& inputDims);
    // An inference whose float inputs (or the network's constants) hold NaN or an infinity
    // (NonFinite.h): run by the nnapi-reference device, found in the HAL's device registry and
    // prepared with this model at the first such inference.
    std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> executeOnReferenceKernels(
            const hal::Request& request, hal::MeasureTiming measure, std::chrono::steady_clock::time_point start);

    // The fence and execute fault points (NpuFaults.h): the status to fail with, or nullopt.
    std::optional<hal::ErrorStatus> executionFault(const hal::Request& request);
    std::vector<size_t> unknownSizeOutputs(const hal::Request& request) const;
    std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> failed(
            hal::ErrorStatus status, const hal::Request& request = {});

    std::shared_ptr<const hal::Model> model_;
    std::atomic<bool> dead_{false};  // an injected DEAD_OBJECT: the driver died for this compilation
    std::vector<uint8_t> modelDigest_;  // the SyNAP cache key's model part (ModelKey.h), once known
    std::vector<uint8_t> fileDigest_;   // its stand-in by the weights' files (fileIdentityDigest), or empty
    std::mutex mutex_;  // one execution at a time: the core's runtime is not reentrant
    std::unique_ptr<NpuCore> core_;
    std::unique_ptr<NetworkStatistics> statistics_;  // the network as the statistics files list it
    std::vector<std::vector<uint32_t>> frozenInputDims_;
    JitCost jitCost_;
    std::unique_ptr<NpuCore> preloaded_;  // from an NNAPI model cache file, until the first run
    // A warm start's program looked up in the SyNAP cache and loaded in the background from
    // prepare on, for the first inference's JIT to take (PreparedNetwork.cpp); null when none.
    struct Prefetch;
    std::unique_ptr<Prefetch> prefetch_;
    void startPrefetch();
    // The prefetched core when it is the one the JIT would load now (same key, cache and
    // profiling mode); nullptr otherwise. Waits until the prefetch has loaded it.
    std::unique_ptr<NpuCore> takePrefetched(const cache::SynapCacheLocation& location, const std::string& key,
                                            bool profiling);
    // A core prepared from an NNAPI model cache file has its memory made present for its first
    // inference by a thread of its own (PreparedNetwork.cpp); null otherwise.
    struct Warmup;
    std::unique_ptr<Warmup> warmup_;
    void startWarmup(const NpuCore& core);
    int modelCacheFd_ = -1;               // where to save the program after the JIT, or -1
    hal::CacheToken cacheToken_{};
    std::shared_ptr<hal::IPreparedModel> reference_;  // the model on nnapi-reference, once needed
    bool nonFiniteConstants_ = false;  // found by the JIT: every inference runs on nnapi-reference
};

// The prepared networks alive in this process, oldest first: for benchmarks and tools that look
// at what the JIT produced. The pointers are valid while their compilations are.
std::vector<const PreparedNetwork*> livePreparedNetworks();


}  // namespace nnemu::synap
