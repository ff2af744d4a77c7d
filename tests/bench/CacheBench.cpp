// nnemu_bench_cache: what the compilation caches do for the first inference.
//
// FirstInference/<model>/<start>: a new interpreter (TFLite loader, NNAPI delegate on
// synap-npu) and its first inference, started
//   cold       - empty SyNAP cache (a new file each iteration), no NNAPI cache;
//   warm_synap - the SyNAP cache holds the program (from a priming run), no NNAPI cache;
//   warm_nnapi - vendor.npu.cache.model=1 and the NNAPI cache files written by a priming run.
// Counters, medians over iterations: init_ms (interpreter creation: Compilation_finish, where
// an NNAPI cache hit loads the program), first_ms, steady_ms (median of the following
// inferences on the same interpreter) and first_vs_steady = first_ms / steady_ms, the ratio
// BENCHMARKS.md reports; the same in the calling thread's CPU time (*_cpu), which other
// processes on the machine do not disturb. The iteration time is first_ms.
//
// SynapCacheLookup/entries:N/program_kib:K: SyNAP cache find() (index lookup, reassembly,
// checksum, hit update) in a cache of N entries, one of which has a K KiB program;
// vs_100_entries is the ratio to the same lookup in a cache of 100 entries, measured in this run.
//
// Digest/md5|sha256: the digests the caches key and name their contents with (libmd), on 8 MiB;
// bytes_per_second is the throughput.
//
// Everything runs in a temporary device root ($NNEMU_ROOT), removed at exit.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "nnemu/base/Digest.h"
#include "nnemu/synap/cache/SynapCache.h"
#include "nnemu/props/Properties.h"

#ifdef NNEMU_BENCH_HAVE_MOBILENETS
#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"
#endif

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The benchmark's own device root, so it neither sees nor touches the user's caches.
const std::string& benchRoot() {
    // Never destroyed, so the exit handler that removes it can still read it.
    static const std::string* root = [] {
        char pattern[] = "/tmp/nnemu-bench-cache-XXXXXX";
        const char* made = mkdtemp(pattern);
        if (made == nullptr) {
            std::perror("nnemu_bench_cache: mkdtemp");
            std::exit(1);
        }
        setenv("NNEMU_ROOT", made, 1);
        unsetenv("SYNAP_CACHE_PATH");
        unsetenv("SYNAP_CACHE_CAPACITY");
        return new std::string(made);
    }();
    static const bool cleanup = [] {
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(*root, ec);
        });
        return true;
    }();
    (void)cleanup;
    return *root;
}

void setProperty(const char* name, const char* value) {
    if (const nnemu::Status set = nnemu::props::set(name, value); !set) {
        std::fprintf(stderr, "nnemu_bench_cache: setprop %s: %s\n", name, set.message().c_str());
        std::exit(1);
    }
}

#ifdef NNEMU_BENCH_HAVE_MOBILENETS

using nnemu::tflite::DelegateOptions;
using nnemu::tflite::Interpreter;

enum class Start { COLD, WARM_SYNAP, WARM_NNAPI };

const nnemu::tflite::Model& generatedModel(const std::string& name) {
    static std::map<std::string, std::unique_ptr<nnemu::tflite::Model>> models;
    auto& model = models[name];
    if (model == nullptr) {
        std::vector<uint8_t> bytes;
        const nnemu::Status generated = nnemu::modelgen::generateModel(name, &bytes);
        nnemu::Result<std::unique_ptr<nnemu::tflite::Model>> loaded =
                generated ? nnemu::tflite::Model::fromBuffer(std::move(bytes)) : generated;
        if (!loaded) {
            std::fprintf(stderr, "nnemu_bench_cache: %s: %s\n", name.c_str(), loaded.message().c_str());
            std::exit(1);
        }
        model = std::move(loaded).value();
    }
    return *model;
}

// Time spent by the calling thread. With NNEMU_NPU_THREADS=1 the NPU core runs inline, so this
// is the whole work of a call, unaffected by other processes competing for the cores.
double threadCpuMs() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

double median(std::vector<double> values) {
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

struct Run {
    double initMs = 0, firstMs = 0, steadyMs = 0;     // wall clock
    double firstCpuMs = 0, steadyCpuMs = 0;           // calling thread's CPU time
};

// One interpreter's life: create, first inference, then `steadyRuns` more.
Run runInterpreter(const nnemu::tflite::Model& model, const DelegateOptions& options, int steadyRuns) {
    Run run;
    const auto start = Clock::now();
    auto created = Interpreter::create(model, options);
    run.initMs = millisecondsSince(start);
    if (!created || (*created)->delegatedNodeCount() != model.nodes().size()) {
        std::fprintf(stderr, "nnemu_bench_cache: the model does not run whole on synap-npu: %s\n", created.message().c_str());
        std::exit(1);
    }
    const std::unique_ptr<Interpreter> interpreter = std::move(created).value();
    for (size_t i = 0; i < interpreter->inputCount(); ++i) {
        std::fill_n(interpreter->inputData(i), interpreter->inputTensor(i).byteSize(), uint8_t{128});
    }
    const auto first = Clock::now();
    const double firstCpu = threadCpuMs();
    if (const nnemu::Status ran = interpreter->invoke(); !ran) {
        std::fprintf(stderr, "nnemu_bench_cache: inference failed: %s\n", ran.message().c_str());
        std::exit(1);
    }
    run.firstCpuMs = threadCpuMs() - firstCpu;
    run.firstMs = millisecondsSince(first);
    std::vector<double> times, cpuTimes;
    for (int i = 0; i < steadyRuns; ++i) {
        const auto next = Clock::now();
        const double nextCpu = threadCpuMs();
        (void)interpreter->invoke();
        cpuTimes.push_back(threadCpuMs() - nextCpu);
        times.push_back(millisecondsSince(next));
    }
    run.steadyMs = median(times);
    run.steadyCpuMs = median(cpuTimes);
    return run;
}

void BM_FirstInference(benchmark::State& state, const std::string& modelName, Start start) {
    const std::string root = benchRoot();
    const auto& model = generatedModel(modelName);
    DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = "synap-npu";
    setProperty("vendor.npu.cache.model", start == Start::WARM_NNAPI ? "1" : "0");
    const std::string tag = modelName + (start == Start::COLD ? "-cold" : start == Start::WARM_SYNAP ? "-synap" : "-nnapi");
    if (start == Start::WARM_NNAPI) {
        options.cacheDir = root + "/nnapi-cache-" + tag;
        options.cacheToken = "bench-" + modelName;
        fs::create_directories(options.cacheDir);
    }
    const std::string synapCache = root + "/synap-" + tag + ".cache";
    setenv("SYNAP_CACHE_PATH", synapCache.c_str(), 1);
    // Priming: fills the cache of a warm start; for every start, pays the process's one-time
    // costs (core initialization, thread pool) outside the measurement.
    if (start == Start::COLD) setenv("SYNAP_CACHE_PATH", (synapCache + ".priming").c_str(), 1);
    runInterpreter(model, options, 1);
    std::vector<double> initMs, firstMs, steadyMs, ratio, firstCpuMs, steadyCpuMs, ratioCpu;
    int iteration = 0;
    for (auto _ : state) {
        if (start == Start::COLD) {
            // A file no process has seen: the driver's open connections never mask it.
            const std::string fresh = synapCache + "." + std::to_string(iteration);
            setenv("SYNAP_CACHE_PATH", fresh.c_str(), 1);
        }
        ++iteration;
        const Run run = runInterpreter(model, options, 9);
        state.SetIterationTime(run.firstMs / 1000.0);
        initMs.push_back(run.initMs);
        firstMs.push_back(run.firstMs);
        steadyMs.push_back(run.steadyMs);
        ratio.push_back(run.firstMs / run.steadyMs);
        firstCpuMs.push_back(run.firstCpuMs);
        steadyCpuMs.push_back(run.steadyCpuMs);
        ratioCpu.push_back(run.firstCpuMs / run.steadyCpuMs);
    }
    unsetenv("SYNAP_CACHE_PATH");
    setProperty("vendor.npu.cache.model", "");
    // Medians over the iterations: robust to the odd iteration another process slowed down.
    state.counters["init_ms"] = median(initMs);
    state.counters["first_ms"] = median(firstMs);
    state.counters["steady_ms"] = median(steadyMs);
    state.counters["first_vs_steady"] = median(ratio);
    state.counters["first_cpu_ms"] = median(firstCpuMs);
    state.counters["steady_cpu_ms"] = median(steadyCpuMs);
    state.counters["first_vs_steady_cpu"] = median(ratioCpu);
}

void registerFirstInference() {
    for (const char* model :
         {"mobilenet_v1_1.0_224_quant", "mobilenet_v2_1.0_224_quant", "mobilenet_v2_1.0_224_int8"}) {
        for (auto [name, start] : {std::pair{"cold", Start::COLD}, std::pair{"warm_synap", Start::WARM_SYNAP},
                                   std::pair{"warm_nnapi", Start::WARM_NNAPI}}) {
            benchmark::RegisterBenchmark((std::string("FirstInference/") + model + "/" + name).c_str(),
                                         BM_FirstInference, std::string(model), start)
                    ->UseManualTime()
                    ->Unit(benchmark::kMillisecond)
                    ->Iterations(5);
        }
    }
}

#endif  // NNEMU_BENCH_HAVE_MOBILENETS

// A cache of `entries` entries with 4 KiB programs, one of which (key "big") has a program of
// `bigKib` KiB; built once per shape.
struct FilledCache {
    std::unique_ptr<nnemu::cache::SynapCache> cache;
    std::vector<std::string> smallKeys;
};

FilledCache& filledCache(int64_t entries, int64_t bigKib) {
    static std::map<std::pair<int64_t, int64_t>, FilledCache> caches;
    FilledCache& filled = caches[{entries, bigKib}];
    if (filled.cache != nullptr) return filled;
    const std::string file =
            benchRoot() + "/lookup-" + std::to_string(entries) + "-" + std::to_string(bigKib) + ".cache";
    auto opened = nnemu::cache::SynapCache::open(file, true);
    if (!opened.isOk()) {
        std::fprintf(stderr, "nnemu_bench_cache: %s\n", opened.message().c_str());
        std::exit(1);
    }
    filled.cache = std::move(opened).value();
    std::mt19937_64 random(42);
    std::vector<uint8_t> program(4096);
    for (int64_t i = 0; i + 1 < entries; ++i) {
        for (auto& byte : program) byte = static_cast<uint8_t>(random());
        filled.smallKeys.push_back("small-" + std::to_string(i));
        (void)filled.cache->store(filled.smallKeys.back(), program, 1, entries);
    }
    std::vector<uint8_t> big(static_cast<size_t>(bigKib) * 1024);
    for (auto& byte : big) byte = static_cast<uint8_t>(random());
    (void)filled.cache->store("big", big, 1, entries);
    return filled;
}

void BM_SynapCacheLookup(benchmark::State& state) {
    static std::map<int64_t, double> baselineUs;  // per program size: the 100-entry lookup time
    const int64_t entries = state.range(0), bigKib = state.range(1);
    FilledCache& filled = filledCache(entries, bigKib);
    std::vector<uint8_t> program;
    std::mt19937 random(7);
    const auto start = Clock::now();
    int64_t lookups = 0;
    for (auto _ : state) {
        // The big program, or a random small one.
        const std::string& key =
                bigKib > 4 ? std::string("big") : filled.smallKeys[random() % filled.smallKeys.size()];
        if (filled.cache->find(key, 1, &program) != nnemu::StatusCode::OK) {
            state.SkipWithError("lookup missed");
            break;
        }
        ++lookups;
    }
    const double us = millisecondsSince(start) * 1000.0 / static_cast<double>(std::max<int64_t>(lookups, 1));
    state.counters["lookup_us"] = us;
    if (entries == 100) baselineUs[bigKib] = us;
    if (entries != 100 && baselineUs.count(bigKib) != 0) state.counters["vs_100_entries"] = us / baselineUs[bigKib];
}

// Storing a new program of `program_kib` KiB (hashing, chunking, the insert transaction) into
// the SyNAP cache, which already holds a few.
void BM_SynapCacheStore(benchmark::State& state) {
    const int64_t kib = state.range(0);
    auto opened = nnemu::cache::SynapCache::open(benchRoot() + "/store-" + std::to_string(kib) + ".cache", true);
    if (!opened.isOk()) {
        state.SkipWithError(opened.message().c_str());
        return;
    }
    const auto cache = std::move(opened).value();
    std::mt19937_64 random(3);
    std::vector<uint8_t> program(static_cast<size_t>(kib) * 1024);
    int64_t stored = 0;
    for (auto _ : state) {
        state.PauseTiming();
        for (auto& byte : program) byte = static_cast<uint8_t>(random());
        state.ResumeTiming();
        if (cache->store("key-" + std::to_string(stored++), program, 1, 4) != nnemu::StatusCode::OK) {
            state.SkipWithError(cache->error().c_str());
            break;
        }
    }
}

}  // namespace

void BM_Digest(benchmark::State& state, nnemu::base::DigestAlgorithm algorithm) {
    std::vector<uint8_t> data(8 << 20);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 131 + (i >> 9));
    for (auto _ : state) {
        nnemu::base::Digest digest(algorithm);
        digest.update(data.data(), data.size());
        benchmark::DoNotOptimize(digest.finish());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(data.size()));
}
BENCHMARK_CAPTURE(BM_Digest, md5, nnemu::base::DigestAlgorithm::MD5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Digest, sha256, nnemu::base::DigestAlgorithm::SHA256)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_SynapCacheStore)->ArgName("program_kib")->Arg(4)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SynapCacheLookup)
        ->ArgNames({"entries", "program_kib"})
        ->Args({100, 4})
        ->Args({10000, 4})
        ->Args({100, 4096})
        ->Args({10000, 4096})
        ->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
    benchRoot();
    // One NPU thread: the core runs on the calling thread, so CPU-time ratios stay meaningful on
    // a busy machine. Set NNEMU_NPU_THREADS to measure with a thread pool instead.
    setenv("NNEMU_NPU_THREADS", "1", 0);
#ifdef NNEMU_BENCH_HAVE_MOBILENETS
    registerFirstInference();
#endif
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
