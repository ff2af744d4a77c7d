// The program files' checksum (ProgramFiles.h): CRC-32C (Castagnoli) over four interleaved lanes
// of the bytes. Lane k holds the bytes of every 8-byte word whose index is k modulo 4, so one
// sequential pass keeps four independent CRC chains in flight (the SSE4.2 crc32 instruction:
// ~8 bytes per cycle, several times SHA-256 with the SHA extensions). What it guarantees: any
// error of up to 32 consecutive bits is detected (it touches at most two words, in two lanes,
// each a burst CRC-32C always detects), and damage spread over a page lands in all four lanes, so
// it passes only if all four collide. It guards against damage, not against an adversary: the
// files are private to the driver's user, and the NPU verifier bounds every read regardless.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace nnemu::cache {

using LaneCrcs = std::array<uint32_t, 4>;

// Uses the crc32 instruction when the CPU has SSE4.2, else a table.
LaneCrcs laneCrc32c(std::span<const uint8_t> bytes);

// The table implementation (for machines without SSE4.2, and as the tests' reference).
LaneCrcs laneCrc32cPortable(std::span<const uint8_t> bytes);

}  // namespace nnemu::cache
