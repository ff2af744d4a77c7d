// The int8 CONV_2D's GEMM: the portable build and the run-time choice (ConvInt8Gemm.h).
#include "ConvInt8Gemm.h"

namespace nnemu::tflite::kernels::conv {

void gemmInt16Portable(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs,
                       int32_t* sums) {
    const size_t depth = 2 * pairs, stride = blocks * kGemmLanes, blockSize = pairs * 2 * kGemmLanes;
    for (size_t p = 0; p < count; ++p) {
        for (size_t b = 0; b < blocks; ++b) {
            int32_t acc[kGemmLanes] = {};
            const int16_t* w = packed + b * blockSize;
            for (size_t k = 0; k < pairs; ++k, w += 2 * kGemmLanes) {
                const int32_t x0 = rows[p * depth + 2 * k], x1 = rows[p * depth + 2 * k + 1];
                for (size_t c = 0; c < kGemmLanes; ++c) acc[c] += x0 * w[2 * c] + x1 * w[2 * c + 1];
            }
            for (size_t c = 0; c < kGemmLanes; ++c) sums[p * stride + b * kGemmLanes + c] = acc[c];
        }
    }
}

Int16Gemm bestInt16Gemm() {
    static const Int16Gemm best = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) return &gemmInt16Avx512;
        if (__builtin_cpu_supports("avx2")) return &gemmInt16Avx2;
        return &gemmInt16Portable;
    }();
    return best;
}

}  // namespace nnemu::tflite::kernels::conv
