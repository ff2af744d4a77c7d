#include "Requant.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::kernels {
namespace {

// The constants of the folded requantization (GemmArgs.h) for channel c.
void setFastRequant(FastRequantBlock* blocks, uint32_t c, int32_t multiplier, int32_t rightShift) {
    FastRequantBlock& block = blocks[c / kGemmBlock];
    const uint32_t parity = c % 2, lane = c % kGemmBlock / 2;
    const int64_t half = rightShift > 0 ? int64_t{1} << (rightShift - 1) : 0;
    block.multiplier[parity][lane] = multiplier;
    block.positive[parity][lane] = (int64_t{1} << 30) + (half << 31);
    block.negative[parity][lane] = (int64_t{1} << 30) + ((rightShift > 0 ? half - 1 : 0) << 31);
    block.shift[parity][lane] = 31 + rightShift;
}

}  // namespace

RequantTable::RequantTable(uint32_t channels)
    : padded((channels + kGemmBlock - 1) / kGemmBlock * kGemmBlock),
      arrays(kArrays * padded, 0),
      fastBlocks(padded / kGemmBlock, FastRequantBlock{}) {}

bool RequantTable::set(uint32_t c, float inputScale, float filterScale, float outputScale, int32_t bias,
                       int64_t colTerm, int64_t largestSum) {
    const float product = inputScale * filterScale;  // in float, as the reference derives it
    const double real = static_cast<double>(product) / static_cast<double>(outputScale);
    if (!(real >= 0.0) || !std::isfinite(real)) return false;
    int32_t multiplier = 0;
    int shift = 0;
    quant::quantizeMultiplier(real, &multiplier, &shift);
    setQuantized(c, multiplier, shift, bias, colTerm, largestSum);
    return true;
}

void RequantTable::setQuantized(uint32_t c, int32_t multiplier, int shift, int32_t bias, int64_t colTerm,
                                int64_t largestSum) {
    int32_t* column = arrays.data() + c;
    column[2 * padded] = multiplier;
    column[3 * padded] = std::clamp(shift, 0, 31);
    column[4 * padded] = std::clamp(-shift, 0, 31);
    column[0] = static_cast<int32_t>(static_cast<uint32_t>(colTerm));
    column[padded] = bias;
    column[5 * padded] = static_cast<int32_t>(static_cast<uint32_t>(column[0]) + static_cast<uint32_t>(bias));
    setFastRequant(fastBlocks.data(), c, column[2 * padded], column[4 * padded]);
    if (column[3 * padded] != 0 || largestSum + std::abs(int64_t{bias}) > INT32_MAX) fast = false;
}

void RequantTable::point(GemmArgs* args, const int32_t* arrays, size_t padded, const FastRequantBlock* blocks) {
    args->colTerms = arrays;
    args->bias = arrays + padded;
    args->multipliers = arrays + 2 * padded;
    args->leftShifts = arrays + 3 * padded;
    args->rightShifts = arrays + 4 * padded;
    args->biasAndColTerms = blocks != nullptr ? arrays + 5 * padded : nullptr;
    args->fastBlocks = blocks;
}

// Every value is read at each load of a program (twice for a pointwise layer: whether its
// weights run in place, then its layer), so the ranges are checked by shifts and ORs over whole
// arrays, which the compiler vectorizes, rather than by a branch per value: an unsigned value is
// within [0, 2^k) where it shifted right by k is 0.
bool soundRequant(const int32_t* arrays, size_t padded, const FastRequantBlock* blocks, size_t blockCount) {
    uint32_t outside = 0;
    if (arrays != nullptr) {
        const auto* multipliers = reinterpret_cast<const uint32_t*>(arrays + 2 * padded);
        const auto* lefts = reinterpret_cast<const uint32_t*>(arrays + 3 * padded);
        const auto* rights = reinterpret_cast<const uint32_t*>(arrays + 4 * padded);
        for (size_t c = 0; c < padded; ++c) outside |= multipliers[c] >> 31 | lefts[c] >> 5 | rights[c] >> 5;
    }
    uint64_t wide = 0;  // shifts 0..62 (s >> 6 and (s + 1) >> 6 both 0), multipliers 0..INT32_MAX (padding lanes: 0)
    for (size_t b = 0; b < blockCount; ++b) {
        const auto* shifts = reinterpret_cast<const uint64_t*>(blocks[b].shift);
        const auto* multipliers = reinterpret_cast<const uint64_t*>(blocks[b].multiplier);
        for (size_t i = 0; i < 16; ++i) wide |= shifts[i] >> 6 | (shifts[i] + 1) >> 6 | multipliers[i] >> 31;
    }
    return outside == 0 && wide == 0;
}

int64_t largestActivation(bool isSigned, int32_t zeroPoint) {
    return isSigned ? std::max(zeroPoint + 128, 127 - zeroPoint) : std::max(zeroPoint, 255 - zeroPoint);
}

}  // namespace nnemu::synap::kernels
