// What the NPU benchmarks share: their networks, set up once per process by name, and the
// input/output buffers of a core loaded from an NPU program.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/NpuCore.h"
#include "nnemu/base/Status.h"

namespace nnemu::bench {

// A network's .tflite bytes: a shared model's file ("<name>.tflite", from ../shared) or a
// generated MobileNet's (nnemu_modelgen's names). Defined by nnemu_bench_kernels.
Status modelBytes(const std::string& name, std::vector<uint8_t>* bytes);

// The network called `name`, built by `build(Network&)` (a Status) at the first call; nullptr
// (with the error, if it says one, on stderr) when it cannot be, and it is tried again at the next call.
template <typename Network, typename Build>
Network* networkOnce(const std::string& name, Build build) {
    static std::map<std::string, std::unique_ptr<Network>> networks;
    auto& slot = networks[name];
    if (slot) return slot.get();
    auto created = std::make_unique<Network>();
    if (const Status built = build(*created); !built) {
        if (!built.message().empty()) std::fprintf(stderr, "%s: %s\n", name.c_str(), built.message().c_str());
        return nullptr;
    }
    slot = std::move(created);
    return slot.get();
}

// One buffer per input (filled with 1) and output (0) of `core`, and the pointers run() takes.
struct CoreBuffers {
    std::vector<std::vector<uint8_t>> inputs, outputs;
    std::vector<const uint8_t*> in;
    std::vector<uint8_t*> out;

    CoreBuffers() = default;
    CoreBuffers(CoreBuffers&&) = default;  // moving keeps the buffers, so the pointers stay valid
    CoreBuffers& operator=(CoreBuffers&&) = default;
    CoreBuffers(const CoreBuffers&) = delete;
    explicit CoreBuffers(const synap::NpuCore& core) {
        for (size_t i = 0; i < core.inputCount(); ++i) inputs.emplace_back(core.inputBytes(i), 1);
        for (size_t i = 0; i < core.outputCount(); ++i) outputs.emplace_back(core.outputBytes(i), 0);
        for (auto& buffer : inputs) in.push_back(buffer.data());
        for (auto& buffer : outputs) out.push_back(buffer.data());
    }
};

}  // namespace nnemu::bench
