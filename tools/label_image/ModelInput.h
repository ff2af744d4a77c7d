// Turns a picture into the bytes of a model's image input [1, height, width, channels]: channel
// conversion, bilinear resize, then per input type uint8 = the resized bytes, int8 = bytes - 128,
// float32 = (x - mean) / std on the resized (not truncated) values.
#pragma once

#include <cstdint>
#include <vector>

#include "Image.h"

namespace nnemu::labelimage {

enum class InputType { FLOAT32, UINT8, INT8 };

std::vector<uint8_t> makeModelInput(const Image& image, int height, int width, int channels, InputType type,
                                    float mean, float stddev);

}  // namespace nnemu::labelimage
