// Steady-state latency of generated MobileNets on synap-npu, as a ratio to the same NPU program run
// directly on XNNPACK (NpuCore, no NNAPI runtime in between) and to nnapi-reference, plus the
// first inference split into lowering, core load (XNNPACK runtime creation and weight packing)
// and first run; the statistics bookkeeping one NPU execution adds and what an execution costs
// besides its NPU run (ExecutionOverhead/, on a small MobileNet). Threads/ compares the
// core's default threading with one thread, inference by inference, idle and under load (a busy
// loop on every core this process may use, in child processes the benchmark starts and stops).
// CoreLoad/ times NpuCore::load alone, the program mapped from a file as a SyNAP cache hit maps it.
//
//   build/bin/nnemu_bench_npu [--benchmark_filter=...]   (leave NNEMU_NPU_THREADS unset for Threads/)
#include <benchmark/benchmark.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "BenchNetworks.h"
#include "core/NpuCore.h"
#include "device/PreparedNetwork.h"
#include "Statistics.h"
#include "StatisticsView.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"

namespace nnemu {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t microsSince(Clock::time_point start) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

std::unique_ptr<tflite::Interpreter> interpreterOn(const tflite::Model& model, const char* device) {
    tflite::DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = device;
    Result<std::unique_ptr<tflite::Interpreter>> interpreter = tflite::Interpreter::create(model, options);
    if (!interpreter) {
        std::fprintf(stderr, "%s: %s\n", device, interpreter.message().c_str());
        return nullptr;
    }
    return std::move(interpreter).value();
}

// One generated network, set up once per process: on synap-npu (JIT done, its cost recorded),
// on nnapi-reference, and its NPU program loaded again directly into a core of its own.
struct Network {
    std::unique_ptr<tflite::Model> model;
    std::unique_ptr<tflite::Interpreter> npu;
    std::unique_ptr<tflite::Interpreter> reference;
    std::unique_ptr<synap::NpuCore> direct;
    std::unique_ptr<synap::NpuCore> oneThread;  // the same program, kept on the calling thread (Threads/)
    bench::CoreBuffers buffers;
    synap::JitCost jit;
    uint64_t firstInferenceUs = 0, directLoadUs = 0, directFirstRunUs = 0;
};

// A failure without a message: the reason is already on stderr, or there is none to give.
Status setUp(const std::string& name, Network& created) {
    std::vector<uint8_t> bytes;
    NNEMU_RETURN_IF_ERROR(modelgen::generateModel(name, &bytes));
    NNEMU_ASSIGN_OR_RETURN(created.model, tflite::Model::fromBuffer(std::move(bytes)));
    created.npu = interpreterOn(*created.model, "synap-npu");
    created.reference = interpreterOn(*created.model, "nnapi-reference");
    if (!created.npu || !created.reference || created.npu->partitions().size() != 1) return opFailed("");
    const auto start = Clock::now();
    NNEMU_RETURN_IF_ERROR(created.npu->invoke());
    created.firstInferenceUs = microsSince(start);
    const auto prepared = synap::livePreparedNetworks();  // the one just compiled is the newest
    if (prepared.empty() || prepared.back()->core() == nullptr) return opFailed("");
    created.jit = prepared.back()->jitCost();
    const synap::NpuCore& core = *prepared.back()->core();
    const auto loadStart = Clock::now();
    const auto program = core.programBytes();
    auto loaded = synap::NpuCore::load(std::vector<uint8_t>(program.begin(), program.end()));
    created.directLoadUs = microsSince(loadStart);
    if (!loaded.isOk()) return loaded.status();
    created.direct = std::move(loaded).value();
    created.buffers = bench::CoreBuffers(core);
    const auto runStart = Clock::now();
    NNEMU_RETURN_IF_ERROR(created.direct->run(created.buffers.in, created.buffers.out));
    created.directFirstRunUs = microsSince(runStart);
    return {};
}

Network* network(const std::string& name) {
    return bench::networkOnce<Network>(name, [&](Network& created) { return setUp(name, created); });
}

// Inferences through one of the network's interpreters.
void Invokes(benchmark::State& state, const char* name, std::unique_ptr<tflite::Interpreter> Network::*interpreter) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    for (auto _ : state) {
        if (const Status ran = (net->*interpreter)->invoke(); !ran) return state.SkipWithError(ran.message().c_str());
    }
}

void SynapNpu(benchmark::State& state, const char* name) { Invokes(state, name, &Network::npu); }

void DirectXnnpack(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    const auto& in = net->buffers.in;
    const auto& out = net->buffers.out;
    for (auto _ : state) {
        if (const Status ran = net->direct->run(in, out); !ran) return state.SkipWithError(ran.message().c_str());
    }
}

// A busy loop on every core this process may run on, as child processes, for the object's life.
class BusyLoops {
public:
    BusyLoops() {
        cpu_set_t cores;
        CPU_ZERO(&cores);
        const int count = sched_getaffinity(0, sizeof cores, &cores) == 0 ? CPU_COUNT(&cores) : 1;
        for (int i = 0; i < count; ++i) {
            const pid_t pid = fork();
            if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the benchmark
                volatile uint64_t spin = 0;
                for (;;) spin = spin + 1;
            }
            if (pid > 0) children_.push_back(pid);
        }
    }
    ~BusyLoops() {
        for (pid_t pid : children_) kill(pid, SIGKILL);
        for (pid_t pid : children_) waitpid(pid, nullptr, 0);
    }

private:
    std::vector<pid_t> children_;
};

// A block of inferences on the default core then one on the one-thread core, alternately, so
// both see the same load; the counters give each side's mean and their ratio. Blocks, not single
// inferences: under load the scheduler's waits fall where the thread happens to give up the
// core (the default core's /proc sampling is such a place), which single alternating inferences
// would pin on one side.
constexpr int kThreadsBlock = 16;

void Threads(benchmark::State& state, const char* name, bool load) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    if (net->oneThread == nullptr) {
        const auto bytes = net->direct->programBytes();
        auto loaded = synap::NpuCore::load(std::vector<uint8_t>(bytes.begin(), bytes.end()), false, true);
        if (!loaded.isOk()) return state.SkipWithError(loaded.message().c_str());
        net->oneThread = std::move(loaded).value();
    }
    const auto& in = net->buffers.in;
    const auto& out = net->buffers.out;
    std::unique_ptr<BusyLoops> loops(load ? new BusyLoops() : nullptr);
    double defaultUs = 0, oneUs = 0;
    for (auto _ : state) {
        for (auto [core, total] : {std::pair{net->direct.get(), &defaultUs}, std::pair{net->oneThread.get(), &oneUs}}) {
            const auto start = Clock::now();
            for (int i = 0; i < kThreadsBlock; ++i) {
                if (const Status ran = core->run(in, out); !ran) return state.SkipWithError(ran.message().c_str());
            }
            *total += static_cast<double>(microsSince(start));
        }
    }
    // Both give the same bytes (with NNEMU_NPU_THREADS=2 the default core always takes the pool).
    if (const Status ran = net->direct->run(in, out); !ran) return state.SkipWithError(ran.message().c_str());
    const auto pooledOutputs = net->buffers.outputs;
    if (const Status ran = net->oneThread->run(in, out); !ran) return state.SkipWithError(ran.message().c_str());
    if (pooledOutputs != net->buffers.outputs) return state.SkipWithError("the outputs differ from one thread's");
    const double n = static_cast<double>(state.iterations()) * kThreadsBlock;
    state.counters["default_us"] = defaultUs / n;
    state.counters["one_thread_us"] = oneUs / n;
    state.counters["default_vs_one"] = oneUs > 0 ? defaultUs / oneUs : 0;
}

// How the default core's pooled inferences cut their work (ThreadTimes.h), from CPU times, which
// the machine's load leaves alone: per inference, the work (every thread's CPU time in the
// stages' tasks, and the calling thread's in stages it runs alone), its critical path (per stage
// the busiest thread), the best a cut into these tasks allows (per stage the longest task or half
// the stage's work, whichever is more), half the work, and the share of the work in stages one
// thread runs (and in XNNPACK's stages). With NNEMU_BENCH_LAYER_ROWS=1 it prints the stages. Run with NNEMU_NPU_THREADS=2
// to time the pool whatever the load; `pooled` says how many inferences took it.
void ThreadCut(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    const auto& in = net->buffers.in;
    const auto& out = net->buffers.out;
    auto loaded = synap::NpuCore::load(std::vector<uint8_t>(net->direct->programBytes().begin(),
                                                            net->direct->programBytes().end()));
    if (!loaded.isOk()) return state.SkipWithError(loaded.message().c_str());
    synap::NpuCore& core = *loaded.value();
    // XNNPACK stages hide their tasks: their work is the one-thread core's CPU time in them, and
    // XNNPACK is taken to cut it perfectly (critical path half of it).
    auto alone = synap::NpuCore::load(std::vector<uint8_t>(net->direct->programBytes().begin(),
                                                           net->direct->programBytes().end()), false, true);
    if (!alone.isOk()) return state.SkipWithError(alone.message().c_str());
    synap::setThreadTimesOn(true);
    for (auto _ : state) {
        for (synap::NpuCore* c : {&core, alone.value().get()}) {
            if (const Status ran = c->run(in, out); !ran) return state.SkipWithError(ran.message().c_str());
        }
    }
    synap::setThreadTimesOn(false);
    const double runs = static_cast<double>(core.runCount());
    double work = 0, critical = 0, bound = 0, oneThread = 0, xnnpack = 0;
    const bool rows = std::getenv("NNEMU_BENCH_LAYER_ROWS") != nullptr;
    const auto& times = core.stageThreadTimes();
    for (size_t s = 0; s < times.size(); ++s) {
        const synap::StageThreadTimes& t = times[s];
        double stageWork = 0, busiest = 0;
        for (uint64_t ns : t.taskNs) {
            stageWork += static_cast<double>(ns);
            busiest = std::max(busiest, static_cast<double>(ns));
        }
        const bool parallel = t.parallelCalls > 0, byXnnpack = core.stageName(s).rfind("xnnpack:", 0) == 0;
        double best = std::max(static_cast<double>(t.longestTaskNs), stageWork / 2);
        if (byXnnpack) {
            stageWork = static_cast<double>(alone.value()->stageThreadTimes()[s].callerNs);
            busiest = best = stageWork / 2;
            xnnpack += stageWork;
        } else if (!parallel) {
            stageWork = busiest = best = static_cast<double>(t.callerNs);
            oneThread += stageWork;
        }
        work += stageWork;
        critical += busiest;
        bound += best;
        if (rows) {
            std::printf("  stage %3zu %-50s one thread %7.1f us  pooled: work %7.1f  busiest %7.1f  bound %7.1f  "
                        "calls %4.1f tasks %5.1f\n",
                        s, core.stageName(s).c_str(),
                        static_cast<double>(alone.value()->stageThreadTimes()[s].callerNs) / runs / 1e3,
                        stageWork / runs / 1e3, busiest / runs / 1e3, best / runs / 1e3,
                        static_cast<double>(t.parallelCalls) / runs, static_cast<double>(t.tasks) / runs);
        }
    }
    state.counters["xnnpack_share"] = work > 0 ? xnnpack / work : 0;
    double oneThreadWork = 0;  // the one-thread core's, the same inferences interleaved
    for (const auto& t : alone.value()->stageThreadTimes()) oneThreadWork += static_cast<double>(t.callerNs);
    state.counters["one_thread_work_us"] = oneThreadWork / runs / 1e3;
    state.counters["critical_vs_one"] = oneThreadWork > 0 ? critical / oneThreadWork : 0;
    state.counters["pooled"] = static_cast<double>(core.pooledRunCount()) / runs;
    state.counters["work_us"] = work / runs / 1e3;
    state.counters["critical_us"] = critical / runs / 1e3;
    state.counters["cut_bound_us"] = bound / runs / 1e3;
    state.counters["half_work_us"] = work / 2 / runs / 1e3;
    state.counters["alone_share"] = work > 0 ? oneThread / work : 0;
    double calls = 0;
    for (const auto& t : times) calls += static_cast<double>(t.parallelCalls);
    state.counters["barriers"] = calls / runs;
    state.counters["arena_kib"] = static_cast<double>(core.arenaBytes()) / 1024;
}

void Reference(benchmark::State& state, const char* name) { Invokes(state, name, &Network::reference); }

// Reports, as counters, where the first synap-npu inference of the network went.
void FirstInference(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    for (auto _ : state) benchmark::DoNotOptimize(net);
    state.counters["first_inference_us"] = static_cast<double>(net->firstInferenceUs);
    state.counters["lowering_us"] = static_cast<double>(net->jit.loweringUs);
    state.counters["core_load_us"] = static_cast<double>(net->jit.loadUs);
    state.counters["direct_load_us"] = static_cast<double>(net->directLoadUs);
    state.counters["direct_first_run_us"] = static_cast<double>(net->directFirstRunUs);
}

// NpuCore::load of the network's program, one thread, as a warm process loads a SyNAP cache hit:
// the program mapped (populated) from a file before the clock starts, the load alone timed (its
// checks, the own layers' tables, the arena's planning and pages).
void CoreLoad(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    const auto bytes = net->direct->programBytes();
    char path[] = "/tmp/nnemu-core-load-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return state.SkipWithError("cannot create the program file");
    unlink(path);
    const bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    for (auto _ : state) {
        if (!written) break;
        Result<cache::ProgramImage> image = cache::ProgramImage::map(fd, bytes.size(), 0, bytes.size());
        if (!image.isOk()) break;
        const auto start = Clock::now();
        auto loaded = synap::NpuCore::load(std::move(image).value(), false, true);
        state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
        if (!loaded.isOk()) {
            state.SkipWithError(loaded.message().c_str());
            break;
        }
    }
    close(fd);
    if (!written) state.SkipWithError("cannot write the program file");
}

// What one NPU execution adds for the statistics files: the locked update and the rewrite of
// inference_count, inference_time, networks and network_profile.
uint64_t statisticsNumber(const char* file) {
    std::ifstream in(synap::statisticsDir() + "/" + file);
    uint64_t value = 0;
    in >> value;
    return value;
}

// What an execution on synap-npu costs besides its NPU run (the runtime, the copies in and out,
// the statistics): the loop's wall time less the NPU time the statistics count for its
// executions, per execution. Needs a device root no other process executes on.
void ExecutionOverhead(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    const uint64_t count = statisticsNumber("inference_count"), npuUs = statisticsNumber("inference_time");
    const auto start = Clock::now();
    for (auto _ : state) {
        if (const Status ran = net->npu->invoke(); !ran) return state.SkipWithError(ran.message().c_str());
    }
    const double wallUs = static_cast<double>(microsSince(start));
    const double runs = static_cast<double>(statisticsNumber("inference_count") - count);
    const double npu = static_cast<double>(statisticsNumber("inference_time") - npuUs);
    if (runs != static_cast<double>(state.iterations())) return state.SkipWithError("another process counted executions");
    state.counters["npu_us"] = npu / runs;
    state.counters["outside_npu_us"] = (wallUs - npu) / runs;
}

void StatisticsBookkeeping(benchmark::State& state) {
    synap::NetworkStatistics statistics(2, 151529, 31, false);
    for (auto _ : state) statistics.recordInference(1800);
}

constexpr const char* kNetworks[] = {"mobilenet_v1_1.0_224_quant", "mobilenet_v1_1.0_224_float",
                                     "mobilenet_v1_0.25_224_quant", "mobilenet_v1_0.25_224_float"};
// Threads/ also runs the int8 MobileNets v2 (per-channel and full int8), whose layers are mostly
// the own kernels'.
constexpr const char* kInt8Networks[] = {"mobilenet_v2_1.0_224_int8", "mobilenet_v2_1.0_224_full_int8"};

void registerAll() {
    for (const char* name : kNetworks) {
        benchmark::RegisterBenchmark((std::string("FirstInference/") + name).c_str(), FirstInference, name)
                ->Iterations(1);
        benchmark::RegisterBenchmark((std::string("SynapNpu/") + name).c_str(), SynapNpu, name)
                ->Unit(benchmark::kMicrosecond)->MinTime(2.0);
        benchmark::RegisterBenchmark((std::string("DirectXnnpack/") + name).c_str(), DirectXnnpack, name)
                ->Unit(benchmark::kMicrosecond)->MinTime(2.0);
        benchmark::RegisterBenchmark((std::string("Reference/") + name).c_str(), Reference, name)
                ->Unit(benchmark::kMillisecond)->Iterations(2);
    }
    for (const char* name : {"mobilenet_v2_1.0_224_quant", "mobilenet_v2_1.0_224_int8", "mobilenet_v2_1.0_224_full_int8",
                             "mobilenet_v1_1.0_224_int8", "mobilenet_v1_1.0_224_quant"}) {
        benchmark::RegisterBenchmark((std::string("CoreLoad/") + name).c_str(), CoreLoad, name)
                ->Unit(benchmark::kMicrosecond)->UseManualTime()->MinTime(1.0);
    }
    benchmark::RegisterBenchmark("StatisticsBookkeeping", StatisticsBookkeeping)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("ExecutionOverhead/mobilenet_v1_0.25_128_quant", ExecutionOverhead,
                                 "mobilenet_v1_0.25_128_quant")
            ->Unit(benchmark::kMicrosecond);
    std::vector<const char*> threadNetworks(std::begin(kNetworks), std::end(kNetworks));
    threadNetworks.insert(threadNetworks.end(), std::begin(kInt8Networks), std::end(kInt8Networks));
    for (const char* name : {"mobilenet_v1_1.0_224_int8", "mobilenet_v2_1.0_224_float"}) threadNetworks.push_back(name);
    for (const char* name : threadNetworks) {
        benchmark::RegisterBenchmark((std::string("ThreadCut/") + name).c_str(), ThreadCut, name)
                ->Unit(benchmark::kMicrosecond)->Iterations(200);
        for (const bool load : {false, true}) {
            const std::string label = std::string("Threads/") + (load ? "load/" : "idle/") + name;
            benchmark::RegisterBenchmark(label.c_str(), Threads, name, load)->Unit(benchmark::kMicrosecond)->MinTime(3.0);
        }
    }
}

// Prints each network's ratios from this run's own measurements.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const auto& run : runs) {
            if (run.error_occurred) continue;
            times_[run.run_name.function_name] = run.GetAdjustedRealTime() * unitToMicros(run.time_unit);
            const auto defaultUs = run.counters.find("default_us"), oneUs = run.counters.find("one_thread_us");
            if (defaultUs != run.counters.end() && oneUs != run.counters.end()) {
                threadRatios_[run.run_name.function_name] = {defaultUs->second.value, oneUs->second.value};
            }
        }
        ConsoleReporter::ReportRuns(runs);
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        std::printf("\nratios (same run):\n");
        for (const char* name : kNetworks) {
            const double npu = times_[std::string("SynapNpu/") + name];
            const double direct = times_[std::string("DirectXnnpack/") + name];
            const double reference = times_[std::string("Reference/") + name];
            if (npu > 0 && direct > 0 && reference > 0) {
                std::printf("  %-30s synap-npu %9.1f us = %.3f x direct XNNPACK (%.1f us), %.4f x nnapi-reference (%.0f us)\n",
                            name, npu, npu / direct, direct, npu / reference, reference);
            }
        }
        for (const auto& [label, ratio] : threadRatios_) {
            std::printf("  %-46s default %9.1f us = %.3f x one thread (%.1f us)\n", label.c_str(), ratio.first,
                        ratio.second > 0 ? ratio.first / ratio.second : 0.0, ratio.second);
        }
        const double bookkeeping = times_["StatisticsBookkeeping"];
        const double small = times_["SynapNpu/mobilenet_v1_0.25_224_quant"];
        if (bookkeeping > 0 && small > 0) {
            std::printf("  statistics bookkeeping %.2f us per NPU execution = %.2f%% of a mobilenet_v1_0.25_224_quant inference\n",
                        bookkeeping, 100.0 * bookkeeping / small);
        }
    }

private:
    static double unitToMicros(benchmark::TimeUnit unit) {
        switch (unit) {
            case benchmark::kNanosecond: return 1e-3;
            case benchmark::kMillisecond: return 1e3;
            case benchmark::kSecond: return 1e6;
            default: return 1.0;
        }
    }
    std::map<std::string, double> times_;
    std::map<std::string, std::pair<double, double>> threadRatios_;  // default, one thread (us)
};

}  // namespace
}  // namespace nnemu

int main(int argc, char** argv) {
    // A device root of its own, and no SyNAP cache: every first inference is a cold JIT.
    char pattern[] = "/tmp/nnemu-bench-XXXXXX";
    const std::string root = mkdtemp(pattern);
    setenv("NNEMU_ROOT", root.c_str(), 1);
    setenv("SYNAP_CACHE_CAPACITY", "0", 1);
    benchmark::Initialize(&argc, argv);
    nnemu::registerAll();
    nnemu::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    std::filesystem::remove_all(root);
    return 0;
}
