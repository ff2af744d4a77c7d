// Preparing a picture for a model's input: channel conversion and TFLite's RESIZE_BILINEAR with
// align_corners=false and half_pixel_centers=true, computed in float (the sampling the Coral test
// oracles and models' preprocessing use).
#pragma once

#include <vector>

#include "Image.h"

namespace nnemu::labelimage {

// 3 -> 1: (R+G+B)/3 per pixel; 1 -> 3: grey repeated. Same count: unchanged.
Image convertChannels(const Image& image, int channels);

// height*width*channels floats, rows top to bottom.
std::vector<float> resizeBilinear(const Image& image, int outHeight, int outWidth);

// The same, converted to bytes by truncation as the oracles do.
Image resizeBilinearToBytes(const Image& image, int outHeight, int outWidth);

}  // namespace nnemu::labelimage
