// The NPU core's own quantized ADD / SUB (uint8 or int8, broadcasting), bit-exact with the
// reference kernel's arithmetic (driver/cpu/kernels/Elementwise.cpp: both inputs rescaled to twice
// the larger input scale with 20 bits of headroom, summed, rescaled to the output).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "Isa.h"

namespace nnemu::synap::kernels {

// The quantization of an 8-bit binary layer (ADD, SUB, MUL: QuantMul.h).
struct QuantBinarySpec {
    bool signedValues = false;
    int32_t zeroPoints[2] = {0, 0};
    float scales[2] = {0, 0};
    int32_t outputZeroPoint = 0;
    float outputScale = 0;
    int32_t low = 0, high = 0;  // output clamp, quantized (fused activation applied)
};

struct QuantAddSpec : QuantBinarySpec {
    bool subtract = false;  // input 0 minus input 1
};

// One input's rescaling: x = ((q - zeroPoint) << 20) * multiplier(q31) >> rightShift, rounded as
// the reference rounds; `term` holds it for all 256 byte values.
struct AddInput {
    int32_t zeroPoint, multiplierHigh, multiplierLow, rightShift;
    int32_t term[256];  // by byte value (int8 as its byte)
    uint8_t termBytes[4][256];  // byte k of term[v] at [k][v] (the VBMI kernel's lookup planes)
};

// Everything a kernel reads, derived from the spec once.
struct QuantAddParams {
    bool signedValues;
    AddInput inputs[2];
    int32_t outputMultiplier, outputRightShift, outputZeroPoint, low, high;
    // The AVX-512 kernel looks the terms up with VBMI (AddAvx512Vbmi.cpp): set where the CPU
    // has it; tests clear it to run the plain AVX-512 kernel.
    bool byteLookups = false;
    // Where set (with byteLookups), the VBMI kernel adds two 16-bit words instead: output =
    // clamp(high byte of saturate16(word[0][a] + word[1][b])), plus 128 for uint8, exactly the
    // reference's (QuantAddWords.cpp builds them where the layer's quantization allows).
    bool wordTables = false;
    uint8_t wordBytes[2][2][256];  // byte k of input i's word for byte value v at [i][k][v]
    // The same words in 32 bits (set wherever they fit 30, with or without wordTables): without
    // the 16-bit ones, the VBMI kernel's 32-bit lanes add them and shift by 8 instead of
    // requantizing the terms' sum.
    bool wideWords = false;
    uint8_t wideBytes[2][4][256];
};

// false where the kernels do not reproduce the reference (an output multiplier of 1 or more, a
// scale that is not positive and finite).
bool prepareQuantAdd(const QuantAddSpec& spec, QuantAddParams* params);

// out[i] for i < count from a[i * aStep] and b[i * bStep] (steps 0 or 1: a broadcast value or a
// row), with the kernel of `isa` (which the CPU must support).
void runQuantAddRow(Isa isa, const QuantAddParams& params, const uint8_t* a, size_t aStep, const uint8_t* b,
                    size_t bStep, uint8_t* out, size_t count);

// One run of a broadcast walk: `count` outputs from element offset `outOffset`, reading a and b
// from their offsets, each stepping by one element or staying on one (a broadcast value).
using BroadcastRow = std::function<void(size_t aOffset, bool aSteps, size_t bOffset, bool bSteps, size_t outOffset,
                                        size_t count)>;
// Walks a numpy-style broadcast of two inputs (dims right-aligned) as rows, adjacent dims merged
// where both inputs step alike; false if the dims do not broadcast to `outDims`.
bool forEachBroadcastRow(const std::vector<uint32_t>& aDims, const std::vector<uint32_t>& bDims,
                         const std::vector<uint32_t>& outDims, const BroadcastRow& row);

// The whole broadcast (numpy rules, ranks up to 4, dims right-aligned): false if the dims do not
// broadcast to `outDims`.
bool runQuantAdd(Isa isa, const QuantAddParams& params, const std::vector<uint32_t>& aDims, const uint8_t* a,
                 const std::vector<uint32_t>& bDims, const uint8_t* b, const std::vector<uint32_t>& outDims,
                 uint8_t* out);

// The ISA kernels (QuantAdd.cpp, AddAvx2.cpp, AddAvx512.cpp, AddAvx512Vbmi.cpp).
void addRowPortable(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                    uint8_t* out, size_t count);
void addRowAvx2(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                uint8_t* out, size_t count);
void addRowAvx512(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                  uint8_t* out, size_t count);
void addRowAvx512Vbmi(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                      uint8_t* out, size_t count);
// The reference's output step for one sum (shared by the vector kernels' tails).
uint8_t addOutput(const QuantAddParams& p, int32_t sum);
// Builds the word tables (QuantAddWords.cpp) and sets wordTables and wideWords where they give
// every pair's output exactly: only with byteLookups.
void prepareWordTables(QuantAddParams* params);

}  // namespace nnemu::synap::kernels
