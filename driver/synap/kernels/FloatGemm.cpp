#include "FloatGemm.h"


#include <algorithm>
#include <cstring>
#include <limits>

namespace nnemu::synap::kernels {
namespace {

constexpr uint32_t kMagic = 0x4d474646;  // "FFGM"
constexpr size_t kHeaderBytes = kFloatGemmHeaderBytes;

struct Header {
    uint32_t magic, version, depth, channels;
};

size_t blockFloats(size_t depth) { return kFloatGemmBlock * (depth + 1); }

// Rows per kernel call: what the kernels keep in registers.
constexpr size_t kRows = 6;

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

void floatGemmPortable(const FloatGemmArgs& a) {
    for (size_t b = 0; b < a.blocks; ++b) {
        const float* w = a.weights + b * a.blockStride;
        const size_t count = b + 1 == a.blocks ? a.lastCount : kFloatGemmBlock;
        for (size_t r = 0; r < a.rows; ++r) {
            float acc[kFloatGemmBlock];
            std::copy(w, w + kFloatGemmBlock, acc);
            const float* in = a.input + r * a.inputStride;
            for (size_t k = 0; k < a.depth; ++k) {
                const float x = in[k];
                const float* wk = w + kFloatGemmBlock * (k + 1);
                for (size_t j = 0; j < kFloatGemmBlock; ++j) acc[j] += x * wk[j];
            }
            float* out = a.output + r * a.outputStride + b * kFloatGemmBlock;
            for (size_t j = 0; j < count; ++j) out[j] = std::min(std::max(acc[j], a.low), a.high);
        }
    }
}

void runFloatGemmTile(Isa isa, std::span<const uint8_t> packed, const float* input, float* output, float low,
                      float high, size_t rowBegin, size_t rowEnd, size_t channelBegin, size_t channelEnd) {
    Header header;
    std::memcpy(&header, packed.data(), sizeof header);
    const auto* weights = reinterpret_cast<const float*>(packed.data() + kHeaderBytes);
    void (*kernel)(const FloatGemmArgs&) = floatGemmPortable;
    size_t blocksPerCall = 1;
    if (isa == Isa::Avx512Vnni) {
        kernel = floatGemmAvx512;
        blocksPerCall = 2;
    } else if (isa == Isa::Avx2 && floatFmaSupported()) {
        kernel = floatGemmAvx2;
    }
    channelEnd = std::min<size_t>(channelEnd, header.channels);
    FloatGemmArgs a{};
    a.inputStride = header.depth;
    a.blockStride = blockFloats(header.depth);
    a.outputStride = header.channels;
    a.depth = header.depth;
    a.low = low;
    a.high = high;
    for (size_t c = channelBegin; c < channelEnd; c += blocksPerCall * kFloatGemmBlock) {
        const size_t end = std::min(channelEnd, c + blocksPerCall * kFloatGemmBlock);
        a.blocks = (end - c + kFloatGemmBlock - 1) / kFloatGemmBlock;
        a.lastCount = end - c - (a.blocks - 1) * kFloatGemmBlock;
        a.weights = weights + (c / kFloatGemmBlock) * a.blockStride;
        for (size_t r = rowBegin; r < rowEnd; r += kRows) {
            a.rows = std::min(kRows, rowEnd - r);
            a.input = input + r * a.inputStride;
            a.output = output + r * a.outputStride + c;
            kernel(a);
        }
    }
}

}  // namespace nnemu::synap::kernels
