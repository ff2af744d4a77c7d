// Packing and running the 3x3 depthwise convolution: weights minus their zero point as 16-bit
// lanes; the accumulator sum (x - zx)(w - zw) is dot(x, w - zw) plus the column term -zx sum(w - zw).
// Where the requantization cannot saturate, also the VNNI kernel's folded layout (bytes of the
// three rows' taps per 32-bit lane, the constant terms and output zero point folded in).
#include "Depthwise.h"

#include <algorithm>
#include <cstdlib>

namespace nnemu::synap::kernels {
namespace {

// The weight (minus its zero point) of tap t, channel c.
int32_t weightOf(const DepthwiseSpec& s, uint32_t t, uint32_t c) {
    const uint8_t byte = s.weights[size_t{t} * s.channels + c];
    return (s.signedValues ? static_cast<int8_t>(byte) : byte) - s.filterZeroPoint;
}

// Signed bytes whose sum is each weight: 1 set for int8 weights, up to 3 for uint8 ones.
uint32_t weightSetsOf(const DepthwiseSpec& s) {
    uint32_t sets = 1;
    for (uint32_t c = 0; c < s.channels; ++c) {
        for (uint32_t t = 0; t < 9; ++t) {
            const int32_t w = weightOf(s, t, c);
            sets = std::max(sets, w >= -128 && w <= 127 ? 1u : (w >= -256 && w <= 254 ? 2u : 3u));
        }
    }
    return sets;
}

// Where channel c's constants sit in the folded layout: the kernel's byte unpacks leave, in
// each whole group of 64 channels, channel 16k + 4j + l (of the group) in lane 4k + l of vector
// j, so slot 16j + 4k + l; in a group of 32 after them, in lane 4m + l of vector v where
// j = 2v + m / 2, k = m % 2. The channels after the groups keep their order.
size_t slotOf(size_t c, size_t channels) {
    const size_t whole = channels / 64 * 64, half = channels - whole >= 32 ? whole + 32 : whole;
    if (c >= half) return c;
    const size_t first = c < whole ? c / 64 * 64 : whole, i = c - first, k = i / 16, j = i % 16 / 4, l = i % 4;
    if (c < whole) return first + 16 * j + 4 * k + l;
    return first + 16 * (j / 2) + 4 * (2 * (j % 2) + k) + l;
}

// The VNNI kernel's folded layout (DepthwiseArgs.h), when no step of the requantization can
// saturate and |accumulator + bias| < 2^30 leaves room for the output zero point in the nudges.
void packFolded(const DepthwiseSpec& s, PackedDepthwise* p) {
    if (!p->requant.fast) return;
    const size_t padded = p->requant.padded;
    p->weightSets = weightSetsOf(s);
    p->quadWeights.assign(padded / kGemmBlock * p->weightSets * 3 * 64, 0);
    p->initial.assign(padded, 0);
    p->blockSets.assign(padded / kGemmBlock, 1);
    RequantTable slotted(s.channels);  // the multipliers and shifts, in slot order
    for (uint32_t c = 0; c < s.channels; ++c) {
        const size_t slot = slotOf(c, s.channels), block = slot / kGemmBlock;
        int64_t sum = 0, largest = 0;
        for (uint32_t t = 0; t < 9; ++t) {
            int32_t rest = weightOf(s, t, c);
            sum += rest;
            largest = std::max<int64_t>(largest, std::abs(rest));
            for (uint32_t set = 0; set < p->weightSets; ++set) {
                const int32_t part = std::clamp(rest, -128, 127);
                rest -= part;
                if (part != 0) p->blockSets[block] = std::max<uint8_t>(p->blockSets[block], set + 1);
                p->quadWeights[((block * p->weightSets + set) * 3 + t % 3) * 64 + slot % kGemmBlock * 4 + t / 3] =
                        static_cast<int8_t>(part);
            }
        }
        if (9 * largest * largestActivation(s.signedValues, s.inputZeroPoint) + std::abs(int64_t{s.bias[c]}) >=
            (int64_t{1} << 30)) {
            return;
        }
        // Unsigned activations enter as they are; int8 ones as x + 128.
        const int64_t constant = int64_t{s.bias[c]} - (s.inputZeroPoint + (s.signedValues ? 128 : 0)) * sum;
        p->initial[slot] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(constant)));
        const float filterScale = s.filterScales[s.filterScales.size() == 1 ? 0 : c];
        if (!slotted.set(static_cast<uint32_t>(slot), s.inputScale, filterScale, s.outputScale, 0, 0, 0)) return;
    }
    p->folded = slotted.fastBlocks;
    for (FastRequantBlock& block : p->folded) {
        for (int parity = 0; parity < 2; ++parity) {
            for (int lane = 0; lane < 8; ++lane) {
                const int64_t zero = int64_t{s.outputZeroPoint} << block.shift[parity][lane];
                block.positive[parity][lane] += zero;
                block.negative[parity][lane] += zero;
            }
        }
    }
}

}  // namespace

DepthwiseAvx2Layout packDepthwiseAvx2(const PackedDepthwise& p) {
    DepthwiseAvx2Layout layout;
    const size_t padded = p.requant.padded;
    layout.pairWeights.assign(padded / kGemmBlock * 2 * 3 * 2 * 16, 0);
    for (size_t c = 0; c < p.spec.channels; ++c) {
        const int32_t* w = p.weights.data() + c / kGemmBlock * 9 * kGemmBlock + c % kGemmBlock;
        const size_t block = c / kGemmBlock, half = c % kGemmBlock / 8, lane = c % 8;
        for (size_t kx = 0; kx < 3; ++kx) {
            int16_t* pair = layout.pairWeights.data() + ((block * 2 + half) * 3 + kx) * 2 * 16 + 2 * lane;
            pair[0] = static_cast<int16_t>(w[kx * kGemmBlock]);
            pair[1] = static_cast<int16_t>(w[(3 + kx) * kGemmBlock]);
            pair[16] = static_cast<int16_t>(w[(6 + kx) * kGemmBlock]);
        }
    }
    if (!p.requant.fast) return layout;
    layout.folded = p.requant.fastBlocks;
    layout.initial.assign(p.requant.arrays.begin() + 5 * padded, p.requant.arrays.begin() + 6 * padded);
    layout.post.assign(padded, 0);
    constexpr uint64_t kSign = uint64_t{1} << 63;
    const auto plusSign = [](int64_t& nudge) { nudge = static_cast<int64_t>(static_cast<uint64_t>(nudge) + kSign); };
    for (size_t b = 0; b < layout.folded.size(); ++b) {
        FastRequantBlock& block = layout.folded[b];
        for (int parity = 0; parity < 2; ++parity) {
            for (int lane = 0; lane < 8; ++lane) {
                plusSign(block.positive[parity][lane]);
                plusSign(block.negative[parity][lane]);
                const auto offset = static_cast<uint32_t>(kSign >> block.shift[parity][lane]);
                const auto zero = static_cast<uint32_t>(p.spec.outputZeroPoint);
                layout.post[b * kGemmBlock + 2 * lane + parity] = static_cast<int32_t>(zero - offset);
            }
        }
    }
    return layout;
}

bool packDepthwise(const DepthwiseSpec& s, PackedDepthwise* packed) {
    if (s.channels == 0 || s.weights == nullptr || s.bias == nullptr || !(s.outputScale > 0.0f) || s.low > s.high) {
        return false;
    }
    if ((s.filterScales.size() != 1 && s.filterScales.size() != s.channels) || (s.stride != 1 && s.stride != 2)) {
        return false;
    }
    packed->spec = s;
    packed->weights.assign(packed->requant.padded * 9, 0);
    // A whole input row of zero points: stands for the rows above and below the input.
    packed->zeroRow.assign(std::max<size_t>(packed->requant.padded, size_t{s.inWidth} * s.channels + kGemmBlock),
                           static_cast<uint8_t>(s.inputZeroPoint));
    for (uint32_t c = 0; c < s.channels; ++c) {
        int64_t sum = 0, largest = 0;
        for (uint32_t t = 0; t < 9; ++t) {
            const uint8_t byte = s.weights[size_t{t} * s.channels + c];
            const int32_t w = (s.signedValues ? static_cast<int8_t>(byte) : byte) - s.filterZeroPoint;
            sum += w;
            largest = std::max<int64_t>(largest, std::abs(w));
            packed->weights[(c / kGemmBlock * 9 + t) * kGemmBlock + c % kGemmBlock] = static_cast<uint16_t>(w);
        }
        const int64_t largestSum = 9 * largest * largestActivation(s.signedValues, s.inputZeroPoint);
        const float filterScale = s.filterScales[s.filterScales.size() == 1 ? 0 : c];
        if (!packed->requant.set(c, s.inputScale, filterScale, s.outputScale, s.bias[c], -s.inputZeroPoint * sum,
                                 largestSum)) {
            return false;
        }
    }
    packFolded(s, packed);
    packed->avx2 = packDepthwiseAvx2(*packed);
    // What runs needs the geometry and quantization alone: drop the caller's buffers.
    packed->spec.weights = nullptr;
    packed->spec.bias = nullptr;
    packed->spec.filterScales = {};
    return true;
}

void keepDepthwiseFor(Isa runs, PackedDepthwise* packed) {
    const Isa isa = baseIsa(runs);
    if (isa != Isa::Avx2) packed->avx2 = {};
    if (isa == Isa::Avx2) {
        std::vector<int32_t>().swap(packed->weights);
        std::vector<int8_t>().swap(packed->quadWeights);
        std::vector<uint8_t>().swap(packed->blockSets);
        std::vector<int32_t>().swap(packed->initial);
        std::vector<FastRequantBlock>().swap(packed->folded);
        return;
    }
    if (isa != Isa::Avx512Vnni || packed->folded.empty()) return;
    std::vector<int32_t>().swap(packed->weights);
    std::vector<int32_t>().swap(packed->requant.arrays);
    std::vector<FastRequantBlock>().swap(packed->requant.fastBlocks);
}

DepthwiseArgs depthwiseArgsOf(const DepthwiseSpec& s) {
    DepthwiseArgs args{};
    args.requant.channels = s.channels;
    args.requant.outputZeroPoint = s.outputZeroPoint;
    args.requant.low = s.low;
    args.requant.high = s.high;
    args.inHeight = s.inHeight;
    args.inWidth = s.inWidth;
    args.outHeight = s.outHeight;
    args.outWidth = s.outWidth;
    args.stride = s.stride;
    args.padTop = s.padTop;
    args.padLeft = s.padLeft;
    args.signedInput = s.signedValues;
    args.rowEnd = size_t{s.batches} * s.outHeight;
    return args;
}

DepthwiseArgs depthwiseArgsOf(const PackedDepthwise& p) {
    DepthwiseArgs args = depthwiseArgsOf(p.spec);
    if (!p.requant.arrays.empty()) {  // (the folded layout reads none of it)
        RequantTable::point(&args.requant, p.requant.arrays.data(), p.requant.padded,
                            p.requant.fast ? p.requant.fastBlocks.data() : nullptr);
    }
    args.zeroRow = p.zeroRow.data();
    args.weights = p.weights.data();
    if (!p.folded.empty()) {
        args.quadWeights = p.quadWeights.data();
        args.weightSets = p.weightSets;
        args.blockSets = p.blockSets.data();
        args.initial = p.initial.data();
        args.folded = p.folded.data();
    }
    if (!p.avx2.pairWeights.empty()) {
        args.pairWeights = p.avx2.pairWeights.data();
        if (!p.avx2.folded.empty()) {
            args.avx2Folded = p.avx2.folded.data();
            args.avx2Initial = p.avx2.initial.data();
            args.avx2Post = p.avx2.post.data();
        }
    }
    return args;
}

void runDepthwise(Isa isa, const PackedDepthwise& p, const uint8_t* input, uint8_t* output, size_t rowBegin,
                  size_t rowEnd) {
    runDepthwise(isa, depthwiseArgsOf(p), input, output, rowBegin, rowEnd);
}

void runDepthwise(Isa isa, const DepthwiseArgs& prepared, const uint8_t* input, uint8_t* output, size_t rowBegin,
                  size_t rowEnd) {
    DepthwiseArgs args = prepared;
    args.input = input;
    args.requant.output = output;
    args.rowBegin = rowBegin;
    args.rowEnd = std::min(rowEnd, prepared.rowEnd);  // the prepared arguments' rowEnd: all rows
    if (args.rowBegin >= args.rowEnd) return;
    if (isa == Isa::AvxVnni && args.pairWeights != nullptr) {
        depthwiseAvxVnni(args);
    } else if (isa == Isa::Avx2 && args.pairWeights != nullptr) {
        depthwiseAvx2(args);
    } else if (isa == Isa::Avx512Vnni) {
        depthwiseAvx512Vnni(args);
    } else {
        depthwisePortable(args);
    }
}

}  // namespace nnemu::synap::kernels
