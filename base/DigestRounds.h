// The block functions of the digests (Digest.h): each folds one 64-byte block into its state.
#pragma once

#include <array>
#include <cstdint>

namespace nnemu::base {

void md5Block(std::array<uint32_t, 8>& state, const uint8_t* block);
void sha256Block(std::array<uint32_t, 8>& state, const uint8_t* block);

std::array<uint32_t, 8> md5Initial();
std::array<uint32_t, 8> sha256Initial();

}  // namespace nnemu::base
