// RelaxedGemm/: the relaxed float GEMM (driver/synap/kernels/FloatGemmBf16.h) alone on MobileNet
// v1 and v2 224's 1x1 shapes (rows, depth, channels; RELU6), one thread: the AMX-BF16 kernel
// against the AVX512-BF16 one and the float32 GEMM, alternated, each the best of 20 runs per
// round (best over the rounds: what load disturbs least). Part of nnemu_bench_kernels:
//
//   build/bin/nnemu_bench_kernels --benchmark_filter=RelaxedGemm
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "kernels/FloatGemm.h"
#include "kernels/FloatGemmBf16.h"
#include "kernels/Isa.h"

namespace nnemu {
namespace {

using namespace synap::kernels;

template <typename Run>
double bestMicros(const Run& run) {
    double best = 1e30;
    for (int r = 0; r < 20; ++r) {
        const auto start = std::chrono::steady_clock::now();
        run();
        best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

void RelaxedGemm(benchmark::State& state) {
    if (!hasFloatGemmBf16()) return state.SkipWithError("no AVX512-BF16 (or NNEMU_NPU_KERNEL_ISA caps it)");
    const size_t rows = static_cast<size_t>(state.range(0)), depth = static_cast<size_t>(state.range(1)),
                 channels = static_cast<size_t>(state.range(2));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> input(rows * depth), weights(channels * depth), bias(channels), output(rows * channels);
    for (float& v : input) v = value(rng);
    for (float& v : weights) v = value(rng);
    for (float& v : bias) v = value(rng);
    FloatGemmSpec spec;
    spec.depth = static_cast<uint32_t>(depth);
    spec.channels = static_cast<uint32_t>(channels);
    spec.weights = reinterpret_cast<const uint8_t*>(weights.data());
    spec.bias = reinterpret_cast<const uint8_t*>(bias.data());
    std::vector<uint8_t> bf16, float32;
    if (!packFloatGemmBf16(spec, &bf16) || !packFloatGemm(spec, &float32)) return state.SkipWithError("cannot pack");
    const bool amx = amxBf16Usable();
    std::vector<uint32_t> scratch;
    double bestAmx = 1e30, bestAvx512 = 1e30, bestFloat32 = 1e30;
    for (auto _ : state) {
        if (amx) {
            bestAmx = std::min(bestAmx, bestMicros([&] {
                runFloatGemmBf16Tile(Bf16Kernel::Amx, bf16, input.data(), output.data(), 0, 6, 0, rows, 0, channels,
                                     &scratch);
            }));
        }
        bestAvx512 = std::min(bestAvx512, bestMicros([&] {
            runFloatGemmBf16Tile(Bf16Kernel::Avx512, bf16, input.data(), output.data(), 0, 6, 0, rows, 0, channels,
                                 &scratch);
        }));
        bestFloat32 = std::min(bestFloat32, bestMicros([&] {
            runFloatGemmTile(bestIsa(), float32, input.data(), output.data(), 0, 6, 0, rows, 0, channels);
        }));
    }
    if (amx) {
        state.counters["amx_us"] = bestAmx;
        state.counters["amx_x"] = bestAvx512 / bestAmx;
    }
    state.counters["avx512bf16_us"] = bestAvx512;
    state.counters["float32_us"] = bestFloat32;
}

// v1's pointwise layers, then v2's expansions and projections (a few of each size).
BENCHMARK(RelaxedGemm)
        ->Args({12544, 32, 64})->Args({3136, 64, 128})->Args({3136, 128, 128})->Args({784, 256, 256})
        ->Args({196, 512, 512})->Args({49, 1024, 1024})->Args({1, 1024, 1001})
        ->Args({12544, 16, 96})->Args({3136, 24, 144})->Args({3136, 144, 24})->Args({784, 192, 32})
        ->Args({196, 64, 384})->Args({196, 384, 64})->Args({49, 960, 320})->Args({49, 320, 1280})
        ->Iterations(3);

}  // namespace
}  // namespace nnemu
