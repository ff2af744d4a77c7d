// The NPU core's own 8-bit pools (uint8 or int8, NHWC), exact with the reference kernels
// (driver/cpu/kernels/Pooling.cpp, Reduction.cpp): max pooling over windows clipped to the input,
// and the global average of AVERAGE_POOL_2D (raw sum rounded half away from zero) or MEAN (raw
// sum truncated toward zero, or the float mean requantized when the quantization changes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "Isa.h"

namespace nnemu::synap::kernels {

struct MaxPoolSpec {
    bool signedValues = false;
    uint32_t batches = 0, inHeight = 0, inWidth = 0, channels = 0, outHeight = 0, outWidth = 0;
    uint32_t poolHeight = 0, poolWidth = 0, strideHeight = 0, strideWidth = 0, padTop = 0, padLeft = 0;
    int32_t zeroPoint = 0;      // what a window covering no input gives
    int32_t low = 0, high = 0;  // output clamp, quantized
};

// Output rows [begin, end) of batches * outHeight.
void runMaxPoolRows(Isa isa, const MaxPoolSpec& spec, const uint8_t* input, uint8_t* output, size_t begin,
                    size_t end);

enum class AverageRounding : uint8_t { HalfAway, MeanTruncate, MeanRequantize };

struct GlobalAverageSpec {
    bool signedValues = false;
    AverageRounding rounding = AverageRounding::HalfAway;
    uint32_t batches = 0, pixels = 0, channels = 0;
    float inputScale = 0, outputScale = 0;
    int32_t inputZeroPoint = 0, outputZeroPoint = 0;
    int32_t low = 0, high = 0;  // output clamp, quantized (HalfAway: the fused activation)
};

// `sums` is scratch of `channels` values.
void runGlobalAverage(Isa isa, const GlobalAverageSpec& spec, const uint8_t* input, uint8_t* output,
                      std::vector<int32_t>* sums);

// The per-ISA loops (PoolPortable.cpp, PoolAvx2.cpp, PoolAvx512.cpp: one source, PoolLoops.h).
struct PoolLoops {
    void (*maxRows)(const MaxPoolSpec&, const uint8_t*, uint8_t*, size_t, size_t);
    void (*sumPixels)(bool isSigned, const uint8_t* input, size_t pixels, size_t channels, int32_t* sums);
    void (*averages)(const GlobalAverageSpec& spec, const int32_t* sums, uint8_t* output);
};
extern const PoolLoops kPoolLoopsPortable, kPoolLoopsAvx2, kPoolLoopsAvx512;

}  // namespace nnemu::synap::kernels
