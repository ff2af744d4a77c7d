// Uncompressed Windows BMP files, as TFLite's and Coral's label_image read them: bottom-up rows
// unless the height is negative, rows padded to 4 bytes, pixel data at the offset in bytes 10..13.
// 24- and 32-bit pixels become RGB (alpha dropped); 8-bit images with a grey (or no) palette are
// read as raw grey values, other palettes are applied and give RGB.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "Image.h"
#include "nnemu/base/Status.h"

namespace nnemu::labelimage {

bool isBmp(const std::vector<uint8_t>& bytes);

// BAD_DATA with a message naming the problem for anything malformed or unsupported.
Status decodeBmp(const std::vector<uint8_t>& bytes, Image* image);

}  // namespace nnemu::labelimage
