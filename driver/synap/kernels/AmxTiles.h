// What the AMX kernels (GemmAmxInt8.cpp, FloatGemmBf16Amx.cpp) share: LDTILECFG's 64-byte operand
// and a compiler barrier. Types and internal-linkage functions only: included by files compiled
// with the AMX flags, nothing here may be merged with a copy built for another instruction set.
#pragma once

#include <cstdint>

namespace nnemu::synap::kernels::amx {

// The operand of LDTILECFG / STTILECFG, palette 1: rows and bytes per row of each of 8 tiles.
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t startRow = 0;
    uint8_t reserved[14] = {};
    uint16_t columnBytes[16] = {};
    uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64);

namespace {
// GCC 12's tile intrinsics tell the compiler they touch 8 bytes of memory (the configuration) or
// none (tile loads of what the caller just wrote): this keeps every byte written before them in
// memory, and every byte STTILECFG stored visible after it.
[[maybe_unused]] inline void memoryBarrier() { __asm__ __volatile__("" ::: "memory"); }
}  // namespace

}  // namespace nnemu::synap::kernels::amx
