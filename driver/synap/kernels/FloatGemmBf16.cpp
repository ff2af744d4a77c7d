#include "FloatGemmBf16.h"


#include "Isa.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace nnemu::synap::kernels {
namespace {

constexpr uint32_t kMagic = 0x4d474642;  // "BFGM"
constexpr size_t kHeaderBytes = 64;
// A block: 16 float32 biases, then per pair of input channels 16 x 2 bf16 weights: 64 bytes each.
constexpr size_t kUnitBytes = 64;
static_assert(kFloatGemmBlock * sizeof(float) == kUnitBytes && kFloatGemmBlock * 2 * sizeof(uint16_t) == kUnitBytes);

struct Header {
    uint32_t magic, version, depth, channels;
};

size_t pairsOf(size_t depth) { return (depth + 1) / 2; }
size_t blockBytes(size_t depth) { return kUnitBytes * (1 + pairsOf(depth)); }

// Rows per kernel call, and the input rows converted to bf16 at a time (about 256 KB of them, at
// least one call's worth): a tile's rows are converted once, not once per block of channels.
constexpr size_t kRows = kFloatGemmBf16Rows;
size_t rowsPerChunk(size_t depth) {
    return std::max(kRows, (256 * 1024 / (pairsOf(depth) * sizeof(uint32_t))) / kRows * kRows);
}

bool readHeader(std::span<const uint8_t> packed, Header* header) {
    if (packed.size() < kHeaderBytes || reinterpret_cast<uintptr_t>(packed.data()) % alignof(float) != 0) return false;
    std::memcpy(header, packed.data(), sizeof *header);
    if (header->magic != kMagic || header->version != kFloatGemmBf16LayoutVersion || header->depth == 0 ||
        header->channels == 0) {
        return false;
    }
    const size_t blocks = (size_t{header->channels} + kFloatGemmBlock - 1) / kFloatGemmBlock;
    return packed.size() == kHeaderBytes + blocks * blockBytes(header->depth);
}

}  // namespace

bool hasFloatGemmBf16() {
    static const bool has = bestIsa() == Isa::Avx512Vnni && __builtin_cpu_supports("avx512bf16");
    return has;
}

uint16_t toBf16(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if (value != value) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN, sign kept
    const uint32_t roundingBias = 0x7fff + ((bits >> 16) & 1);         // to nearest, ties to even
    return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

float fromBf16(uint16_t value) { return std::bit_cast<float>(uint32_t{value} << 16); }

bool packFloatGemmBf16(const FloatGemmSpec& spec, std::vector<uint8_t>* packed) {
    if (spec.depth == 0 || spec.channels == 0 || spec.weights == nullptr) return false;
    const size_t blocks = (spec.channels + kFloatGemmBlock - 1) / kFloatGemmBlock;
    const size_t bytes = blocks * blockBytes(spec.depth);
    if (bytes > std::numeric_limits<uint32_t>::max()) return false;
    packed->assign(kHeaderBytes + bytes, 0);
    const Header header{kMagic, kFloatGemmBf16LayoutVersion, spec.depth, spec.channels};
    std::memcpy(packed->data(), &header, sizeof header);
    for (size_t c = 0; c < spec.channels; ++c) {
        uint8_t* block = packed->data() + kHeaderBytes + (c / kFloatGemmBlock) * blockBytes(spec.depth);
        const size_t lane = c % kFloatGemmBlock;
        if (spec.bias != nullptr) std::memcpy(block + lane * sizeof(float), spec.bias + c * sizeof(float), sizeof(float));
        for (size_t k = 0; k < spec.depth; ++k) {
            float w;
            std::memcpy(&w, spec.weights + (c * spec.depth + k) * sizeof(float), sizeof w);
            const uint16_t h = toBf16(w);
            std::memcpy(block + kUnitBytes * (1 + k / 2) + (2 * lane + k % 2) * sizeof(uint16_t), &h, sizeof h);
        }
    }
    return true;
}

bool checkPackedFloatGemmBf16(std::span<const uint8_t> packed, uint32_t depth, uint32_t channels) {
    Header header;
    return readHeader(packed, &header) && header.depth == depth && header.channels == channels;
}

bool unpackFloatGemmBf16(std::span<const uint8_t> packed, std::vector<uint8_t>* weights) {
    Header header;
    if (!readHeader(packed, &header)) return false;
    weights->resize(size_t{header.channels} * header.depth * sizeof(float));
    for (size_t c = 0; c < header.channels; ++c) {
        const uint8_t* block = packed.data() + kHeaderBytes + (c / kFloatGemmBlock) * blockBytes(header.depth);
        for (size_t k = 0; k < header.depth; ++k) {
            uint16_t h;
            std::memcpy(&h, block + kUnitBytes * (1 + k / 2) + (2 * (c % kFloatGemmBlock) + k % 2) * sizeof h, sizeof h);
            const float w = fromBf16(h);
            std::memcpy(weights->data() + (c * header.depth + k) * sizeof(float), &w, sizeof w);
        }
    }
    return true;
}

Bf16Kernel bestBf16Kernel() {
    static const Bf16Kernel best = amxBf16Usable() ? Bf16Kernel::Amx : Bf16Kernel::Avx512;
    return best;
}

const char* bf16KernelName(Bf16Kernel kernel) { return kernel == Bf16Kernel::Amx ? "amx" : "avx512bf16"; }

void runFloatGemmBf16Tile(std::span<const uint8_t> packed, const float* input, float* output, float low, float high,
                          size_t rowBegin, size_t rowEnd, size_t channelBegin, size_t channelEnd,
                          std::vector<uint32_t>* scratch) {
    runFloatGemmBf16Tile(bestBf16Kernel(), packed, input, output, low, high, rowBegin, rowEnd, channelBegin, channelEnd,
                         scratch);
}

void runFloatGemmBf16Tile(Bf16Kernel kernel, std::span<const uint8_t> packed, const float* input, float* output,
                          float low, float high, size_t rowBegin, size_t rowEnd, size_t channelBegin,
                          size_t channelEnd, std::vector<uint32_t>* scratch) {
    Header header;
    std::memcpy(&header, packed.data(), sizeof header);
    channelEnd = std::min<size_t>(channelEnd, header.channels);
    if (rowBegin >= rowEnd || channelBegin >= channelEnd) return;
    if (kernel == Bf16Kernel::Amx) {
        runFloatGemmBf16TileAmx(packed.data() + kHeaderBytes, header.depth, header.channels, input, output, low, high,
                                rowBegin, rowEnd, channelBegin, channelEnd, scratch);
        return;
    }
    const size_t pairs = pairsOf(header.depth), chunk = rowsPerChunk(header.depth);
    FloatGemmBf16Args a{};
    a.inputStride = pairs;
    a.blockStride = blockBytes(header.depth);
    a.outputStride = header.channels;
    a.pairs = pairs;
    a.low = low;
    a.high = high;
    for (size_t first = rowBegin; first < rowEnd; first += chunk) {
        const size_t last = std::min(rowEnd, first + chunk);
        if (scratch->size() < (last - first) * pairs) scratch->resize(chunk * pairs);
        toBf16PairsAvx512(input + first * header.depth, header.depth, last - first, header.depth, scratch->data());
        for (size_t c = channelBegin; c < channelEnd; c += 2 * kFloatGemmBlock) {
            const size_t end = std::min(channelEnd, c + 2 * kFloatGemmBlock);
            a.blocks = (end - c + kFloatGemmBlock - 1) / kFloatGemmBlock;
            a.lastCount = end - c - (a.blocks - 1) * kFloatGemmBlock;
            a.weights = packed.data() + kHeaderBytes + (c / kFloatGemmBlock) * a.blockStride;
            for (size_t r = first; r < last; r += kRows) {
                a.rows = std::min(kRows, last - r);
                a.input = scratch->data() + (r - first) * pairs;
                a.output = output + r * a.outputStride + c;
                floatGemmBf16Avx512(a);
            }
        }
    }
}

}  // namespace nnemu::synap::kernels
