// The NPU core's own kernels (driver/synap/kernels) against the XNNPACK core they replace for
// some layers (NNEMU_NPU_KERNELS=xnnpack), on the same NPU program, one thread, in the same run:
// each Compare/ benchmark alternates blocks of inferences on both cores and reports each
// side's mean and the speedup; each Layers/ benchmark runs both in profiling mode (every layer its
// own stage) and sums each layer's best time over the runs, which a busy machine disturbs less. Networks: generated MobileNets (int8 per-channel, uint8, float)
// and the shared models' TF2 int8 MobileNet v2 and uint8 MobileNets.
//
//   build/bin/nnemu_bench_kernels [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "NpuCore.h"
#include "PreparedNetwork.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"

namespace nnemu {
namespace {

using Clock = std::chrono::steady_clock;

struct Side {
    std::unique_ptr<synap::NpuCore> core;
    std::vector<std::vector<uint8_t>> inputs, outputs;
    std::vector<const uint8_t*> in;
    std::vector<uint8_t*> out;
};

// One network's NPU programs (one per synap-npu partition), each loaded into two one-thread
// cores: the default (own kernels) and the XNNPACK-only core.
struct Network {
    std::unique_ptr<tflite::Model> model;
    std::unique_ptr<tflite::Interpreter> npu;
    std::vector<Side> own, xnnpack;
    std::vector<Side> ownProfiled, xnnpackProfiled;
};

bool modelBytes(const std::string& name, std::vector<uint8_t>* bytes, std::string* error) {
    if (name.ends_with(".tflite")) {
        std::ifstream file(std::string(NNEMU_SHARED_DIR) + "/models/models/" + name, std::ios::binary);
        bytes->assign(std::istreambuf_iterator<char>(file), {});
        if (bytes->empty()) *error = "cannot read " + name;
        return !bytes->empty();
    }
    return modelgen::generateModel(name, bytes, error);
}

bool loadSide(const std::vector<uint8_t>& program, bool xnnpackOnly, bool profiling, Side* side,
              std::string* error) {
    // The own side keeps the caller's NNEMU_NPU_KERNELS (e.g. "all").
    const char* choice = getenv("NNEMU_NPU_KERNELS");
    const std::string saved = choice == nullptr ? "" : choice;
    if (xnnpackOnly) setenv("NNEMU_NPU_KERNELS", "xnnpack", 1);
    side->core = synap::NpuCore::load(program, error, profiling, true);
    if (xnnpackOnly && choice == nullptr) unsetenv("NNEMU_NPU_KERNELS");
    if (xnnpackOnly && choice != nullptr) setenv("NNEMU_NPU_KERNELS", saved.c_str(), 1);
    if (side->core == nullptr) return false;
    for (size_t i = 0; i < side->core->inputCount(); ++i) side->inputs.emplace_back(side->core->inputBytes(i), 1);
    for (size_t i = 0; i < side->core->outputCount(); ++i) side->outputs.emplace_back(side->core->outputBytes(i), 0);
    for (auto& buffer : side->inputs) side->in.push_back(buffer.data());
    for (auto& buffer : side->outputs) side->out.push_back(buffer.data());
    return side->core->run(side->in, side->out, error);
}

Network* network(const std::string& name) {
    static std::map<std::string, std::unique_ptr<Network>> networks;
    auto& slot = networks[name];
    if (slot) return slot.get();
    auto created = std::make_unique<Network>();
    std::vector<uint8_t> bytes;
    std::string error;
    tflite::DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = "synap-npu";
    const size_t before = synap::livePreparedNetworks().size();
    if (!modelBytes(name, &bytes, &error) || !(created->model = tflite::Model::fromBuffer(std::move(bytes), &error)) ||
        !(created->npu = tflite::Interpreter::create(*created->model, options, &error)) ||
        !created->npu->invoke(&error)) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), error.c_str());
        return nullptr;
    }
    const auto prepared = synap::livePreparedNetworks();
    for (size_t i = before; i < prepared.size(); ++i) {
        if (prepared[i]->core() == nullptr) continue;
        const std::span<const uint8_t> bytes = prepared[i]->core()->programBytes();
        const std::vector<uint8_t> program(bytes.begin(), bytes.end());
        for (auto* sides : {&created->own, &created->xnnpack, &created->ownProfiled, &created->xnnpackProfiled}) {
            sides->emplace_back();
        }
        if (!loadSide(program, false, false, &created->own.back(), &error) ||
            !loadSide(program, true, false, &created->xnnpack.back(), &error) ||
            !loadSide(program, false, true, &created->ownProfiled.back(), &error) ||
            !loadSide(program, true, true, &created->xnnpackProfiled.back(), &error)) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), error.c_str());
            return nullptr;
        }
    }
    if (created->own.empty()) return nullptr;
    slot = std::move(created);
    return slot.get();
}

constexpr int kBlock = 8;

// Blocks of inferences on one core then the other, so both see the same machine.
void Compare(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    std::string error;
    double ownUs = 0, xnnpackUs = 0;
    for (auto _ : state) {
        for (auto [sides, total] : {std::pair{&net->own, &ownUs}, std::pair{&net->xnnpack, &xnnpackUs}}) {
            const auto start = Clock::now();
            for (int i = 0; i < kBlock; ++i) {
                for (Side& side : *sides) {
                    if (!side.core->run(side.in, side.out, &error)) return state.SkipWithError(error.c_str());
                }
            }
            *total += std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        }
    }
    const double n = static_cast<double>(state.iterations()) * kBlock;
    state.counters["own_us"] = ownUs / n;
    state.counters["xnnpack_us"] = xnnpackUs / n;
    state.counters["speedup"] = ownUs > 0 ? xnnpackUs / ownUs : 0;
}

// Sum over the layers of each layer's quickest time in `runs` profiled inferences.
bool bestLayerSum(std::vector<Side>& sides, int runs, double* us, std::string* error) {
    *us = 0;
    for (Side& side : sides) {
        std::vector<uint32_t> best;
        for (int r = 0; r < runs; ++r) {
            if (!side.core->run(side.in, side.out, error)) return false;
            const auto& profile = side.core->lastProfile();
            best.resize(profile.size(), UINT32_MAX);
            for (size_t i = 0; i < profile.size(); ++i) best[i] = std::min(best[i], profile[i].timeUs);
        }
        for (uint32_t t : best) *us += t;
    }
    return true;
}

void Layers(benchmark::State& state, const char* name) {
    Network* net = network(name);
    if (net == nullptr) return state.SkipWithError("cannot set up the network");
    std::string error;
    double ownUs = 0, xnnpackUs = 0;
    for (auto _ : state) {
        if (!bestLayerSum(net->ownProfiled, 20, &ownUs, &error) ||
            !bestLayerSum(net->xnnpackProfiled, 20, &xnnpackUs, &error)) {
            return state.SkipWithError(error.c_str());
        }
    }
    state.counters["own_us"] = ownUs;
    state.counters["xnnpack_us"] = xnnpackUs;
    state.counters["speedup"] = ownUs > 0 ? xnnpackUs / ownUs : 0;
}

constexpr const char* kNetworks[] = {
        "mobilenet_v2_1.0_224_int8",  "mobilenet_v2_1.0_224_full_int8", "tf2_mobilenet_v2_1.0_224_ptq.tflite",
        "mobilenet_v2_1.0_224_quant", "mobilenet_v1_1.0_224_quant",     "mobilenet_v2_1.0_224_quant.tflite",
        "mobilenet_v1_0.5_160_quant.tflite", "mobilenet_v2_1.0_224_float", "mobilenet_v1_1.0_224_float"};

}  // namespace
}  // namespace nnemu

int main(int argc, char** argv) {
    for (const char* name : nnemu::kNetworks) {
        benchmark::RegisterBenchmark((std::string("Compare/") + name).c_str(), nnemu::Compare, name)
                ->Unit(benchmark::kMillisecond)
                ->MinTime(3.0);
        benchmark::RegisterBenchmark((std::string("Layers/") + name).c_str(), nnemu::Layers, name)
                ->Unit(benchmark::kMillisecond)
                ->Iterations(1);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
