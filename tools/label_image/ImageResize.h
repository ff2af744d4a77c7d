// Preparing a picture for a model's input as TensorFlow Lite's label_image does: its resize is a
// one-node TFLite graph, RESIZE_BILINEAR with align_corners=false and half_pixel_centers=false
// run by TFLite's builtin float kernel on the pixels as floats. resizeBilinear computes exactly
// that kernel's arithmetic (same sampling, same weights, same order of accumulation), so its
// floats are TFLite's bit for bit.
#pragma once

#include <vector>

#include "Image.h"

namespace nnemu::labelimage {

// 3 -> 1: (R+G+B)/3 per pixel; 1 -> 3: grey repeated. Same count: unchanged. (TFLite's tool
// has no conversion: it reads past its buffer when the picture's and model's channels differ.)
Image convertChannels(const Image& image, int channels);

// height*width*channels floats, rows top to bottom.
std::vector<float> resizeBilinear(const Image& image, int outHeight, int outWidth);

// The same, converted to bytes by truncation (static_cast<uint8_t>), as TFLite's tool does.
Image resizeBilinearToBytes(const Image& image, int outHeight, int outWidth);

}  // namespace nnemu::labelimage
