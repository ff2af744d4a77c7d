// The labels file of a classifier: one label per line, line index = class index. Padded with
// empty labels to a multiple of 16 entries, as TFLite's label_image does.
#pragma once

#include <string>
#include <vector>

namespace nnemu::labelimage {

bool readLabelsFile(const std::string& path, std::vector<std::string>* labels, std::string* error);

}  // namespace nnemu::labelimage
