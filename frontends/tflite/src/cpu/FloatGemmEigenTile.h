// The lane kernels of FloatGemmEigen.h, compiled once per ISA (FloatGemmEigenPortable.cpp,
// FloatGemmEigenAvx512.cpp), each with -ffp-contract=off: a product is rounded, then added.
#pragma once

#include <cstddef>
#include <cstring>

#include "FloatGemmEigen.h"

namespace nnemu::tflite::kernels::floatgemm {
namespace {

typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

// By reference: a 64-byte vector passed by value would change the ABI between the builds.
inline void loadLanes(const float* p, Lanes& v) { std::memcpy(&v, p, sizeof(v)); }
inline void storeLanes(float* p, const Lanes& v) { std::memcpy(p, &v, sizeof(v)); }

template <size_t N>
inline void tileSums(const float* packed, const float* const* rows, size_t first, size_t length, float* acc) {
    Lanes sum[N];
    for (size_t i = 0; i < N; ++i) sum[i] = Lanes{};
    const float* w = packed + first * kLanes;
    for (size_t d = first; d < first + length; ++d, w += kLanes) {
        Lanes weights;
        loadLanes(w, weights);
        for (size_t i = 0; i < N; ++i) {
            const Lanes product = weights * rows[i][d];
            sum[i] = sum[i] + product;
        }
    }
    for (size_t i = 0; i < N; ++i) {
        Lanes total;
        loadLanes(acc + i * kLanes, total);
        total = total + sum[i];
        storeLanes(acc + i * kLanes, total);
    }
}

template <size_t Max>
inline void tile(const float* packed, const float* const* rows, size_t count, size_t first, size_t length, float* acc) {
    static_assert(Max == 4 || Max == 8, "tiles of 4 or 8 pixels");
    if (Max == 8) {
        switch (count) {
            case 8: return tileSums<8>(packed, rows, first, length, acc);
            case 7: return tileSums<7>(packed, rows, first, length, acc);
            case 6: return tileSums<6>(packed, rows, first, length, acc);
            case 5: return tileSums<5>(packed, rows, first, length, acc);
            default: break;
        }
    }
    switch (count) {
        case 4: return tileSums<4>(packed, rows, first, length, acc);
        case 3: return tileSums<3>(packed, rows, first, length, acc);
        case 2: return tileSums<2>(packed, rows, first, length, acc);
        default: return tileSums<1>(packed, rows, first, length, acc);
    }
}
static_assert(kMaxPixels == 8, "tile() handles up to 8 pixels");

inline void gemv(const float* packed, const float* row, size_t depth, float* sums) {
    Lanes lane[4];
    for (auto& l : lane) l = Lanes{};
    const size_t whole = depth / 4 * 4;
    const float* w = packed;
    for (size_t d = 0; d < whole; d += 4) {
        for (size_t l = 0; l < 4; ++l, w += kLanes) {
            Lanes weights;
            loadLanes(w, weights);
            const Lanes product = weights * row[d + l];
            lane[l] = lane[l] + product;
        }
    }
    Lanes total = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    for (size_t d = whole; d < depth; ++d, w += kLanes) {
        Lanes weights;
        loadLanes(w, weights);
        const Lanes product = weights * row[d];
        total = total + product;
    }
    storeLanes(sums, total);
}

}  // namespace
}  // namespace nnemu::tflite::kernels::floatgemm
