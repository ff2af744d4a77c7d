// Reads a picture file for label_image: BMP with nnemu's own decoder (the format the TFLite and
// Coral tools and their test oracles use), PNG, JPEG and the other formats stb_image knows
// through Debian's libstb. The result has 1 (grey) or 3 (RGB) channels.
#pragma once

#include <string>

#include "Image.h"

namespace nnemu::labelimage {

bool loadImageFile(const std::string& path, Image* image, std::string* error);

}  // namespace nnemu::labelimage
