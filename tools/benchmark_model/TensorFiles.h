// nnemu's --input_file/--output_file: raw tensor bytes in files, one file per model input or
// output, given as a comma-separated list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::benchmark {

// "a,b,c" -> {"a","b","c"}; "" -> {}.
std::vector<std::string> splitPathList(const std::string& text);

// Reads exactly expectedBytes bytes; any other size is an error naming both sizes.
Status readTensorFile(const std::string& path, size_t expectedBytes, std::vector<uint8_t>* bytes);

Status writeTensorFile(const std::string& path, const uint8_t* data, size_t size);

}  // namespace nnemu::benchmark
