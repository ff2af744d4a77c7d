// The NPU core's own quantized GEMM (1x1 stride-1 convolutions and fully connected layers),
// uint8 and int8 with per-tensor or per-channel weights, bit-exact with the reference kernels'
// requantization (driver/cpu/kernels/ConvPoolUtils.h Requantizer). The weights are packed once
// into a byte buffer in the layout the kernels read; running takes that buffer alone.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "GemmArgs.h"
#include "Isa.h"
#include "Requant.h"

namespace nnemu::synap::kernels {

struct QuantGemmSpec : QuantLayerSpec {
    uint32_t depth = 0;     // input channels (K)
    uint32_t channels = 0;  // output channels (N); weights are [channels][depth]
};

// The packed layout's version: programs store packed weights tagged with it (and the ISA), and a
// core packs again when its kernels read another layout. Bump it with any change of the layout.
constexpr uint32_t kQuantGemmLayoutVersion = 2;

// The packed weights and requantization constants; false when the spec is outside what the
// kernels compute exactly (a depth whose accumulator could leave 32 bits, a bad scale).
bool packQuantGemm(const QuantGemmSpec& spec, std::vector<uint8_t>* packed);

// Whether `packed` (from a program file: untrusted) is a packed GEMM of this layout version for
// `depth` x `channels` weights of this signedness, whose sizes and shifts the kernels can take.
bool checkPackedQuantGemm(std::span<const uint8_t> packed, uint32_t depth, uint32_t channels, bool signedValues);

// The [channels][depth] weights packQuantGemm packed into `packed`, exactly as they were (the
// program may drop a filter it stores packed); false when `packed` is not a packed GEMM.
bool unpackQuantGemm(std::span<const uint8_t> packed, std::vector<uint8_t>* weights);

// Working memory of one layer's runs.
struct QuantGemmScratch {
    std::vector<uint8_t> rows;
};

// One run of a packed GEMM, its inputs prepared: rows can be computed in slices, on any threads.
struct QuantGemmJob {
    GemmArgs args{};
    void (*kernel)(const GemmArgs&) = nullptr;
};

// output[rows][channels] from input[rows][depth] with the kernel of `isa` (which the CPU must
// support): prepares the job (in `scratch`), then runs rows [begin, end) of it. false when
// `packed` is not a packed GEMM.
bool prepareQuantGemm(Isa isa, std::span<const uint8_t> packed, const uint8_t* input, size_t rows, uint8_t* output,
                      QuantGemmScratch* scratch, QuantGemmJob* job);
void runQuantGemmRows(const QuantGemmJob& job, size_t begin, size_t end);
// Rows [rowBegin, rowEnd) x channels [channelBegin, channelEnd) of the job, channelBegin a
// multiple of kGemmBlock: slices along the channels for layers of few rows.
void runQuantGemmTile(const QuantGemmJob& job, size_t rowBegin, size_t rowEnd, size_t channelBegin,
                      size_t channelEnd);
// Both, all rows, on the calling thread.
bool runQuantGemm(Isa isa, std::span<const uint8_t> packed, const uint8_t* input, size_t rows, uint8_t* output,
                  QuantGemmScratch* scratch);

}  // namespace nnemu::synap::kernels
