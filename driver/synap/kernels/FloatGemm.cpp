#include "FloatGemm.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "FloatConv.h"

namespace nnemu::synap::kernels {
namespace {

constexpr uint32_t kMagic = 0x4d474646;  // "FFGM"
constexpr size_t kHeaderBytes = kFloatGemmHeaderBytes;

struct Header {
    uint32_t magic, version, depth, channels;
};

size_t blockFloats(size_t depth) { return kFloatGemmBlock * (depth + 1); }

// Rows per kernel call: from a depth of kDeep on, 12 (x 2 blocks of sums in registers on AVX-512:
// half the weight loads per multiply-add of 6 rows; 14x14x512 to 512 15 % faster); shallower, 6
// (12 measured up to 10 % slower on 56x56x128 to 128 and at depths 16-32, level at 64-128 on
// smaller images). AVX2 takes 6 at a time.
constexpr size_t kDeep = 256, kShallowRows = 6;

}  // namespace

bool floatFmaSupported() {
    static const bool fma = __builtin_cpu_supports("fma");
    return fma;
}

bool packFloatGemm(const FloatGemmSpec& spec, std::vector<uint8_t>* packed) {
    if (spec.depth == 0 || spec.channels == 0 || spec.weights == nullptr) return false;
    const size_t blocks = (spec.channels + kFloatGemmBlock - 1) / kFloatGemmBlock;
    const size_t floats = blocks * blockFloats(spec.depth);
    if (floats > std::numeric_limits<uint32_t>::max() / sizeof(float)) return false;
    packed->assign(kHeaderBytes + floats * sizeof(float), 0);
    const Header header{kMagic, kFloatGemmLayoutVersion, spec.depth, spec.channels};
    std::memcpy(packed->data(), &header, sizeof header);
    auto* out = reinterpret_cast<float*>(packed->data() + kHeaderBytes);  // vector storage: aligned for float
    for (size_t c = 0; c < spec.channels; ++c) {
        float* block = out + (c / kFloatGemmBlock) * blockFloats(spec.depth);
        const size_t lane = c % kFloatGemmBlock;
        if (spec.bias != nullptr) std::memcpy(&block[lane], spec.bias + c * sizeof(float), sizeof(float));
        for (size_t k = 0; k < spec.depth; ++k) {
            std::memcpy(&block[kFloatGemmBlock * (k + 1) + lane], spec.weights + (c * spec.depth + k) * sizeof(float),
                        sizeof(float));
        }
    }
    return true;
}

bool checkPackedFloatGemm(std::span<const uint8_t> packed, uint32_t depth, uint32_t channels) {
    if (packed.size() < kHeaderBytes || reinterpret_cast<uintptr_t>(packed.data()) % alignof(float) != 0) return false;
    Header header;
    std::memcpy(&header, packed.data(), sizeof header);
    if (header.magic != kMagic || header.version != kFloatGemmLayoutVersion || header.depth != depth ||
        header.channels != channels || depth == 0 || channels == 0) {
        return false;
    }
    const size_t blocks = (size_t{channels} + kFloatGemmBlock - 1) / kFloatGemmBlock;
    return packed.size() == kHeaderBytes + blocks * blockFloats(depth) * sizeof(float);
}

bool unpackFloatGemm(std::span<const uint8_t> packed, std::vector<uint8_t>* weights) {
    if (packed.size() < kHeaderBytes) return false;
    Header header;
    std::memcpy(&header, packed.data(), sizeof header);
    if (!checkPackedFloatGemm(packed, header.depth, header.channels)) return false;
    weights->resize(size_t{header.channels} * header.depth * sizeof(float));
    const uint8_t* blocks = packed.data() + kHeaderBytes;
    for (size_t c = 0; c < header.channels; ++c) {
        const uint8_t* block = blocks + (c / kFloatGemmBlock) * blockFloats(header.depth) * sizeof(float);
        for (size_t k = 0; k < header.depth; ++k) {
            std::memcpy(weights->data() + (c * header.depth + k) * sizeof(float),
                        block + (kFloatGemmBlock * (k + 1) + c % kFloatGemmBlock) * sizeof(float), sizeof(float));
        }
    }
    return true;
}

FloatGemmGrains floatGemmGrains(Isa isa, size_t depth) {
    const FloatConvKernel kernel = floatConvKernel(isa);
    return {depth >= kDeep ? kFloatConvPixels : kShallowRows, std::max<size_t>(kernel.blocksPerCall, 1)};
}

void runFloatGemmTile(Isa isa, std::span<const uint8_t> packed, const float* input, float* output, float low,
                      float high, size_t rowBegin, size_t rowEnd, size_t channelBegin, size_t channelEnd) {
    Header header;
    std::memcpy(&header, packed.data(), sizeof header);
    const auto* weights = reinterpret_cast<const float*>(packed.data() + kHeaderBytes);
    const FloatConvKernel kernel = floatConvKernel(isa);
    const size_t rowsPerCall = floatGemmGrains(isa, header.depth).rows;
    channelEnd = std::min<size_t>(channelEnd, header.channels);
    const float* const first = input + rowBegin * size_t{header.depth};  // one segment, row r's at r - rowBegin
    FloatConvArgs a{};
    a.segments = &first;
    a.segmentCount = 1;
    a.segmentLength = header.depth;
    a.pixelStride = header.depth;
    a.blockStride = blockFloats(header.depth);
    a.outputStride = header.channels;
    a.low = low;
    a.high = high;
    for (size_t c = channelBegin; c < channelEnd; c += kernel.blocksPerCall * kFloatGemmBlock) {
        selectChannels(kernel, weights, c, channelEnd, &a);
        for (size_t r = rowBegin; r < rowEnd; r += rowsPerCall) {
            a.pixels = std::min(rowsPerCall, rowEnd - r);
            a.firstPixel = r - rowBegin;
            a.output = output + r * a.outputStride + c;
            kernel.run(a);
        }
    }
}

}  // namespace nnemu::synap::kernels
