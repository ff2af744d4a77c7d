// Peak/ and Roofline/: the fastest an 8-bit network can run on one core of this CPU with the
// exact integer requantization, from the multiplies it needs. Part of nnemu_bench_kernels:
//
//   build/bin/nnemu_bench_kernels --benchmark_filter='Peak|Roofline'
//
// Peak/multiplies measures, on one thread, the rate of 512-bit vpdpbusd (12 independent
// accumulators: 64 int8 multiply-adds each), of vpmuldq (8 products of 32 x 32 -> 64 bits each),
// and how far they share one resource: `shared` is the time of 8 vpdpbusd + 4 vpmuldq less that
// of the 8 alone, over that of the 4 alone (1: every vpmuldq costs a vpdpbusd slot, as on Zen 4,
// where every 512-bit multiply, integer or float, does; 0: they run side by side);
// `issue_per_vnni` how many 512-bit instructions of any kind complete in a vpdpbusd's time
// (Rates::issue).
//
// Roofline/<network> counts what the network's convolutions, depthwise convolutions and fully
// connected layers must multiply: MACs / 64 vpdpbusd at best, and outputs / 8 vpmuldq (the
// requantization of each output is one product of a 32-bit value and a 31-bit multiplier, exact
// only in 64 bits; float32 has too few bits for the reference's rounding). bound_us is that
// floor at the measured rates: no kernel with this arithmetic runs the network faster on one
// core. own_bound_us counts the instructions as the own kernels issue them (16-channel blocks,
// depth in groups of 4 bytes, the folded 3x3 depthwise's 3 of 4 bytes per vpdpbusd), the floor
// of these kernels. Other layers (ADD, pooling, the tail) are left out: the floors are low.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "BenchNetworks.h"
#include "nnemu/tflite/Model.h"

namespace nnemu {
namespace {

using Clock = std::chrono::steady_clock;

// Seconds per instruction of each measured kind; shared as above; issue: 512-bit instructions the
// core completes in the time of one vpdpbusd when 8 vpdpbusd run with 16 plain vpaddq / vpxord
// (2 on Zen 4: every 512-bit instruction takes half a cycle of its vector units, so work beside
// the multiplies is not free). Zero rates: not measurable here.
struct Rates {
    double vnni = 0, mul = 0, shared = 0, issue = 0;
};

#if defined(__x86_64__)
#define NNEMU_VNNI8                                                                                                   \
    "vpdpbusd %%zmm20, %%zmm21, %%zmm0\n\tvpdpbusd %%zmm20, %%zmm21, %%zmm1\n\tvpdpbusd %%zmm20, %%zmm21, %%zmm2\n\t"  \
    "vpdpbusd %%zmm20, %%zmm21, %%zmm3\n\tvpdpbusd %%zmm20, %%zmm21, %%zmm8\n\tvpdpbusd %%zmm20, %%zmm21, %%zmm9\n\t"  \
    "vpdpbusd %%zmm20, %%zmm21, %%zmm10\n\tvpdpbusd %%zmm20, %%zmm21, %%zmm11\n\t"
#define NNEMU_VNNI4                                                                                                   \
    "vpdpbusd %%zmm20, %%zmm21, %%zmm12\n\tvpdpbusd %%zmm20, %%zmm21, %%zmm13\n\tvpdpbusd %%zmm20, %%zmm21, %%zmm14\n\t" \
    "vpdpbusd %%zmm20, %%zmm21, %%zmm15\n\t"
#define NNEMU_MUL4                                                                                                    \
    "vpmuldq %%zmm20, %%zmm21, %%zmm4\n\tvpmuldq %%zmm20, %%zmm21, %%zmm5\n\tvpmuldq %%zmm20, %%zmm21, %%zmm6\n\t"      \
    "vpmuldq %%zmm20, %%zmm21, %%zmm7\n\t"
#define NNEMU_ADD16                                                                                                   \
    "vpaddq %%zmm20, %%zmm21, %%zmm4\n\tvpaddq %%zmm20, %%zmm21, %%zmm5\n\tvpaddq %%zmm20, %%zmm21, %%zmm6\n\t"         \
    "vpaddq %%zmm20, %%zmm21, %%zmm7\n\tvpxord %%zmm20, %%zmm21, %%zmm12\n\tvpxord %%zmm20, %%zmm21, %%zmm13\n\t"       \
    "vpxord %%zmm20, %%zmm21, %%zmm14\n\tvpxord %%zmm20, %%zmm21, %%zmm15\n\t"                                          \
    "vpaddq %%zmm20, %%zmm21, %%zmm4\n\tvpaddq %%zmm20, %%zmm21, %%zmm5\n\tvpaddq %%zmm20, %%zmm21, %%zmm6\n\t"         \
    "vpaddq %%zmm20, %%zmm21, %%zmm7\n\tvpxord %%zmm20, %%zmm21, %%zmm12\n\tvpxord %%zmm20, %%zmm21, %%zmm13\n\t"       \
    "vpxord %%zmm20, %%zmm21, %%zmm14\n\tvpxord %%zmm20, %%zmm21, %%zmm15\n\t"
#define NNEMU_CLOBBERS                                                                                                \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", \
            "xmm14", "xmm15"

// Seconds per pass of `body` (the quickest of 5 runs of `passes` passes).
template <typename Body>
double perPass(long passes, const Body& body) {
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
        const auto start = Clock::now();
        for (long i = 0; i < passes; ++i) body();
        best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(passes));
    }
    return best;
}

Rates measureRates() {
    if (!__builtin_cpu_supports("avx512vnni")) return {};
    constexpr long kPasses = 2'000'000;
    // 12 accumulators: more than vpdpbusd's latency times its rate, so only the rate counts.
    const double vnni12 = perPass(kPasses, [] { asm volatile(NNEMU_VNNI8 NNEMU_VNNI4 ::: NNEMU_CLOBBERS); });
    const double vnni8 = perPass(kPasses, [] { asm volatile(NNEMU_VNNI8 ::: NNEMU_CLOBBERS); });
    const double mul4 = perPass(kPasses, [] { asm volatile(NNEMU_MUL4 NNEMU_MUL4 ::: NNEMU_CLOBBERS); }) / 2;
    const double both = perPass(kPasses, [] { asm volatile(NNEMU_VNNI8 NNEMU_MUL4 ::: NNEMU_CLOBBERS); });
    const double withAdds = perPass(kPasses, [] { asm volatile(NNEMU_VNNI8 NNEMU_ADD16 ::: NNEMU_CLOBBERS); });
    Rates rates;
    rates.vnni = vnni12 / 12;
    rates.mul = mul4 / 4;
    rates.shared = std::clamp((both - vnni8) / mul4, 0.0, 1.0);
    rates.issue = 24 / (withAdds / rates.vnni);
    return rates;
}
#else
Rates measureRates() { return {}; }
#endif

const Rates& rates() {
    static const Rates measured = measureRates();
    return measured;
}

void Peak(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(rates());
    if (rates().vnni == 0) return state.SkipWithError("no AVX-512 VNNI here");
    state.counters["vnni_G_per_s"] = 1e-9 / rates().vnni;
    state.counters["int8_GMAC_per_s"] = 64e-9 / rates().vnni;
    state.counters["vpmuldq_G_per_s"] = 1e-9 / rates().mul;
    state.counters["shared"] = rates().shared;
    state.counters["issue_per_vnni"] = rates().issue;
}

// What a network's 8-bit multiplying layers need: the ideal instruction counts and the own
// kernels' (see the top).
struct Work {
    double macs = 0, outputs = 0, vnni = 0, muls = 0, ownVnni = 0, ownMuls = 0;
};

double ceilDiv(double a, double b) { return std::ceil(a / b); }

double elements(const tflite::Tensor& t) {
    double n = 1;
    for (int32_t d : t.shape) n *= d;
    return n;
}

Work workOf(const tflite::Model& model) {
    Work w;
    for (const tflite::Node& node : model.nodes()) {
        const bool conv = node.opName == "CONV_2D", depthwise = node.opName == "DEPTHWISE_CONV_2D";
        if ((!conv && !depthwise && node.opName != "FULLY_CONNECTED") || node.inputs.size() < 2 || node.outputs.empty()) {
            continue;
        }
        const tflite::Tensor& out = model.tensors()[node.outputs[0]];
        const tflite::Tensor& filter = model.tensors()[node.inputs[1]];
        if ((out.type != tflite::ElementType::INT8 && out.type != tflite::ElementType::UINT8) || out.shape.empty() ||
            filter.shape.size() < 2) {
            continue;
        }
        const double channels = out.shape.back(), count = elements(out), pixels = count / channels;
        const double vectors = pixels * ceilDiv(channels, 16);
        double depth = 1;  // multiply-adds per output
        if (conv && filter.shape.size() == 4) depth = static_cast<double>(filter.shape[1]) * filter.shape[2] * filter.shape[3];
        if (depthwise && filter.shape.size() == 4) depth = static_cast<double>(filter.shape[1]) * filter.shape[2];
        if (!conv && !depthwise) depth = filter.shape[1];
        w.macs += count * depth;
        w.outputs += count;
        // A 3x3 depthwise: 3 vpdpbusd per vector (a column's 3 taps in a lane's 4 bytes); others one per tap.
        w.ownVnni += depthwise ? vectors * (depth == 9 ? 3 : depth) : vectors * ceilDiv(depth, 4);
        w.ownMuls += 2 * vectors;
    }
    w.vnni = w.macs / 64;
    w.muls = w.outputs / 8;
    return w;
}

// Seconds: with a shared resource the counts add up; with separate ones the busier one bounds.
double floorOf(double vnni, double muls, const Rates& r) {
    return std::max(vnni * r.vnni + r.shared * muls * r.mul, muls * r.mul);
}

void Roofline(benchmark::State& state, const char* name) {
    std::vector<uint8_t> bytes;
    Work w;
    for (auto _ : state) {
        if (const Status read = bench::modelBytes(name, &bytes); !read) return state.SkipWithError(read.message().c_str());
        auto model = tflite::Model::fromBuffer(std::move(bytes));
        if (!model.isOk()) return state.SkipWithError(model.status().message().c_str());
        w = workOf(*model.value());
    }
    if (rates().vnni == 0) return state.SkipWithError("no AVX-512 VNNI here");
    state.counters["MMACs"] = w.macs / 1e6;
    state.counters["M_outputs"] = w.outputs / 1e6;
    state.counters["bound_us"] = floorOf(w.vnni, w.muls, rates()) * 1e6;
    state.counters["own_bound_us"] = floorOf(w.ownVnni, w.ownMuls, rates()) * 1e6;
}

const bool registered = [] {
    benchmark::RegisterBenchmark("Peak/multiplies", Peak)->Iterations(1);
    for (const char* name : {"mobilenet_v2_1.0_224_full_int8", "tf2_mobilenet_v2_1.0_224_ptq.tflite", "mobilenet_v1_1.0_224_int8",
                             "mobilenet_v2_1.0_224_quant.tflite", "mobilenet_v1_0.25_128_quant.tflite"}) {
        benchmark::RegisterBenchmark((std::string("Roofline/") + name).c_str(), Roofline, name)->Iterations(1);
    }
    return true;
}();

}  // namespace
}  // namespace nnemu
