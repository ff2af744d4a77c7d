// A PackedDepthwise as a program stores it (Depthwise.h storeDepthwise): a header with the
// size of each part, then the parts runDepthwise reads, each at a 64-byte aligned offset, in
// the order of Part. Parts the kept ISA never reads are empty (keepDepthwiseFor). A view
// checks every size against the layer's geometry and every shift before pointing into it.
#include <algorithm>
#include <cstring>

#include "Depthwise.h"

namespace nnemu::synap::kernels {
namespace {

constexpr uint32_t kMagic = 0x53574451;  // "QDWS"
enum Part {
    kArraysPart, kFastBlocks, kWeights, kZeroRow,       // RequantTable, 16-bit weights, zero-point row
    kQuadWeights, kBlockSets, kInitial, kFolded,        // the AVX-512 VNNI folded layout
    kPairWeights, kAvx2Folded, kAvx2Initial, kAvx2Post,  // the AVX2 layout (DepthwiseAvx2Layout)
    kParts
};

struct Header {
    uint32_t magic, version, channels, padded, weightSets, reserved;
    uint64_t size[kParts];  // bytes
};

size_t alignUp(size_t offset) { return (offset + 63) / 64 * 64; }

template <typename T>
std::span<const uint8_t> bytesOf(const std::vector<T>& values) {
    return {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T)};
}

// The size each part must have for `channels` of zero-point row `zeroRow` and `weightSets` sets.
void expectedSizes(uint32_t channels, size_t zeroRow, uint32_t weightSets, uint64_t* size) {
    const size_t padded = (size_t{channels} + kGemmBlock - 1) / kGemmBlock * kGemmBlock, blocks = padded / kGemmBlock;
    size[kArraysPart] = RequantTable::kArrays * padded * sizeof(int32_t);
    size[kFastBlocks] = blocks * sizeof(FastRequantBlock);
    size[kWeights] = padded * 9 * sizeof(int32_t);
    size[kZeroRow] = zeroRow;
    size[kQuadWeights] = blocks * weightSets * 3 * 64;
    size[kBlockSets] = blocks;
    size[kInitial] = padded * sizeof(int32_t);
    size[kFolded] = blocks * sizeof(FastRequantBlock);
    size[kPairWeights] = blocks * 2 * 3 * 2 * 16 * sizeof(int16_t);
    size[kAvx2Folded] = blocks * sizeof(FastRequantBlock);
    size[kAvx2Initial] = padded * sizeof(int32_t);
    size[kAvx2Post] = padded * sizeof(int32_t);
}

}  // namespace

void storeDepthwise(const PackedDepthwise& p, std::vector<uint8_t>* bytes) {
    const bool folded = !p.folded.empty();
    std::span<const uint8_t> parts[kParts] = {
            bytesOf(p.requant.arrays), p.requant.fast ? bytesOf(p.requant.fastBlocks) : std::span<const uint8_t>(),
            bytesOf(p.weights),        bytesOf(p.zeroRow),
            folded ? bytesOf(p.quadWeights) : std::span<const uint8_t>(),
            folded ? bytesOf(p.blockSets) : std::span<const uint8_t>(),
            folded ? bytesOf(p.initial) : std::span<const uint8_t>(),
            bytesOf(p.folded),
            bytesOf(p.avx2.pairWeights),
            p.avx2.pairWeights.empty() ? std::span<const uint8_t>() : bytesOf(p.avx2.folded),
            p.avx2.pairWeights.empty() ? std::span<const uint8_t>() : bytesOf(p.avx2.initial),
            p.avx2.pairWeights.empty() ? std::span<const uint8_t>() : bytesOf(p.avx2.post)};
    Header h{kMagic, kDepthwiseLayoutVersion, p.spec.channels, static_cast<uint32_t>(p.requant.padded), p.weightSets, 0, {}};
    size_t offset = alignUp(sizeof(Header));
    for (int i = 0; i < kParts; ++i) {
        h.size[i] = parts[i].size();
        offset = alignUp(offset + parts[i].size());
    }
    bytes->assign(offset, 0);
    std::memcpy(bytes->data(), &h, sizeof(h));
    offset = alignUp(sizeof(Header));
    for (const auto& part : parts) {
        if (!part.empty()) std::memcpy(bytes->data() + offset, part.data(), part.size());
        offset = alignUp(offset + part.size());
    }
}

bool viewStoredDepthwise(std::span<const uint8_t> stored, const DepthwiseSpec& spec, Isa isa, bool folded,
                         DepthwiseArgs* args) {
    Header h;
    if (stored.size() < sizeof(Header) || reinterpret_cast<uintptr_t>(stored.data()) % alignof(FastRequantBlock) != 0) {
        return false;
    }
    std::memcpy(&h, stored.data(), sizeof(h));
    const size_t zeroRow = std::max<size_t>((size_t{spec.channels} + kGemmBlock - 1) / kGemmBlock * kGemmBlock,
                                            size_t{spec.inWidth} * spec.channels + kGemmBlock);
    if (h.magic != kMagic || h.version != kDepthwiseLayoutVersion || h.channels != spec.channels || spec.channels == 0 ||
        h.padded != (spec.channels + kGemmBlock - 1) / kGemmBlock * kGemmBlock || h.weightSets < 1 || h.weightSets > 3) {
        return false;
    }
    uint64_t expected[kParts];
    expectedSizes(spec.channels, zeroRow, h.weightSets, expected);
    const uint8_t* part[kParts];
    size_t offset = alignUp(sizeof(Header));
    for (int i = 0; i < kParts; ++i) {
        // Every part has its size or none; the zero-point row is always there.
        if (h.size[i] != expected[i] && (i == kZeroRow || h.size[i] != 0)) return false;
        part[i] = h.size[i] == 0 ? nullptr : stored.data() + offset;
        offset = alignUp(offset + h.size[i]);
    }
    // Each layout whole or absent.
    const auto all = [&](Part first, Part last, bool present) {
        for (int i = first; i <= last; ++i) {
            if ((part[i] != nullptr) != present) return false;
        }
        return true;
    };
    const bool hasFolded = part[kQuadWeights] != nullptr, hasAvx2 = part[kPairWeights] != nullptr;
    const bool hasAvx2Folded = part[kAvx2Folded] != nullptr;
    if (offset != stored.size() || !all(kQuadWeights, kFolded, hasFolded) || (hasAvx2Folded && !hasAvx2) ||
        !all(kAvx2Folded, kAvx2Post, hasAvx2Folded)) {
        return false;
    }
    // What the kernel of `isa` reads: on AVX-512 VNNI the folded layout, on AVX2 its layout
    // (unfolded: with the requantization table), else the 16-bit weights and the table.
    const bool runsFolded = isa == Isa::Avx512Vnni && hasFolded, runsAvx2 = baseIsa(isa) == Isa::Avx2 && hasAvx2;
    if (folded && !runsFolded && !(runsAvx2 && hasAvx2Folded)) return false;
    if (!runsFolded && (part[kArraysPart] == nullptr || (!runsAvx2 && part[kWeights] == nullptr))) return false;
    const auto* arrays = reinterpret_cast<const int32_t*>(part[kArraysPart]);
    const auto* fastBlocks = reinterpret_cast<const FastRequantBlock*>(part[kFastBlocks]);
    const auto* foldedBlocks = reinterpret_cast<const FastRequantBlock*>(part[kFolded]);
    const auto* avx2Folded = reinterpret_cast<const FastRequantBlock*>(part[kAvx2Folded]);
    const size_t blocks = h.padded / kGemmBlock;
    if (!soundRequant(arrays, h.padded, fastBlocks, fastBlocks == nullptr ? 0 : blocks) ||
        !soundRequant(nullptr, 0, foldedBlocks, foldedBlocks == nullptr ? 0 : blocks) ||
        !soundRequant(nullptr, 0, avx2Folded, avx2Folded == nullptr ? 0 : blocks)) {
        return false;
    }
    *args = depthwiseArgsOf(spec);
    if (arrays != nullptr) RequantTable::point(&args->requant, arrays, h.padded, fastBlocks);
    args->zeroRow = part[kZeroRow];
    args->weights = reinterpret_cast<const int32_t*>(part[kWeights]);
    if (runsFolded) {
        args->quadWeights = reinterpret_cast<const int8_t*>(part[kQuadWeights]);
        args->weightSets = h.weightSets;
        args->blockSets = part[kBlockSets];
        args->initial = reinterpret_cast<const int32_t*>(part[kInitial]);
        args->folded = foldedBlocks;
    }
    if (runsAvx2) {
        args->pairWeights = reinterpret_cast<const int16_t*>(part[kPairWeights]);
        args->avx2Folded = avx2Folded;
        args->avx2Initial = reinterpret_cast<const int32_t*>(part[kAvx2Initial]);
        args->avx2Post = reinterpret_cast<const int32_t*>(part[kAvx2Post]);
    }
    return true;
}

}  // namespace nnemu::synap::kernels
