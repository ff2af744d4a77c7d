// The NPU core's own kernels (driver/synap/kernels) against the XNNPACK core they replace for
// some layers (NNEMU_NPU_KERNELS=xnnpack), on the same NPU program, one thread, in the same run:
// each Compare/ benchmark alternates blocks of inferences on both cores and reports each
// side's mean and the speedup; each Layers/ benchmark runs both in profiling mode (every layer its
// own stage) and sums each layer's best time over the runs, which a busy machine disturbs less;
// each Bands/ benchmark alternates the own core with and without its banded pairs
// (NNEMU_NPU_BANDS=0) and reports both arenas; each SideBySide/ benchmark alternates two cores on
// 2 threads, banded images side by side by cost and always in runs of bands. Networks: generated
// MobileNets (int8 per-channel, uint8, float) and the shared models' TF2 int8 MobileNet v2 and
// uint8 MobileNets.
//
// Gemm/ runs the GEMM alone on MobileNet v2's and v1's 1x1 shapes (on AMX machines also the
// AVX-512 VNNI and AMX-INT8 kernels each on its own, interleaved), also with its weights flushed
// from the caches and with L2 evicted before each run; GemmThreads/ the same on 2
// threads, cut as the core cuts it (gemmCutRules: tiles_), with the VNNI kernel's costs and
// grains whatever runs (vnni_cut_) and in slices of 64 rows, against one thread.
//
//   build/bin/nnemu_bench_kernels [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "BenchNetworks.h"
#include "core/NpuCore.h"
#include "core/OwnLayerSupport.h"
#include "device/PreparedNetwork.h"
#include "kernels/QuantAdd.h"
#include "kernels/QuantGemm.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"

namespace nnemu {

Status bench::modelBytes(const std::string& name, std::vector<uint8_t>* bytes) {
    if (name.ends_with(".tflite")) {
        std::ifstream file(std::string(NNEMU_SHARED_DIR) + "/models/models/" + name, std::ios::binary);
        bytes->assign(std::istreambuf_iterator<char>(file), {});
        return bytes->empty() ? unavailable("cannot read " + name) : Status();
    }
    return modelgen::generateModel(name, bytes);
}

namespace {

using Clock = std::chrono::steady_clock;

struct Side {
    std::unique_ptr<synap::NpuCore> core;
    bench::CoreBuffers buffers;
};

// One network's NPU programs (one per synap-npu partition), each loaded into two one-thread
// cores: the default (own kernels) and the XNNPACK-only core.
struct Network {
    std::unique_ptr<tflite::Model> model;
    std::unique_ptr<tflite::Interpreter> npu;
    std::vector<Side> own, xnnpack;
    std::vector<Side> ownProfiled, xnnpackProfiled;
    std::vector<Side> apart;  // own kernels without banded pairs (NNEMU_NPU_BANDS=0)
    std::vector<std::vector<uint8_t>> programs;  // for the cores loaded by one benchmark only
    std::vector<Side> pooledByCost, pooledInRuns;  // on 2 threads: SideBySide/
};

// Loads a core with `variable` set to `value` (nullptr: the caller's environment) while it loads.
// `pooled`: on the core's thread pool (as NNEMU_NPU_THREADS says), not the calling thread only.
Status loadSide(const std::vector<uint8_t>& program, const char* variable, const char* value, bool profiling, Side* side,
                bool pooled = false) {
    const char* caller = variable != nullptr ? std::getenv(variable) : nullptr;
    const std::string saved = caller != nullptr ? caller : "";
    if (value != nullptr) setenv(variable, value, 1);
    auto loaded = synap::NpuCore::load(program, profiling, !pooled);
    if (value != nullptr && caller != nullptr) setenv(variable, saved.c_str(), 1);
    if (value != nullptr && caller == nullptr) unsetenv(variable);
    if (!loaded.isOk()) return loaded.status();
    side->core = std::move(loaded).value();
    side->buffers = bench::CoreBuffers(*side->core);
    return side->core->run(side->buffers.in, side->buffers.out);
}

Status setUp(const std::string& name, Network& created) {
    std::vector<uint8_t> bytes;
    tflite::DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = "synap-npu";
    const size_t before = synap::livePreparedNetworks().size();
    NNEMU_RETURN_IF_ERROR(bench::modelBytes(name, &bytes));
    NNEMU_ASSIGN_OR_RETURN(created.model, tflite::Model::fromBuffer(std::move(bytes)));
    NNEMU_ASSIGN_OR_RETURN(created.npu, tflite::Interpreter::create(*created.model, options));
    NNEMU_RETURN_IF_ERROR(created.npu->invoke());
    const auto prepared = synap::livePreparedNetworks();
    for (size_t i = before; i < prepared.size(); ++i) {
        if (prepared[i]->core() == nullptr) continue;
        const std::span<const uint8_t> bytes = prepared[i]->core()->programBytes();
        const std::vector<uint8_t> program(bytes.begin(), bytes.end());
        created.programs.push_back(program);
        for (auto* sides : {&created.own, &created.xnnpack, &created.ownProfiled, &created.xnnpackProfiled, &created.apart}) {
            sides->emplace_back();
        }
        // The own side keeps the caller's NNEMU_NPU_KERNELS (e.g. "all").
        const char* kernels = "NNEMU_NPU_KERNELS";
        NNEMU_RETURN_IF_ERROR(loadSide(program, kernels, nullptr, false, &created.own.back()));
        NNEMU_RETURN_IF_ERROR(loadSide(program, kernels, "xnnpack", false, &created.xnnpack.back()));
        NNEMU_RETURN_IF_ERROR(loadSide(program, kernels, nullptr, true, &created.ownProfiled.back()));
        NNEMU_RETURN_IF_ERROR(loadSide(program, kernels, "xnnpack", true, &created.xnnpackProfiled.back()));
        NNEMU_RETURN_IF_ERROR(loadSide(program, "NNEMU_NPU_BANDS", "0", false, &created.apart.back()));
    }
    return created.own.empty() ? opFailed("") : Status();
}

Network* network(const std::string& name) {
    return bench::networkOnce<Network>(name, [&](Network& created) { return setUp(name, created); });
}

constexpr int kBlock = 8;

// Blocks of inferences on one core then the other, so both see the same machine: each side's
// mean time per inference (µs) as counters `firstName` and `secondName`, and the speedup of the
// first. false (and the benchmark skipped) on an error.
bool alternate(benchmark::State& state, std::vector<Side>& first, std::vector<Side>& second, const char* firstName,
               const char* secondName) {
    double firstUs = 0, secondUs = 0;
    for (auto _ : state) {
        for (auto [sides, total] : {std::pair{&first, &firstUs}, std::pair{&second, &secondUs}}) {
            const auto start = Clock::now();
            for (int i = 0; i < kBlock; ++i) {
                for (Side& side : *sides) {
                    if (const Status ran = side.core->run(side.buffers.in, side.buffers.out); !ran) {
                        state.SkipWithError(ran.message().c_str());
                        return false;
                    }
                }
            }
            *total += std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        }
    }
    const double n = static_cast<double>(state.iterations()) * kBlock;
    state.counters[firstName] = firstUs / n;
    state.counters[secondName] = secondUs / n;
    state.counters["speedup"] = firstUs > 0 ? secondUs / firstUs : 0;
    return true;
}

void Compare(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    alternate(state, net->own, net->xnnpack, "own_us", "xnnpack_us");
}

// The own core with its banded pairs (BandedLayers.h) against the same without them, and both
// arenas.
void Bands(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    if (!alternate(state, net->own, net->apart, "banded_us", "apart_us")) return;
    state.counters["arena_kb"] = static_cast<double>(net->own[0].core->arenaBytes()) / 1024;
    state.counters["apart_arena_kb"] = static_cast<double>(net->apart[0].core->arenaBytes()) / 1024;
}

// Two threads (NNEMU_NPU_THREADS=2 unless the caller set it): banded pairs run an image side by
// side where the cost rule says (BandedPair::sideBySidePays) against always in runs of bands
// (NNEMU_NPU_SIDE_BY_SIDE=0), alternated in one process (a 2-core VM's other tenants move
// separate processes' times by more than the difference).
void SideBySide(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    if (net->pooledByCost.empty()) {
        const bool setThreads = std::getenv("NNEMU_NPU_THREADS") == nullptr;
        if (setThreads) setenv("NNEMU_NPU_THREADS", "2", 1);
        for (const auto& program : net->programs) {
            net->pooledByCost.emplace_back();
            net->pooledInRuns.emplace_back();
            Status loaded = loadSide(program, nullptr, nullptr, false, &net->pooledByCost.back(), true);
            if (loaded) loaded = loadSide(program, "NNEMU_NPU_SIDE_BY_SIDE", "0", false, &net->pooledInRuns.back(), true);
            if (!loaded) {
                if (setThreads) unsetenv("NNEMU_NPU_THREADS");
                return state.SkipWithError(loaded.message().c_str());
            }
        }
        if (setThreads) unsetenv("NNEMU_NPU_THREADS");
    }
    alternate(state, net->pooledByCost, net->pooledInRuns, "by_cost_us", "in_runs_us");
}

// Sum over the layers of each layer's quickest time in `runs` profiled inferences; each layer's
// row (name, type, best µs) into `rows` if given.
Status bestLayerSum(std::vector<Side>& sides, int runs, double* us,
                    std::vector<std::pair<std::string, uint32_t>>* rows = nullptr) {
    *us = 0;
    for (Side& side : sides) {
        std::vector<uint32_t> best;
        for (int r = 0; r < runs; ++r) {
            NNEMU_RETURN_IF_ERROR(side.core->run(side.buffers.in, side.buffers.out));
            const auto& profile = side.core->lastProfile();
            best.resize(profile.size(), UINT32_MAX);
            for (size_t i = 0; i < profile.size(); ++i) best[i] = std::min(best[i], profile[i].timeUs);
        }
        for (uint32_t t : best) *us += t;
        const auto& profile = side.core->lastProfile();
        for (size_t i = 0; rows != nullptr && i < profile.size(); ++i) {
            rows->emplace_back(profile[i].name + " " + profile[i].opType, best[i]);
        }
    }
    return {};
}

// NNEMU_BENCH_LAYER_ROWS=1: every layer's best time on both cores, side by side, on stderr.
void printLayerRows(const char* name, const std::vector<std::pair<std::string, uint32_t>>& own,
                    const std::vector<std::pair<std::string, uint32_t>>& xnnpack) {
    if (std::getenv("NNEMU_BENCH_LAYER_ROWS") == nullptr) return;
    for (size_t i = 0; i < own.size() && i < xnnpack.size(); ++i) {
        std::fprintf(stderr, "%s\t%s\t%u\t%s\t%u\n", name, own[i].first.c_str(), own[i].second,
                     xnnpack[i].first.c_str(), xnnpack[i].second);
    }
}

void Layers(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    double ownUs = 0, xnnpackUs = 0;
    std::vector<std::pair<std::string, uint32_t>> ownRows, xnnpackRows;
    for (auto _ : state) {
        Status summed = bestLayerSum(net->ownProfiled, 20, &ownUs, &ownRows);
        if (summed) summed = bestLayerSum(net->xnnpackProfiled, 20, &xnnpackUs, &xnnpackRows);
        if (!summed) return state.SkipWithError(summed.message().c_str());
    }
    printLayerRows(name, ownRows, xnnpackRows);
    state.counters["own_us"] = ownUs;
    state.counters["xnnpack_us"] = xnnpackUs;
    state.counters["speedup"] = ownUs > 0 ? xnnpackUs / ownUs : 0;
}

// Bytes from a 64-byte boundary on, as the core's arena and mapped program hold them: where a
// heap vector happens to start moved the AMX kernel's times by up to 2x (tile rows split across
// cache lines), per shape and per binary.
struct Aligned64 {
    std::vector<uint8_t> storage;
    size_t offset = 0, size = 0;
    void assign(std::span<const uint8_t> bytes) {
        storage.assign(bytes.size() + 64, 0);
        offset = (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
        size = bytes.size();
        std::copy(bytes.begin(), bytes.end(), storage.begin() + static_cast<std::ptrdiff_t>(offset));
    }
    uint8_t* data() { return storage.data() + offset; }
    std::span<const uint8_t> span() const { return {storage.data() + offset, size}; }
};

// One 1x1 layer shape of MobileNet v2 (rows x depth x channels; int8 per channel, or uint8 when
// the fourth argument is 0; the full output range, or a ReLU6-like clamp from the output zero
// point when a fifth argument is 1) with random data, packed for the own GEMM.
struct GemmCase {
    size_t rows, channels;
    std::vector<uint8_t> weights, input, output, packed;
    std::vector<int32_t> bias;
    std::vector<float> scales;

    explicit GemmCase(const benchmark::State& state)
        : rows(state.range(0)), channels(state.range(2)), weights(state.range(1) * channels),
          input(rows * state.range(1)), output(rows * channels), bias(channels), scales(channels) {
        const size_t depth = state.range(1);
        uint32_t seed = 1;
        const auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
        for (uint8_t& w : weights) w = static_cast<uint8_t>(next() >> 24);
        for (uint8_t& x : input) x = static_cast<uint8_t>(next() >> 24);
        for (size_t c = 0; c < channels; ++c) {
            bias[c] = static_cast<int32_t>(next() % 20000) - 10000;
            scales[c] = 0.002f + 0.00001f * static_cast<float>(next() % 1000);
        }
        synap::kernels::QuantGemmSpec spec;
        spec.signedValues = state.range(3) != 0;
        spec.filterZeroPoint = spec.signedValues ? 0 : 131;
        if (!spec.signedValues) scales.resize(1);
        spec.inputZeroPoint = spec.signedValues ? -3 : 125;
        spec.outputZeroPoint = 5;
        spec.inputScale = 0.02f;
        spec.outputScale = 0.05f;
        spec.filterScales = scales;
        spec.low = spec.signedValues ? -128 : 0;
        spec.high = spec.low + 255;
        if (state.range(4) != 0) {
            spec.low = spec.outputZeroPoint;
            spec.high = spec.low + 120;
        }
        spec.weights = weights.data();
        spec.bias = bias.data();
        spec.depth = static_cast<uint32_t>(depth);
        spec.channels = static_cast<uint32_t>(channels);
        if (!synap::kernels::packQuantGemm(spec, &packed)) packed.clear();
        in.assign(input);
        out.assign(output);
        weights64.assign(packed);
    }
    Aligned64 in, out, weights64;
};

// The quickest of 20 runs of `run` (robust to load), in µs, each after `before` (not timed).
template <typename Before, typename Run>
double bestOf20After(const Before& before, const Run& run) {
    double best = 1e30;
    for (int r = 0; r < 20; ++r) {
        before();
        const auto start = Clock::now();
        run();
        best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    return best;
}

template <typename Run>
double bestOf20(const Run& run) {
    return bestOf20After([] {}, run);
}

// The own GEMM alone, with the best ISA, one thread; where AMX-INT8 is usable also, interleaved,
// the AVX-512 VNNI kernel (vnni_us) and the AMX one (amx_us) on their own, whatever the choice.
// Also with its packed weights first flushed from every cache level (weights_cold_us: read from
// memory, as a layer whose weights nothing kept would) and after 8 MB of other reads
// (l2_evicted_us: weights and rows from L3 at best, as in a network, where the layers between
// evict them).
void Gemm(benchmark::State& state) {
    GemmCase c(state);
    if (c.packed.empty()) return state.SkipWithError("cannot pack");
    synap::kernels::QuantGemmScratch scratch;
    const synap::kernels::Isa isa = synap::kernels::bestIsa();
    const bool amx = synap::kernels::amxInt8Usable();
    synap::kernels::QuantGemmJob job;
    if (!synap::kernels::prepareQuantGemm(isa, c.weights64.span(), c.in.data(), c.rows, c.out.data(), &scratch, &job)) {
        return state.SkipWithError("cannot prepare");
    }
    double best = 1e30, vnni = 1e30, tiles = 1e30, cold = 1e30, evicted = 1e30;
    const std::span<const uint8_t> weights = c.weights64.span();
    const auto gemm = [&] { synap::kernels::runQuantGemm(isa, weights, c.in.data(), c.rows, c.out.data(), &scratch); };
    const auto flush = [&] {
        for (size_t k = 0; k < weights.size(); k += 64) _mm_clflush(weights.data() + k);
        _mm_mfence();
    };
    const std::vector<uint8_t> other(size_t{8} << 20, 1);
    const auto evict = [&] {
        uint32_t sum = 0;
        for (size_t k = 0; k < other.size(); k += 64) sum += other[k];
        benchmark::DoNotOptimize(sum);
    };
    for (auto _ : state) {
        best = std::min(best, bestOf20(gemm));
        cold = std::min(cold, bestOf20After(flush, gemm));
        evicted = std::min(evicted, bestOf20After(evict, gemm));
        if (!amx) continue;
        job.kernel = synap::kernels::gemmAvx512Vnni;
        vnni = std::min(vnni, bestOf20([&] { synap::kernels::runQuantGemmRows(job, 0, c.rows); }));
        job.kernel = synap::kernels::gemmAmxInt8;
        tiles = std::min(tiles, bestOf20([&] { synap::kernels::runQuantGemmRows(job, 0, c.rows); }));
    }
    state.counters["best_us"] = best;
    state.counters["weights_cold_us"] = cold;
    state.counters["l2_evicted_us"] = evicted;
    if (amx) {
        state.counters["vnni_us"] = vnni;
        state.counters["amx_us"] = tiles;
        state.counters["amx_vs_vnni"] = tiles / vnni;
    }
}

// The own int8 ADD of two `count`-value rows, one thread, MobileNet v2-like quantization (input
// scales 0.021 and 0.017, output 0.03, no clamp), each AVX-512 kernel interleaved, the best of 20
// runs each: the 16-bit word tables (words_us), the 32-bit ones (wide_us), the looked-up terms
// (terms_us) and the plain AVX-512 arithmetic (avx512_us). Skipped without AVX-512 VBMI.
void Add(benchmark::State& state) {
    synap::kernels::QuantAddSpec spec;
    spec.signedValues = true;
    spec.zeroPoints[0] = -3;
    spec.zeroPoints[1] = 7;
    spec.scales[0] = 0.021f;
    spec.scales[1] = 0.017f;
    spec.outputZeroPoint = -5;
    spec.outputScale = 0.03f;
    spec.low = -128;
    spec.high = 127;
    auto params = std::make_unique<synap::kernels::QuantAddParams>();
    if (!synap::kernels::prepareQuantAdd(spec, params.get()) || !params->wordTables || !params->wideWords) {
        return state.SkipWithError("no VBMI word tables here");
    }
    const auto count = static_cast<size_t>(state.range(0));
    std::vector<uint8_t> a(count), b(count), out(count);
    for (size_t i = 0; i < count; ++i) {
        a[i] = static_cast<uint8_t>(i * 7 + 3);
        b[i] = static_cast<uint8_t>(i * 13 + 5);
    }
    const char* names[4] = {"words_us", "wide_us", "terms_us", "avx512_us"};
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    for (auto _ : state) {
        for (int k = 0; k < 4; ++k) {
            synap::kernels::QuantAddParams variant = *params;
            variant.wordTables = k == 0;
            variant.wideWords = k <= 1;
            variant.byteLookups = k <= 2;
            best[k] = std::min(best[k], bestOf20([&] {
                synap::kernels::runQuantAddRow(synap::kernels::Isa::Avx512Vnni, variant, a.data(), 1, b.data(), 1,
                                               out.data(), count);
            }));
        }
    }
    for (int k = 0; k < 4; ++k) state.counters[names[k]] = best[k];
}

// The same on a pool of 2 threads, cut as the core's GEMM layers cut it (OwnLayerSupport.h
// gemmCutRules: by the running kernel's cost and grains, along the channels for few rows), as
// they did before this machine's AMX kernels (the VNNI kernel's costs, single rows and blocks) and
// in slices of 64 rows, against one thread, interleaved: the best of 20 runs each.
void GemmThreads(benchmark::State& state) {
    GemmCase c(state);
    if (c.packed.empty()) return state.SkipWithError("cannot pack");
    const std::unique_ptr<synap::CorePool> pool = synap::CorePool::create(2);
    synap::kernels::QuantGemmScratch scratch;
    synap::kernels::QuantGemmJob job;
    const synap::kernels::Isa isa = synap::kernels::bestIsa();
    if (!synap::kernels::prepareQuantGemm(isa, c.weights64.span(), c.in.data(), c.rows, c.out.data(), &scratch, &job)) {
        return state.SkipWithError("cannot prepare");
    }
    using synap::kernels::kGemmBlock;
    const size_t blocks = (c.channels + kGemmBlock - 1) / kGemmBlock;
    const double blockRowCost = static_cast<double>(kGemmBlock * job.args.depthGroups * 4);
    const synap::own::CutRules rules = synap::own::gemmCutRules(job);
    double one = 1e30, tiles = 1e30, flat = 1e30, rows64 = 1e30;
    for (auto _ : state) {
        one = std::min(one, bestOf20([&] { synap::kernels::runQuantGemmRows(job, 0, c.rows); }));
        tiles = std::min(tiles, bestOf20([&] {
            synap::own::inTiles(pool.get(), c.rows, blocks, rules, [&](size_t b, size_t e, size_t f, size_t l) {
                synap::kernels::runQuantGemmTile(job, b, e, f * kGemmBlock, l * kGemmBlock);
            });
        }));
        flat = std::min(flat, bestOf20([&] {
            synap::own::inTiles(pool.get(), c.rows, blocks, blockRowCost, [&](size_t b, size_t e, size_t f, size_t l) {
                synap::kernels::runQuantGemmTile(job, b, e, f * kGemmBlock, l * kGemmBlock);
            });
        }));
        rows64 = std::min(rows64, bestOf20([&] {
            synap::own::inSlices(pool.get(), c.rows, 64, [&](size_t b, size_t e) { synap::kernels::runQuantGemmRows(job, b, e); });
        }));
    }
    state.counters["one_us"] = one;
    state.counters["tiles_us"] = tiles;
    state.counters["rows64_us"] = rows64;
    state.counters["tiles_vs_one"] = tiles / one;
    state.counters["vnni_cut_us"] = flat;
    state.counters["vnni_cut_vs_one"] = flat / one;
    state.counters["rows64_vs_one"] = rows64 / one;
}

constexpr const char* kNetworks[] = {
        "mobilenet_v2_1.0_224_int8",  "mobilenet_v2_1.0_224_full_int8", "tf2_mobilenet_v2_1.0_224_ptq.tflite",
        "mobilenet_v1_1.0_224_int8",
        "mobilenet_v2_1.0_224_quant", "mobilenet_v1_1.0_224_quant",     "mobilenet_v2_1.0_224_quant.tflite",
        "mobilenet_v1_0.5_160_quant.tflite", "mobilenet_v1_0.25_128_quant.tflite", "mobilenet_v2_1.0_224_float", "mobilenet_v1_1.0_224_float",
        // Full 3x3 convolutions with 8 to 64 input channels (the own unfolded convolution's range).
        "conv_quant", "ssd_detector_raw_quant", "segmenter_logits_quant"};

}  // namespace
}  // namespace nnemu

int main(int argc, char** argv) {
    for (const char* name : nnemu::kNetworks) {
        benchmark::RegisterBenchmark((std::string("Compare/") + name).c_str(), nnemu::Compare, name)
                ->Unit(benchmark::kMillisecond)
                ->MinTime(3.0);
        benchmark::RegisterBenchmark((std::string("Bands/") + name).c_str(), nnemu::Bands, name)
                ->Unit(benchmark::kMillisecond)
                ->MinTime(3.0);
        benchmark::RegisterBenchmark((std::string("SideBySide/") + name).c_str(), nnemu::SideBySide, name)
                ->Unit(benchmark::kMillisecond)
                ->MinTime(3.0);
        benchmark::RegisterBenchmark((std::string("Layers/") + name).c_str(), nnemu::Layers, name)
                ->Unit(benchmark::kMillisecond)
                ->Iterations(1);
    }
    // MobileNet v2 224's 1x1 shapes: expansion, projection, 7x7 and the classifier; then v1's.
    for (auto shape : std::initializer_list<std::array<int64_t, 3>>{{12544, 32, 16}, {12544, 16, 96}, {3136, 24, 144},
                                                                   {3136, 144, 24}, {784, 32, 192}, {196, 64, 384},
                                                                   {196, 384, 64}, {196, 96, 576}, {49, 160, 960},
                                                                   {49, 960, 320}, {49, 320, 1280}, {1, 1280, 1000},
                                                                   {12544, 32, 64}, {3136, 128, 128}, {784, 256, 256},
                                                                   {196, 512, 512}, {49, 1024, 1024}}) {
        for (int64_t isSigned : {1, 0}) {
            for (int64_t relu6 : {0, 1}) {
                benchmark::RegisterBenchmark("Gemm", nnemu::Gemm)
                        ->Args({shape[0], shape[1], shape[2], isSigned, relu6})
                        ->Iterations(5);
            }
            benchmark::RegisterBenchmark("GemmThreads", nnemu::GemmThreads)
                    ->Args({shape[0], shape[1], shape[2], isSigned, 0})
                    ->Iterations(5);
        }
    }
    // MobileNet v2 224's residual ADDs: 56x56x24, 28x28x32, 14x14x64, 14x14x96, 7x7x160.
    for (int64_t count : {75264, 25088, 12544, 18816, 7840}) {
        benchmark::RegisterBenchmark("Add", nnemu::Add)->Arg(count)->Iterations(5);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
