#include "PreparedNetwork.h"
#include "SynapLog.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "../compiler/Compiler.h"
#include "../core/CoreThreads.h"
#include "../core/ParentThread.h"
#include "../kernels/Isa.h"
#include "FirstRunPages.h"
#include "NonFinite.h"
#include "NpuFaults.h"
#include "nnemu/base/Allocation.h"
#include "nnemu/base/Trace.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/ModelCacheFile.h"
#include "ModelKey.h"
#include "nnemu/synap/cache/ModelCacheSeals.h"
#include "nnemu/synap/cache/SharedSynapCache.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/DeviceRegistry.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/props/Properties.h"
#include "nnemu/props/SynapProperties.h"

namespace nnemu::synap {
namespace {

using Clock = std::chrono::steady_clock;
using hal::ErrorStatus;

uint64_t microsSince(Clock::time_point start) {
    return static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

// The bytes of request argument `argument`, or nullptr when it does not fit its pool.
uint8_t* argumentData(const hal::Request& request, const hal::RequestArgument& argument) {
    const auto& at = argument.location;
    if (argument.hasNoValue || at.poolIndex >= request.pools.size()) return nullptr;
    const auto& pool = request.pools[at.poolIndex];
    if (uint64_t{at.offset} + at.length > pool->size() || pool->data() == nullptr) return nullptr;
    return pool->data() + at.offset;
}

// The program holds a copy of the model's weights: a machine short of memory fails the JIT.
Result<std::vector<uint8_t>> compileWithinMemory(const hal::Model& model,
                                                 const std::vector<std::vector<uint32_t>>& inputDims) {
    return guardAllocation([&] { return compileProgram(model, inputDims); },
                           "out of memory while building the NPU program");
}

// The loaded network as the statistics files list it (a line of `networks`).
std::unique_ptr<NetworkStatistics> listedNetwork(const NpuCore& core) {
    uint64_t iobufBytes = 0;
    for (size_t i = 0; i < core.inputCount(); ++i) iobufBytes += core.inputBytes(i);
    for (size_t i = 0; i < core.outputCount(); ++i) iobufBytes += core.outputBytes(i);
    return std::make_unique<NetworkStatistics>(static_cast<uint32_t>(core.inputCount() + core.outputCount()),
                                               iobufBytes, static_cast<uint32_t>(core.layerCount()), core.profiling());
}

}  // namespace

namespace {

// Prefetches still running: the exit handler waits for them (at most 2 s) before the statics
// they may use are destroyed (an application that compiles and exits at once). Registered before
// the first prefetch starts, so it runs before the destructors of what existed then.
class PrefetchesRunning {
public:
    static PrefetchesRunning& get() {
        static PrefetchesRunning* running = [] {
            auto* created = new PrefetchesRunning();  // never destroyed: used during exit
            std::atexit([] { get().awaitNone(); });
            return created;
        }();
        return *running;
    }
    void begin() {
        std::lock_guard lock(mutex_);
        ++count_;
    }
    void end() {
        std::lock_guard lock(mutex_);
        --count_;
        ended_.notify_all();
    }

private:
    void awaitNone() {
        std::unique_lock lock(mutex_);
        if (getpid() != owner_) return;  // a forked child: the parent's prefetches are not its
        ended_.wait_for(lock, std::chrono::seconds(2), [&] { return count_ == 0; });
    }

    std::mutex mutex_;
    std::condition_variable ended_;
    size_t count_ = 0;
    const pid_t owner_ = getpid();
};

}  // namespace

// The warm start's lookup and core load, on a thread of its own from prepare on: a program the
// SyNAP cache holds for this model and its declared input shapes is found, mapped and loaded
// while the application does whatever it does between compiling and its first inference
// (benchmark_model: about 1 ms of Init), and that first inference's JIT takes the loaded core
// instead of doing the same work itself. What the JIT decides stays the JIT's: the cache's path
// and capacity, the profiling mode and the fault properties are read again at the first
// inference, and a prefetched core that does not match them is dropped. A miss prefetches
// nothing: the compiler runs at the first inference, as on the board.
//
// Then the thread makes the loaded core's memory present for its first inference (FirstRunPages.h):
// the arena's pages, with the JIT's thread helping, then the constants while that inference runs.
// A core the JIT does not keep is dropped only after pages.stop().
struct PreparedNetwork::Prefetch {
    cache::SynapCacheLocation location;
    std::string key;
    bool profiling = false;
    int preparingCpu = -1;  // where the thread that prepared (and will likely infer) ran
    ParentThread thread;

    bool forked() const { return thread.forked(); }
    void join() { thread.join(); }
    // Waits until the thread has looked the program up and loaded it (not for the thread pool it
    // may start after that) and takes the core: nullptr on a miss, a refused program, or when
    // taken before.
    // Then helps with the loaded core's arena pages and waits until every one is read.
    std::unique_ptr<NpuCore> takeLoaded() {
        thread.awaitHere();
        std::unique_ptr<NpuCore> taken;
        {
            std::unique_lock lock(mutex);
            loadedOrNot.wait(lock, [&] { return published; });
            taken = std::move(core);
        }
        pages.awaitArena();
        return taken;
    }
    void run() {
        pthread_setname_np(pthread_self(), "nnemu-prefetch");
        struct Ended {
            ~Ended() { PrefetchesRunning::get().end(); }
        } ended;
        bool startPool = false;
        std::unique_ptr<NpuCore> loadedCore;
        try {
            trace::Span span("synap cache prefetch", "jit");
            cache::ProgramImage program;
            const bool found = cache::findCompiledProgram(location, key, kCompilerVersion, &program);
            span.arg("hit", found ? 1 : 0);
            if (found) {
                trace::Span load("core load", "jit");
                // The pool's workers keep off the preparing thread's CPU, not this thread's:
                // that one runs the inferences (CorePool.h). They start after the core is handed
                // over: creating a thread took 0.1-0.25 ms on the 2-core VM, which the first
                // inference waited for when the load started them.
                Result<std::unique_ptr<NpuCore>> loaded =
                        NpuCore::load(std::move(program), profiling, false, preparingCpu, NpuCore::PoolStart::kByCaller);
                // A program the core refuses is the first inference's to drop, as without a prefetch.
                if (loaded.isOk()) loadedCore = std::move(loaded).value();
                startPool = loadedCore != nullptr && loadedCore->usesCorePool();
            }
        } catch (...) {  // out of memory: the first inference loads (or compiles) as without a prefetch
            loadedCore.reset();
            startPool = false;
        }
        {
            std::lock_guard lock(mutex);
            if (loadedCore != nullptr) pages.prepare(*loadedCore);
            core = std::move(loadedCore);
            published = true;
        }
        loadedOrNot.notify_all();
        pages.readArena();
        if (startPool) startCoreThreadPool(preparingCpu);
        pages.readConstantsAhead();
    }

    FirstRunPages pages;  // the published core's

private:
    std::mutex mutex;
    std::condition_variable loadedOrNot;
    bool published = false;
    std::unique_ptr<NpuCore> core;
};

// A network prepared from an NNAPI model cache file: its core is loaded, and a thread of its own
// makes the core's memory present for the first inference (FirstRunPages.h).
struct PreparedNetwork::Warmup {
    FirstRunPages pages;
    ParentThread thread;
};

void PreparedNetwork::startWarmup(const NpuCore& core) {
    // Below ~1 MiB to read, starting a thread (0.1-0.3 ms on the 2-core VM) gains little.
    constexpr size_t kWorthAThread = 256;
    auto warmup = std::make_unique<Warmup>();
    warmup->pages.prepare(core);
    if (warmup->pages.pageCount() < kWorthAThread) return;
    PrefetchesRunning::get().begin();  // the exit handler waits for it too
    const bool started = warmup->thread.start(
            [w = warmup.get()] {
                struct Ended {
                    ~Ended() { PrefetchesRunning::get().end(); }
                } ended;
                pthread_setname_np(pthread_self(), "nnemu-warmup");
                w->pages.readArena();
                w->pages.readConstantsAhead();
            },
            ParentThread::Start::kBesideCaller);
    if (!started) {
        PrefetchesRunning::get().end();
        return;  // the first inference faults the pages in itself
    }
    warmup_ = std::move(warmup);
}

void PreparedNetwork::startPrefetch() {
    if (props::faults::armed()) return;  // injected faults count the JIT's own cache reads
    const std::vector<uint8_t>& digest = fileDigest_.empty() ? modelDigest_ : fileDigest_;
    if (digest.empty()) return;
    std::vector<std::vector<uint32_t>> inputDims;
    for (uint32_t index : model_->inputIndexes) {
        const auto& dims = model_->operands[index].dimensions;
        if (std::find(dims.begin(), dims.end(), 0u) != dims.end()) return;  // known at the first inference only
        inputDims.push_back(dims);
    }
    auto prefetch = std::make_unique<Prefetch>();
    prefetch->location = {props::SynapProperties::cacheFile(), props::SynapProperties::cacheCapacity(),
                          props::deviceRoot()};
    prefetch->key = compiledNetworkKey(digest, inputDims);
    prefetch->profiling = props::SynapProperties::profile();
    prefetch->preparingCpu = sched_getcpu();
    PrefetchesRunning::get().begin();
    // Started beside this thread: queued behind it, the prefetch would wait for the first
    // inference to block on it (ParentThread.cpp).
    if (!prefetch->thread.start([p = prefetch.get()] { p->run(); }, ParentThread::Start::kBesideCaller)) {
        PrefetchesRunning::get().end();
        return;  // the first inference looks the program up itself
    }
    prefetch_ = std::move(prefetch);
    // The first inference usually runs on this thread: it takes its AMX tile state now (~20 us,
    // kernels::prepareAmxThread) where the network's 8-bit or relaxed layers may run on tiles.
    const bool mayUseTiles = model_->relaxComputationFloat32toFloat16 ||
                             std::any_of(model_->operands.begin(), model_->operands.end(), [](const hal::Operand& o) {
                                 return o.type == hal::OperandType::TENSOR_QUANT8_ASYMM ||
                                        o.type == hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
                             });
    if (mayUseTiles) kernels::prepareAmxThread();
}

std::unique_ptr<NpuCore> PreparedNetwork::takePrefetched(const cache::SynapCacheLocation& location,
                                                         const std::string& key, bool profiling) {
    if (prefetch_ == nullptr || prefetch_->forked()) return nullptr;
    std::unique_ptr<NpuCore> core = prefetch_->takeLoaded();
    const bool same = prefetch_->location.file == location.file && prefetch_->location.capacity == location.capacity &&
                      prefetch_->location.boardRoot == location.boardRoot && prefetch_->key == key &&
                      prefetch_->profiling == profiling;
    if (same) return core;
    prefetch_->pages.stop();  // then `core` goes
    return nullptr;
}

bool PreparedNetwork::ensureCompiled(const std::vector<std::vector<uint32_t>>& inputDims) {
    if (core_ != nullptr) {
        if (inputDims == frozenInputDims_) return true;
        SYNAP_LOG(ERROR) << "input shapes cannot change after the first inference";
        return false;
    }
    if (preloaded_ != nullptr) {
        // Rebuilt from an NNAPI model cache file: no JIT, and the program's shapes are frozen.
        for (size_t i = 0; i < inputDims.size(); ++i) {
            if (inputDims[i] != preloaded_->inputDims(i)) {
                SYNAP_LOG(ERROR) << "input " << i << " does not have the shape of the cached network";
                return false;
            }
        }
        if (warmup_ != nullptr && !warmup_->thread.forked()) warmup_->pages.awaitArena();
        core_ = std::move(preloaded_);
    } else if (!jitCompile(inputDims)) {
        return false;
    }
    frozenInputDims_ = inputDims;
    if (statistics_ == nullptr) statistics_ = listedNetwork(*core_);  // a preloaded one is listed already
    SYNAP_LOG(INFO) << "compiled a network of " << core_->layerCount() << " layers (lowering "
                 << jitCost_.loweringUs << " us, core load " << jitCost_.loadUs << " us, caches "
                 << jitCost_.cacheUs << " us)";
    return true;
}

bool PreparedNetwork::jitCompile(const std::vector<std::vector<uint32_t>>& inputDims) {
    trace::Span span("jit", "jit");
    trace::Span lookup("synap cache lookup", "jit");
    auto start = Clock::now();
    // The SyNAP cache (path and capacity read now, at each JIT): a verified program compiled
    // from the same content and shapes replaces the compiler.
    const cache::SynapCacheLocation synapCache{props::SynapProperties::cacheFile(),
                                               props::SynapProperties::cacheCapacity(), props::deviceRoot()};
    const bool enabled = synapCache.capacity > 0;
    trace::Span hashing("synap cache key", "cache");
    // The cheap key first (ModelKey.h: the weights' files by identity), then the content key.
    const std::string alias = enabled ? compiledNetworkKey(fileDigest_, inputDims) : "";
    hashing.end();
    const bool profiling = props::SynapProperties::profile();
    cache::ProgramImage cachedProgram;
    // An injected read fault is a miss: the compiler runs.
    const bool readable = !enabled || !npuFault(props::faults::Point::CACHE_READ);
    std::string key;
    bool cached = false;
    if (readable && enabled && prefetch_ != nullptr) {
        // Looked up and loaded since prepare (Prefetch), under the key it would be looked up by now.
        const std::string prefetchedKey = !alias.empty()               ? alias
                                          : !modelDigest_.empty() ? compiledNetworkKey(modelDigest_, inputDims)
                                                                  : std::string();
        core_ = takePrefetched(synapCache, prefetchedKey, profiling);
        cached = core_ != nullptr;
        if (cached) key = prefetchedKey;
        lookup.arg("prefetched", cached ? 1 : 0);
    }
    // Not the JIT's to take: dropped. The thread itself is joined with this network (it may
    // still be starting the thread pool).
    if (prefetch_ != nullptr && !prefetch_->forked() && !cached) {
        prefetch_->pages.stop();
        (void)prefetch_->takeLoaded();
    }
    if (!cached) {
        cached = readable && cache::findCompiledProgram(synapCache, alias, kCompilerVersion, &cachedProgram);
        if (cached) key = alias;
    }
    if (!cached && enabled) {
        if (modelDigest_.empty()) {
            trace::Span digest("synap cache model digest", "cache");
            modelDigest_ = modelDigest(*model_, kCompilerVersion);
        }
        key = compiledNetworkKey(modelDigest_, inputDims);
        cached = readable && cache::findCompiledProgram(synapCache, key, kCompilerVersion, &cachedProgram);
        if (cached && !alias.empty()) cache::aliasCompiledProgram(synapCache, alias, key);
    }
    jitCost_.cacheUs = microsSince(start);
    lookup.arg("hit", cached ? 1 : 0).end();
    span.arg("profiling", profiling ? 1 : 0);
    if (cached && core_ != nullptr) {
        SYNAP_LOG(INFO) << "network " << key << " from the SyNAP cache (looked up and loaded since prepare)";
    } else if (cached) {
        trace::Span load("core load", "jit");
        start = Clock::now();
        Result<std::unique_ptr<NpuCore>> loaded = NpuCore::load(std::move(cachedProgram), profiling);
        jitCost_.loadUs = microsSince(start);
        if (loaded.isOk()) core_ = std::move(loaded).value();
        load.arg("mapped", core_ != nullptr && core_->programMapped() ? 1 : 0).end();
        if (core_ != nullptr) {
            SYNAP_LOG(INFO) << "network " << key << " from the SyNAP cache";
        } else {
            cache::dropCompiledProgram(synapCache, key, loaded.message());
            if (key == alias) {  // the compiled program is stored under the content key
                if (modelDigest_.empty()) modelDigest_ = modelDigest(*model_, kCompilerVersion);
                key = compiledNetworkKey(modelDigest_, inputDims);
            }
        }
    }
    if (core_ == nullptr) {
        // The constants the claim left unread (NonFinite.h), before anything is stored: a cached
        // program vouches that the constants it was compiled from are finite.
        nonFiniteConstants_ = anyNonFiniteConstant(*model_);
        if (nonFiniteConstants_) {
            SYNAP_LOG(INFO) << "the network's constants hold NaN or an infinity: it runs on the reference kernels "
                               "and is not cached";
        }
        trace::Span lowering("lowering", "jit");
        start = Clock::now();
        cache::cacheCounters().compiles++;
        Result<std::vector<uint8_t>> program = compileWithinMemory(*model_, inputDims);
        if (!program.isOk()) {
            SYNAP_LOG(ERROR) << "compilation failed: " << program.message();
            return false;
        }
        jitCost_.loweringUs = microsSince(start);
        lowering.arg("program bytes", program->size()).end();
        trace::Span load("core load", "jit");
        start = Clock::now();
        Result<std::unique_ptr<NpuCore>> loaded = NpuCore::load(std::move(program).value(), profiling);
        if (!loaded.isOk()) {
            SYNAP_LOG(ERROR) << loaded.message();
            return false;
        }
        core_ = std::move(loaded).value();
        jitCost_.loadUs = microsSince(start);
        load.arg("layers", core_->layerCount()).end();
        trace::Span store("synap cache store", "jit");
        start = Clock::now();
        if (!nonFiniteConstants_ && (synapCache.capacity == 0 || !npuFault(props::faults::Point::CACHE_WRITE))) {
            cache::storeCompiledProgram(synapCache, key, core_->programBytes(), kCompilerVersion);
            if (!alias.empty()) cache::aliasCompiledProgram(synapCache, alias, key);
        }
        jitCost_.cacheUs += microsSince(start);
    }
    if (modelCacheFd_ >= 0) {
        trace::Span write("nnapi cache write", "jit");
        start = Clock::now();
        // Best effort: a failure leaves a file the next prepareModelFromCache refuses, or one that
        // another process runs from untouched.
        cache::ModelCacheSeal seal;
        if (nonFiniteConstants_ || npuFault(props::faults::Point::CACHE_WRITE)) {
            // Nothing to vouch for, or an injected write fault: the file stays empty, which the
            // next prepareModelFromCache refuses.
        } else if (const Status written = cache::writeModelCacheFile(modelCacheFd_, cacheToken_, kCompilerVersion,
                                                                     core_->programBytes(), &seal);
                   written) {
            cache::cacheCounters().modelCacheWrites++;
            // Written whole by this process: its next prepare-from-cache need not checksum it.
            cache::recordModelCacheSeal(props::SynapProperties::cacheFile(), props::deviceRoot(), seal);
        } else {
            SYNAP_LOG(WARNING) << "cannot write the NNAPI model cache file: " << written.message();
        }
        close(modelCacheFd_);
        modelCacheFd_ = -1;
        jitCost_.cacheUs += microsSince(start);
    }
    return true;
}

namespace {

std::mutex& registryMutex() {
    static std::mutex mutex;
    return mutex;
}

std::vector<const PreparedNetwork*>& registry() {
    static std::vector<const PreparedNetwork*> networks;
    return networks;
}

// The NNAPI type of a network input or output of a cached program.
hal::OperandType operandTypeOf(npu::DataType type) {
    switch (type) {
        case npu::DataType::QUINT8: return hal::OperandType::TENSOR_QUANT8_ASYMM;
        case npu::DataType::QINT8: return hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
        case npu::DataType::QINT32:
        case npu::DataType::INT32: return hal::OperandType::TENSOR_INT32;
        case npu::DataType::FLOAT16: return hal::OperandType::TENSOR_FLOAT16;
        default: return hal::OperandType::TENSOR_FLOAT32;
    }
}

}  // namespace

std::vector<const PreparedNetwork*> livePreparedNetworks() {
    std::lock_guard<std::mutex> lock(registryMutex());
    return registry();
}

PreparedNetwork::PreparedNetwork(std::shared_ptr<const hal::Model> model) : model_(std::move(model)) {
    // The SyNAP cache key's model part belongs to preparing the model, not to its first
    // inference; a model rebuilt from a cached program needs none. Weights in files stand by
    // their files' identity (the content digest is then computed only when that key misses).
    if (!model_->operations.empty() && props::SynapProperties::cacheCapacity() > 0) {
        trace::Span identity("synap cache file identity", "compilation");
        fileDigest_ = fileIdentityDigest(*model_, kCompilerVersion);
        identity.end();
        if (fileDigest_.empty()) {
            trace::Span hashing("synap cache model digest", "compilation");
            modelDigest_ = modelDigest(*model_, kCompilerVersion);
        }
        startPrefetch();
    }
    std::lock_guard<std::mutex> lock(registryMutex());
    registry().push_back(this);
}

PreparedNetwork::~PreparedNetwork() {
    {
        std::lock_guard<std::mutex> lock(registryMutex());
        std::erase(registry(), this);
    }
    if (prefetch_ != nullptr) {
        if (prefetch_->forked()) {
            (void)prefetch_.release();  // the parent's thread and core: not this process's to free
        } else {
            prefetch_->pages.stop();
            prefetch_->join();
        }
    }
    if (warmup_ != nullptr) {
        if (warmup_->thread.forked()) {
            (void)warmup_.release();  // the parent's thread: not this process's to join
        } else {
            warmup_->pages.stop();
            warmup_->thread.join();
        }
    }
    if (modelCacheFd_ >= 0) close(modelCacheFd_);
}

void PreparedNetwork::saveProgramTo(int modelCacheFd, const hal::CacheToken& token) {
    if (modelCacheFd_ >= 0) close(modelCacheFd_);
    // The runtime closes its fds when prepareModel returns.
    modelCacheFd_ = fcntl(modelCacheFd, F_DUPFD_CLOEXEC, 0);
    cacheToken_ = token;
    if (modelCacheFd_ < 0) SYNAP_LOG(WARNING) << "cannot keep the NNAPI model cache file: " << strerror(errno);
}

Result<std::shared_ptr<PreparedNetwork>> PreparedNetwork::fromCachedProgram(cache::ProgramImage program) {
    trace::Span span("core load", "jit");
    span.arg("from", "nnapi cache");
    NNEMU_ASSIGN_OR_RETURN(std::unique_ptr<NpuCore> core, NpuCore::load(std::move(program), props::SynapProperties::profile()));
    core->prepareCallingThread();  // most often the thread of the first inference too
    // The program's inputs and outputs stand in for the model the network was compiled from.
    const npu::Program* loaded = npu::GetProgram(core->programBytes().data());
    hal::Model model;
    model.inputIndexes.assign(loaded->input_count(), UINT32_MAX);
    model.outputIndexes.assign(loaded->output_count(), UINT32_MAX);
    for (const npu::Tensor* tensor : *loaded->tensors()) {
        const bool input = tensor->input_index() >= 0 && static_cast<uint32_t>(tensor->input_index()) < loaded->input_count();
        const bool output = tensor->output_index() >= 0 && static_cast<uint32_t>(tensor->output_index()) < loaded->output_count();
        if (!input && !output) continue;
        hal::Operand operand;
        operand.type = operandTypeOf(tensor->type());
        if (tensor->dims() != nullptr) operand.dimensions.assign(tensor->dims()->begin(), tensor->dims()->end());
        operand.scale = tensor->scale();
        operand.zeroPoint = tensor->zero_point();
        const auto index = static_cast<uint32_t>(model.operands.size());
        if (input) model.inputIndexes[tensor->input_index()] = index;
        if (output) model.outputIndexes[tensor->output_index()] = index;
        model.operands.push_back(std::move(operand));
    }
    for (const auto* list : {&model.inputIndexes, &model.outputIndexes}) {
        for (uint32_t index : *list) {
            if (index == UINT32_MAX) return Status(StatusCode::DAMAGED, "the cached program lacks one of its inputs or outputs");
        }
    }
    auto network = std::make_shared<PreparedNetwork>(std::make_shared<const hal::Model>(std::move(model)));
    // Listed in the statistics files now, when it is loaded, rather than by its first inference
    // (~30 us of a warm process's first inference, BENCHMARKS.md "First inference from the NNAPI cache").
    network->statistics_ = listedNetwork(*core);
    network->startWarmup(*core);
    network->preloaded_ = std::move(core);
    return network;
}

std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> PreparedNetwork::executeSynchronously(
        const hal::Request& request, hal::MeasureTiming measure) {
    return execute(request, measure, std::nullopt);
}

std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> PreparedNetwork::execute(
        const hal::Request& request, hal::MeasureTiming measure, const hal::Deadline& deadline) {
    const auto start = Clock::now();
    if (dead_.load(std::memory_order_relaxed)) [[unlikely]] {
        SYNAP_LOG(ERROR) << "the NPU died under this compilation (DEAD_OBJECT): it runs nothing more";
        return {ErrorStatus::DEAD_OBJECT, {}, {}};
    }
    if (hal::deadlinePassed(deadline)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, {}, {}};
    if (request.inputs.size() != model_->inputIndexes.size() || request.outputs.size() != model_->outputIndexes.size()) {
        return {ErrorStatus::INVALID_ARGUMENT, {}, {}};
    }
    std::vector<std::vector<uint32_t>> inputDims;
    std::vector<const uint8_t*> inputs;
    bool nonFinite = false;
    for (size_t i = 0; i < request.inputs.size(); ++i) {
        const auto& argument = request.inputs[i];
        const hal::Operand& operand = model_->operands[model_->inputIndexes[i]];
        const auto& dims = argument.dimensions.empty() ? operand.dimensions : argument.dimensions;
        const uint8_t* data = argumentData(request, argument);
        if (data == nullptr || hal::byteSize(operand.type, dims) != argument.location.length) {
            SYNAP_LOG(ERROR) << "input " << i << " is omitted or does not match its shape";
            return {ErrorStatus::INVALID_ARGUMENT, {}, {}};
        }
        inputDims.push_back(dims);
        inputs.push_back(data);
        nonFinite = nonFinite || holdsNonFinite(operand.type, data, argument.location.length);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (core_ == nullptr && preloaded_ == nullptr) {
        if (auto fault = npuFault(props::faults::Point::JIT)) return failed(*fault);
    }
    if (!ensureCompiled(inputDims)) return {ErrorStatus::GENERAL_FAILURE, {}, {}};
    if (hal::deadlinePassed(deadline)) return {ErrorStatus::MISSED_DEADLINE_TRANSIENT, {}, {}};
    if (core_->inputCount() != inputs.size()) return {ErrorStatus::GENERAL_FAILURE, {}, {}};
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (core_->inputBytes(i) > request.inputs[i].location.length) {
            SYNAP_LOG(ERROR) << "input " << i << " is smaller than the network's";
            return {ErrorStatus::INVALID_ARGUMENT, {}, {}};
        }
    }
    // The injected faults fail before the NPU runs anything (the statistics count nothing); a
    // delay is the NPU's time.
    const auto deviceStart = Clock::now();
    if (props::faults::armed()) [[unlikely]] {
        if (auto fault = executionFault(request)) return failed(*fault, request);
    }
    if (nonFinite || nonFiniteConstants_) return executeOnReferenceKernels(request, measure, start);

    std::vector<hal::OutputShape> shapes;
    std::vector<uint8_t*> outputs;
    bool sufficient = true;
    for (size_t i = 0; i < request.outputs.size(); ++i) {
        const auto& argument = request.outputs[i];
        const bool fits = core_->outputBytes(i) <= argument.location.length;
        shapes.push_back({core_->outputDims(i), fits});
        sufficient = sufficient && fits;
        outputs.push_back(argumentData(request, argument));
        if (outputs.back() == nullptr && fits) {
            SYNAP_LOG(ERROR) << "output " << i << " is omitted or lies outside its memory";
            return {ErrorStatus::INVALID_ARGUMENT, {}, {}};
        }
    }
    if (!sufficient) return {ErrorStatus::OUTPUT_INSUFFICIENT_SIZE, shapes, {}};
    trace::Span run("npu run", "npu");
    const Status ran = core_->run(inputs, outputs, deadline);
    run.arg("layers", core_->layerCount()).arg("pooled", core_->lastRunPooled() ? 1 : 0).end();
    trace::Span statistics("statistics", "npu");
    // Like the board's kernel, failed runs count too.
    statistics_->recordInference(microsSince(deviceStart));
    statistics.end();
    if (!ran) {
        SYNAP_LOG(ERROR) << ran.message();
        if (hal::deadlinePassed(deadline)) return {ErrorStatus::MISSED_DEADLINE_TRANSIENT, {}, {}};
        return {ErrorStatus::GENERAL_FAILURE, {}, {}};
    }
    if (core_->profiling()) statistics_->recordProfile(core_->lastProfile());
    hal::Timing timing;
    if (measure == hal::MeasureTiming::YES) {
        timing.timeOnDevice = microsSince(deviceStart);
        timing.timeInDriver = microsSince(start);
    }
    return {ErrorStatus::NONE, shapes, timing};
}

std::optional<ErrorStatus> PreparedNetwork::executionFault(const hal::Request& request) {
    if (request.fenced) {
        if (auto fault = npuFault(props::faults::Point::FENCE)) return fault;
    }
    std::optional<ErrorStatus> fault = npuFault(props::faults::Point::EXECUTE);
    if (fault == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE && unknownSizeOutputs(request).empty()) {
        SYNAP_LOG(WARNING) << "OUTPUT_INSUFFICIENT_SIZE not injected: every output of this execution has a known size";
        return std::nullopt;
    }
    return fault;
}

std::vector<size_t> PreparedNetwork::unknownSizeOutputs(const hal::Request& request) const {
    std::vector<size_t> unknown;
    for (size_t i = 0; i < request.outputs.size() && i < model_->outputIndexes.size(); ++i) {
        const hal::Operand& operand = model_->operands[model_->outputIndexes[i]];
        const auto& dims = request.outputs[i].dimensions.empty() ? operand.dimensions : request.outputs[i].dimensions;
        if (!hal::isFullySpecified(operand.type, dims)) unknown.push_back(i);
    }
    return unknown;
}

// An injected failure: DEAD_OBJECT stays for every later use of this compilation; an output of
// unknown size is reported too small, with the shape the network gives it.
std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> PreparedNetwork::failed(
        ErrorStatus status, const hal::Request& request) {
    if (status == ErrorStatus::DEAD_OBJECT) dead_.store(true, std::memory_order_relaxed);
    if (status != ErrorStatus::OUTPUT_INSUFFICIENT_SIZE || core_ == nullptr) return {status, {}, {}};
    std::vector<hal::OutputShape> shapes;
    for (size_t i = 0; i < core_->outputCount(); ++i) shapes.push_back({core_->outputDims(i), true});
    for (size_t i : unknownSizeOutputs(request)) {
        if (i < shapes.size()) shapes[i].isSufficient = false;
    }
    return {status, std::move(shapes), {}};
}

// The core's float layers would turn NaN into clamp bounds; the reference kernels define what
// NaN and infinities give (NonFinite.h). The inference still is one of this network's.
std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> PreparedNetwork::executeOnReferenceKernels(
        const hal::Request& request, hal::MeasureTiming measure, std::chrono::steady_clock::time_point start) {
    if (model_->operations.empty()) {
        SYNAP_LOG(ERROR) << "a network loaded from the NNAPI model cache cannot take NaN or infinite inputs";
        return {ErrorStatus::GENERAL_FAILURE, {}, {}};
    }
    SYNAP_LOG(VERBOSE) << "NaN or infinite inputs or constants; running this inference on the reference kernels";
    if (reference_ == nullptr) {
        // The reference device through the HAL, as the runtime sees it: synap-npu does not call
        // into driver/cpu.
        std::shared_ptr<hal::IDevice> device;
        for (const auto& registered : hal::registeredDevices()) {
            if (registered->getName() == "nnapi-reference") device = registered;
        }
        if (device == nullptr) {
            SYNAP_LOG(ERROR) << "no nnapi-reference device to run NaN or infinite inputs on";
            return {ErrorStatus::GENERAL_FAILURE, {}, {}};
        }
        auto [prepared, preparedModel] =
                device->prepareModel(*model_, hal::ExecutionPreference::FAST_SINGLE_ANSWER, {}, {}, {});
        if (prepared != ErrorStatus::NONE || preparedModel == nullptr) {
            SYNAP_LOG(ERROR) << "nnapi-reference cannot prepare this network";
            return {ErrorStatus::GENERAL_FAILURE, {}, {}};
        }
        reference_ = std::move(preparedModel);
    }
    const auto deviceStart = Clock::now();
    auto [status, shapes, unmeasured] = reference_->execute(request, hal::MeasureTiming::NO, std::nullopt);
    (void)unmeasured;
    statistics_->recordInference(microsSince(deviceStart));
    hal::Timing timing;
    if (status == ErrorStatus::NONE && measure == hal::MeasureTiming::YES) {
        timing.timeOnDevice = microsSince(deviceStart);
        timing.timeInDriver = microsSince(start);
    }
    return {status, std::move(shapes), timing};
}

}  // namespace nnemu::synap
