// Packing and running the quantized GEMM. Every kernel computes dot(u8 row, s8 weights): uint8
// weights are stored flipped to int8 (w - 128) and int8 activations are flipped to uint8
// (a + 128); the sums those flips and the zero points add are folded into a per-row and a
// per-channel term:
//   uint8: sum (a - za)(w - zw) = dot(a, w - 128) + (128 - zw) sum(a) - za sum(w) + K za zw
//   int8:  sum (a - za) w       = dot(a + 128, w) - (128 + za) sum(w)
#include "QuantGemm.h"

#include <cmath>
#include <cstring>

#include "GemmArgs.h"
#include "Requant.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::kernels {
namespace {

constexpr uint32_t kMagic = 0x4d454751;  // "QGEM"
// Beyond this depth a 255 x 255 product sum may leave int32 (the reference would overflow).
constexpr uint32_t kMaxDepth = 33025;

struct Header {
    uint32_t magic, version, depth, depthGroups, channels, paddedChannels;
    int32_t signedValues, rowFactor, outputZeroPoint, low, high, fast;
};
constexpr size_t kArrays = RequantTable::kArrays;

size_t alignUp(size_t offset) { return (offset + 63) / 64 * 64; }

// Header, the per-channel arrays, the FastRequantBlocks, the weights; 64-byte aligned parts.
size_t fastBlocksOffset(size_t paddedChannels) {
    return alignUp(sizeof(Header) + kArrays * paddedChannels * sizeof(int32_t));
}

size_t weightsOffset(size_t paddedChannels) {
    return fastBlocksOffset(paddedChannels) + paddedChannels / kGemmBlock * sizeof(FastRequantBlock);
}

size_t packedSize(const Header& h) {
    return weightsOffset(h.paddedChannels) + size_t{h.paddedChannels} * h.depthGroups * 4;
}

void (*kernelOf(Isa isa))(const GemmArgs&) {
    switch (isa) {
        case Isa::Avx512Vnni: return amxInt8Usable() ? gemmAvx512Amx : gemmAvx512Vnni;
        case Isa::AvxVnni: return gemmAvxVnni;
        case Isa::Avx2: return gemmAvx2;
        default: return gemmPortable;
    }
}

}  // namespace

bool packQuantGemm(const QuantGemmSpec& s, std::vector<uint8_t>* packed) {
    if (s.depth == 0 || s.depth > kMaxDepth || s.channels == 0 || s.weights == nullptr || s.bias == nullptr) return false;
    if (s.filterScales.size() != 1 && s.filterScales.size() != s.channels) return false;
    if (!(s.outputScale > 0.0f) || s.low > s.high || (s.signedValues && s.filterZeroPoint != 0)) return false;
    Header h{kMagic, kQuantGemmLayoutVersion, s.depth, (s.depth + 3) / 4, s.channels,
             static_cast<uint32_t>((s.channels + kGemmBlock - 1) / kGemmBlock * kGemmBlock),
             s.signedValues, s.signedValues ? 0 : 128 - s.filterZeroPoint, s.outputZeroPoint, s.low, s.high, 1};
    packed->assign(packedSize(h), 0);
    RequantTable table(s.channels);
    auto* weights = reinterpret_cast<int8_t*>(packed->data() + weightsOffset(h.paddedChannels));
    const uint8_t flip = s.signedValues ? 0 : 0x80;  // uint8 weights are stored as w - 128
    const uint32_t depth = s.depth, groups = h.depthGroups;   // (locals: the stores below may alias s)
    const int32_t filterZeroPoint = s.signedValues ? 0 : s.filterZeroPoint;
    for (uint32_t c = 0; c < s.channels; ++c) {
        const uint8_t* row = s.weights + size_t{c} * depth;
        int32_t sum = 0, largest = 0;  // depth <= kMaxDepth: 32 bits hold them
        for (uint32_t k = 0; k < depth; ++k) {
            const int32_t value = s.signedValues ? int32_t{static_cast<int8_t>(row[k])} : int32_t{row[k]};
            sum += value;
            largest = std::max(largest, std::abs(value - filterZeroPoint));
        }
        const int64_t weightSum = sum, largestWeight = largest;
        // Groups of 4 depths, 64 bytes apart: 4 bytes of each of the block's 16 channels.
        int8_t* column = weights + size_t{c / kGemmBlock} * groups * 64 + (c % kGemmBlock) * 4;
        for (uint32_t k = 0; k < depth; ++k) column[k / 4 * 64 + k % 4] = static_cast<int8_t>(row[k] ^ flip);
        const int64_t term = s.signedValues ? -(128 + int64_t{s.inputZeroPoint}) * weightSum
                                            : -int64_t{s.inputZeroPoint} * weightSum +
                                                      int64_t{s.depth} * s.inputZeroPoint * s.filterZeroPoint;
        const int64_t largestSum = int64_t{s.depth} * largestActivation(s.signedValues, s.inputZeroPoint) * largestWeight;
        const float filterScale = s.filterScales[s.filterScales.size() == 1 ? 0 : c];
        if (!table.set(c, s.inputScale, filterScale, s.outputScale, s.bias[c], term, largestSum)) return false;
    }
    h.fast = table.fast;
    std::memcpy(packed->data(), &h, sizeof(h));
    std::memcpy(packed->data() + sizeof(Header), table.arrays.data(), table.arrays.size() * sizeof(int32_t));
    std::memcpy(packed->data() + fastBlocksOffset(h.paddedChannels), table.fastBlocks.data(),
                table.fastBlocks.size() * sizeof(FastRequantBlock));
    return true;
}

bool prepareQuantGemm(Isa isa, std::span<const uint8_t> packed, const uint8_t* input, size_t rows, uint8_t* output,
                      QuantGemmScratch* scratch, QuantGemmJob* job) {
    Header h;
    if (packed.size() < sizeof(Header)) return false;
    std::memcpy(&h, packed.data(), sizeof(h));
    if (h.magic != kMagic || h.version != kQuantGemmLayoutVersion || packed.size() != packedSize(h)) return false;
    const size_t stride = size_t{h.depthGroups} * 4;
    // Rows of a depth that fills its 4-byte groups are read where they are (the kernels flip
    // int8 ones); others are copied, padded with zeros.
    const bool direct = stride == h.depth;
    if (!direct) {
        scratch->rows.resize(rows * stride);
        for (size_t r = 0; r < rows; ++r) {
            uint8_t* row = scratch->rows.data() + r * stride;
            std::memcpy(row, input + r * h.depth, h.depth);
            std::memset(row + h.depth, 0, stride - h.depth);
        }
    }
    const auto* arrays = reinterpret_cast<const int32_t*>(packed.data() + sizeof(Header));
    const size_t n = h.paddedChannels;
    GemmArgs args{};
    args.rows = direct ? input : scratch->rows.data();
    args.rowStride = stride;
    args.rowCount = rows;
    args.rowTerms = nullptr;  // the kernels sum the rows (uint8; int8 has no row term)
    args.rowFactor = h.rowFactor;
    args.signedValues = h.signedValues != 0;
    args.weights = reinterpret_cast<const int8_t*>(packed.data() + weightsOffset(n));
    args.depthGroups = h.depthGroups;
    args.channels = h.channels;
    args.outputZeroPoint = h.outputZeroPoint;
    args.low = h.low;
    args.high = h.high;
    args.output = output;
    args.outputStride = h.channels;
    RequantTable::point(&args, arrays, n,
                        h.fast ? reinterpret_cast<const FastRequantBlock*>(packed.data() + fastBlocksOffset(n)) : nullptr);
    *job = {args, kernelOf(isa)};
    return true;
}

bool unpackQuantGemm(std::span<const uint8_t> packed, std::vector<uint8_t>* weights) {
    Header h;
    if (packed.size() < sizeof(Header)) return false;
    std::memcpy(&h, packed.data(), sizeof(h));
    if (h.magic != kMagic || h.version != kQuantGemmLayoutVersion || h.depth == 0 || h.depth > kMaxDepth ||
        h.depthGroups != (h.depth + 3) / 4 ||
        h.channels > h.paddedChannels || h.paddedChannels % kGemmBlock != 0 || packed.size() != packedSize(h)) {
        return false;
    }
    const auto* packedWeights = reinterpret_cast<const int8_t*>(packed.data() + weightsOffset(h.paddedChannels));
    weights->resize(size_t{h.channels} * h.depth);
    for (uint32_t c = 0; c < h.channels; ++c) {
        const int8_t* block = packedWeights + size_t{c / kGemmBlock} * h.depthGroups * 64 + (c % kGemmBlock) * 4;
        uint8_t* row = weights->data() + size_t{c} * h.depth;
        for (uint32_t k = 0; k < h.depth; ++k) {
            const auto value = static_cast<uint8_t>(block[k / 4 * 64 + k % 4]);
            row[k] = h.signedValues ? value : value ^ 0x80;  // uint8 weights are stored flipped
        }
    }
    return true;
}

bool checkPackedQuantGemm(std::span<const uint8_t> packed, uint32_t depth, uint32_t channels, bool signedValues) {
    Header h;
    if (packed.size() < sizeof(Header) || reinterpret_cast<uintptr_t>(packed.data()) % alignof(FastRequantBlock) != 0) {
        return false;
    }
    std::memcpy(&h, packed.data(), sizeof(h));
    // The output may be int8 while the values are uint8 (an unfolded int8 convolution flips its
    // input, not its output): bound the output by whichever 8-bit range its clamp lies in.
    const int32_t qmin = h.low < 0 ? -128 : 0;
    const bool header = h.magic == kMagic && h.version == kQuantGemmLayoutVersion && h.depth == depth && depth > 0 &&
                        depth <= kMaxDepth && h.depthGroups == (depth + 3) / 4 && h.channels == channels &&
                        channels > 0 && h.paddedChannels == (channels + kGemmBlock - 1) / kGemmBlock * kGemmBlock &&
                        h.signedValues == int32_t{signedValues} && (h.fast == 0 || h.fast == 1) &&
                        (signedValues ? h.rowFactor == 0 : h.rowFactor >= -127 && h.rowFactor <= 128) &&
                        h.outputZeroPoint >= qmin && h.outputZeroPoint <= qmin + 255 && qmin <= h.low &&
                        h.low <= h.high && h.high <= qmin + 255;
    if (!header || packed.size() != packedSize(h)) return false;
    const auto* arrays = reinterpret_cast<const int32_t*>(packed.data() + sizeof(Header));
    const size_t n = h.paddedChannels;
    const auto* blocks = reinterpret_cast<const FastRequantBlock*>(packed.data() + fastBlocksOffset(n));
    return soundRequant(arrays, n, blocks, h.fast ? n / kGemmBlock : 0);
}

void runQuantGemmRows(const QuantGemmJob& job, size_t begin, size_t end) {
    runQuantGemmTile(job, begin, end, 0, job.args.channels);
}

void runQuantGemmTile(const QuantGemmJob& job, size_t rowBegin, size_t rowEnd, size_t channelBegin,
                      size_t channelEnd) {
    GemmArgs tile = job.args;
    rowEnd = std::min(rowEnd, tile.rowCount);
    channelEnd = std::min(channelEnd, tile.channels);
    if (rowBegin >= rowEnd || channelBegin >= channelEnd || channelBegin % kGemmBlock != 0) return;
    tile.rows += rowBegin * tile.rowStride;
    if (tile.rowTerms != nullptr) tile.rowTerms += rowBegin;
    tile.rowCount = rowEnd - rowBegin;
    // The channel blocks from channelBegin on: their weights and per-channel constants.
    tile.weights += channelBegin / kGemmBlock * tile.depthGroups * 64;
    for (const int32_t** perChannel : {&tile.colTerms, &tile.bias, &tile.multipliers, &tile.leftShifts,
                                       &tile.rightShifts, &tile.biasAndColTerms}) {
        if (*perChannel != nullptr) *perChannel += channelBegin;
    }
    if (tile.fastBlocks != nullptr) tile.fastBlocks += channelBegin / kGemmBlock;
    tile.channels = channelEnd - channelBegin;
    tile.output += rowBegin * tile.outputStride + channelBegin;
    job.kernel(tile);
}

bool runQuantGemm(Isa isa, std::span<const uint8_t> packed, const uint8_t* input, size_t rows, uint8_t* output,
                  QuantGemmScratch* scratch) {
    QuantGemmJob job;
    if (!prepareQuantGemm(isa, packed, input, rows, output, scratch, &job)) return false;
    runQuantGemmRows(job, 0, rows);
    return true;
}

}  // namespace nnemu::synap::kernels
