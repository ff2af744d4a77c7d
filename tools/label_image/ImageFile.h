// Reads a picture file for label_image: BMP with nnemu's own decoder (the format the TFLite and
// Coral tools and their test oracles use), PNG, JPEG and the other formats stb_image knows
// through Debian's libstb. The result has 1 (grey) or 3 (RGB) channels.
#pragma once

#include <string>

#include "Image.h"
#include "nnemu/base/Status.h"

namespace nnemu::labelimage {

// The picture, or a failure whose message names the file and the problem.
Status loadImageFile(const std::string& path, Image* image);

}  // namespace nnemu::labelimage
