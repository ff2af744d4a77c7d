// Turns a picture into the bytes of a model's image input [1, height, width, channels] as
// TensorFlow Lite's label_image does: channel conversion, TFLite's bilinear resize in float
// (ImageResize.h), then per input type from each resized float v: uint8 = (uint8_t)v, int8 =
// (int8_t)(v - 128), float32 = (v - mean) / std (all conversions truncate toward zero).
#pragma once

#include <cstdint>
#include <vector>

#include "Image.h"

namespace nnemu::labelimage {

enum class InputType { FLOAT32, UINT8, INT8 };

std::vector<uint8_t> makeModelInput(const Image& image, int height, int width, int channels, InputType type,
                                    float mean, float stddev);

}  // namespace nnemu::labelimage
