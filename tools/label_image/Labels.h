// The labels file of a classifier: one label per line, line index = class index. Padded with
// empty labels to a multiple of 16 entries, as TFLite's label_image does.
#pragma once

#include <string>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::labelimage {

// UNAVAILABLE ("Labels file <path> not found") when the file cannot be opened.
Status readLabelsFile(const std::string& path, std::vector<std::string>* labels);

}  // namespace nnemu::labelimage
