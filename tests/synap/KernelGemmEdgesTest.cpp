// Property tests of the own int8 GEMM's requantization at its edges, against QuantMath.h's
// reference steps, on every kernel this CPU runs (the AMX-INT8 one on every shape): multipliers
// at both ends of Q31 and between, right shifts from 0 to 24, ties (a multiplier of exactly 2^30),
// negative accumulators, accumulators at the ends of their range (rows and weights all at the
// int8 extremes), zero points and clamps anywhere, and output values before the clamp that end
// just inside or just outside int16, where the AMX kernel's epilogue switches between its 16-bit
// fields and its 32-bit values (GemmAvx512Fields.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "KernelTestSupport.h"
#include "kernels/GemmArgs.h"
#include "kernels/Isa.h"
#include "kernels/Requant.h"

namespace nnemu::synap::kernels {
namespace {

struct Layer {
    uint32_t rows = 0, depth = 0, channels = 0;
    int32_t inputZero = 0, outputZero = 0, low = -128, high = 127;
    std::vector<int8_t> input, weights;            // [rows][depth], [channels][depth]
    std::vector<int32_t> bias, multiplier, shift;  // shift: quantizeMultiplier's exponent, <= 0
};

int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

Layer randomLayer(std::mt19937& rng) {
    Layer l;
    l.rows = static_cast<uint32_t>(uniform(rng, 1, 70));
    l.depth = 4 * static_cast<uint32_t>(uniform(rng, 1, 32));
    l.channels = static_cast<uint32_t>(uniform(rng, 1, 70));
    l.inputZero = uniform(rng, 0, 3) == 0 ? (uniform(rng, 0, 1) != 0 ? 127 : -128) : uniform(rng, -128, 127);
    l.outputZero = uniform(rng, 0, 3) == 0 ? (uniform(rng, 0, 1) != 0 ? 127 : -128) : uniform(rng, -128, 127);
    switch (uniform(rng, 0, 2)) {
        case 0: break;                                                  // the whole range
        case 1: l.low = l.outputZero; l.high = uniform(rng, l.low, 127); break;  // ReLU-like
        default: l.low = uniform(rng, -128, 127); l.high = uniform(rng, l.low, 127); break;
    }
    // Extreme layers: every row and every channel's weights all at one int8 end, the input zero
    // point at one too: accumulators at the ends of their range (depth * 255 * 128 from the start).
    const bool extreme = uniform(rng, 0, 2) == 0;
    auto end = [&] { return static_cast<int8_t>(uniform(rng, 0, 1) != 0 ? 127 : -128); };
    if (extreme) l.inputZero = end();
    l.input.resize(size_t{l.rows} * l.depth);
    l.weights.resize(size_t{l.channels} * l.depth);
    for (size_t at = 0; at < l.input.size(); at += l.depth) {
        const int8_t row = end();
        for (size_t k = 0; k < l.depth; ++k) l.input[at + k] = extreme ? row : static_cast<int8_t>(uniform(rng, -128, 127));
    }
    for (size_t at = 0; at < l.weights.size(); at += l.depth) {
        const int8_t channel = end();
        for (size_t k = 0; k < l.depth; ++k) l.weights[at + k] = extreme ? channel : static_cast<int8_t>(uniform(rng, -128, 127));
    }
    const int biasRange = std::array<int, 4>{0, 1000, 100000, 1 << 24}[uniform(rng, 0, 3)];
    for (uint32_t c = 0; c < l.channels; ++c) {
        const int32_t bias = uniform(rng, -biasRange, biasRange);
        int32_t multiplier = 0;
        switch (uniform(rng, 0, 3)) {
            case 0: multiplier = 1 << 30; break;  // 0.5: ties
            case 1: multiplier = INT32_MAX; break;
            default: multiplier = uniform(rng, 1 << 30, INT32_MAX); break;
        }
        int right = uniform(rng, 0, 24);
        if (uniform(rng, 0, 1) == 0) {
            // Where the largest value before the clamp the accumulators could give (|bias + column
            // term| + depth * 255 * 128, times the multiplier) is about 2^15.
            int64_t sum = 0;
            for (uint32_t k = 0; k < l.depth; ++k) sum += l.weights[size_t{c} * l.depth + k];
            const int64_t largest = std::llabs(bias - (128 + int64_t{l.inputZero}) * sum) + int64_t{l.depth} * 255 * 128;
            const double scaled = static_cast<double>(largest) * multiplier / 2147483648.0;
            right = std::clamp(static_cast<int>(std::floor(std::log2(scaled / 32765.0))) + uniform(rng, -1, 1), 0, 24);
        }
        l.bias.push_back(bias);
        l.multiplier.push_back(multiplier);
        l.shift.push_back(-right);
    }
    return l;
}

std::vector<uint8_t> reference(const Layer& l) {
    std::vector<uint8_t> out(size_t{l.rows} * l.channels);
    for (uint32_t r = 0; r < l.rows; ++r) {
        for (uint32_t c = 0; c < l.channels; ++c) {
            int64_t x = l.bias[c];
            for (uint32_t k = 0; k < l.depth; ++k) {
                x += (int64_t{l.input[size_t{r} * l.depth + k]} - l.inputZero) * l.weights[size_t{c} * l.depth + k];
            }
            const int32_t v = quant::multiplyByQuantizedMultiplier(static_cast<int32_t>(x), l.multiplier[c], l.shift[c]);
            out[size_t{r} * l.channels + c] = static_cast<uint8_t>(std::clamp(v + l.outputZero, l.low, l.high));
        }
    }
    return out;
}

// The layer as the kernels read it (GemmArgs.h): weights [blocks][depth groups][16][4], the
// column terms of int8 rows (their flip to unsigned: -(128 + input zero point) * sum(weights)).
struct Packed {
    RequantTable table;
    std::vector<int8_t> weights;
    GemmArgs args{};

    Packed(const Layer& l, std::vector<uint8_t>& out)
        : table(l.channels), weights((l.channels + kGemmBlock - 1) / kGemmBlock * kGemmBlock * l.depth) {
        const size_t groups = l.depth / 4;
        for (uint32_t c = 0; c < l.channels; ++c) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < l.depth; ++k) {
                const int8_t w = l.weights[size_t{c} * l.depth + k];
                sum += w;
                weights[c / kGemmBlock * groups * 64 + k / 4 * 64 + c % kGemmBlock * 4 + k % 4] = w;
            }
            const int64_t largestSum = int64_t{l.depth} * largestActivation(true, l.inputZero) * 128;
            table.setQuantized(c, l.multiplier[c], l.shift[c], l.bias[c], -(128 + int64_t{l.inputZero}) * sum,
                               largestSum);
        }
        args.rows = reinterpret_cast<const uint8_t*>(l.input.data());
        args.rowStride = l.depth;
        args.rowCount = l.rows;
        args.weights = weights.data();
        args.depthGroups = groups;
        args.channels = l.channels;
        args.outputZeroPoint = l.outputZero;
        args.low = l.low;
        args.high = l.high;
        args.output = out.data();
        args.outputStride = l.channels;
        args.signedValues = true;
        RequantTable::point(&args, table.arrays.data(), table.padded, table.fast ? table.fastBlocks.data() : nullptr);
    }
};

std::vector<std::pair<std::string, void (*)(const GemmArgs&)>> kernels() {
    std::vector<std::pair<std::string, void (*)(const GemmArgs&)>> all;
    for (Isa isa : supportedIsas()) {
        if (isa == Isa::Portable) all.emplace_back("portable", gemmPortable);
        if (isa == Isa::Avx2) all.emplace_back("avx2", gemmAvx2);
        if (isa == Isa::AvxVnni) all.emplace_back("avxvnni", gemmAvxVnni);
        if (isa == Isa::Avx512Vnni) all.emplace_back("avx512vnni", gemmAvx512Vnni);
    }
    if (amxInt8Usable()) all.emplace_back("amx-int8", gemmAmxInt8);
    return all;
}

TEST(KernelGemmEdges, MatchTheReferenceRequantization) {
    std::mt19937 rng(2026);
    for (int iteration = 0; iteration < 400; ++iteration) {
        const Layer l = randomLayer(rng);
        const std::vector<uint8_t> expected = reference(l);
        for (const auto& [name, kernel] : kernels()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            Packed p(l, out);
            kernel(p.args);
            ASSERT_EQ(out, expected) << name << " iteration " << iteration << ": rows " << l.rows << " depth "
                                     << l.depth << " channels " << l.channels << " output zero point "
                                     << l.outputZero << " clamp [" << l.low << ", " << l.high << "]";
        }
    }
}

// The check of requantization tables read from a program file (soundRequant) takes exactly the
// ranges the kernels take, at each end, in any channel and in the blocks' padding lanes.
TEST(KernelGemmEdges, RequantTablesFromAProgramAreCheckedAtTheirRanges) {
    RequantTable table(20);  // two blocks, the second with 12 padding lanes
    for (uint32_t c = 0; c < 20; ++c) table.setQuantized(c, c % 2 ? INT32_MAX : 1 << 30, -static_cast<int>(c), 0, 0, 0);
    const auto sound = [&](const RequantTable& t) {
        return soundRequant(t.arrays.data(), t.padded, t.fastBlocks.data(), t.fastBlocks.size());
    };
    ASSERT_TRUE(sound(table));
    constexpr int64_t kWide[] = {-1, INT64_MIN, INT64_MAX, int64_t{1} << 31, int64_t{1} << 32};
    for (const size_t c : {size_t{0}, size_t{19}, size_t{31}}) {
        const size_t block = c / kGemmBlock, parity = c % 2, lane = c % kGemmBlock / 2;
        for (const auto& [array, value, ok] : {std::tuple{2, INT32_MAX, true}, {2, -1, false}, {2, INT32_MIN, false},
                                              {3, 31, true}, {3, 32, false}, {3, -1, false}, {4, 0, true},
                                              {4, 31, true}, {4, 32, false}, {4, INT32_MIN, false}}) {
            RequantTable t = table;
            t.arrays[array * t.padded + c] = value;
            EXPECT_EQ(sound(t), ok) << "channel " << c << " array " << array << " value " << value;
        }
        for (const int64_t shift : {int64_t{0}, int64_t{62}, int64_t{63}, int64_t{64}, kWide[0], kWide[1], kWide[2]}) {
            RequantTable t = table;
            t.fastBlocks[block].shift[parity][lane] = shift;
            EXPECT_EQ(sound(t), shift >= 0 && shift <= 62) << "channel " << c << " shift " << shift;
        }
        for (const int64_t multiplier : {int64_t{0}, int64_t{INT32_MAX}, kWide[0], kWide[1], kWide[2], kWide[3], kWide[4]}) {
            RequantTable t = table;
            t.fastBlocks[block].multiplier[parity][lane] = multiplier;
            EXPECT_EQ(sound(t), multiplier >= 0 && multiplier <= INT32_MAX) << "channel " << c << " multiplier " << multiplier;
        }
    }
}

}  // namespace
}  // namespace nnemu::synap::kernels
