// Where the interpreter's intermediate tensors live: one arena, each tensor at an offset no other
// tensor alive at the same step overlaps, as TFLite's arena planner places them (largest first,
// each at the lowest offset that fits between the tensors already placed whose lifetimes meet
// its own). A model's activations then take about the largest few layers' bytes instead of the
// sum over every layer, and stay in the caches from one layer to the next (the tools' CPU path on
// MobileNet v2 float: BENCHMARKS.md, "The CPU path's float kernels and arena").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnemu::tflite {

// A tensor alive from step `first` to step `last`, both included.
struct ArenaRequest {
    size_t bytes = 0;
    uint32_t first = 0, last = 0;
};

struct ArenaPlan {
    std::vector<size_t> offsets;   // per request, multiples of the alignment
    size_t bytes = 0;              // the arena's size
};

ArenaPlan planArena(const std::vector<ArenaRequest>& requests, size_t alignment = 64);

}  // namespace nnemu::tflite
