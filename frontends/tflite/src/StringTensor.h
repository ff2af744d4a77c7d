// TFLite's STRING tensors (issue 24): one buffer holding an int32 count N, N + 1 int32 offsets
// from the buffer's start (the last one is the buffer's size), then the strings' bytes, all
// little-endian. A string tensor's byte size is its buffer's, not a function of its shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::tflite {

// The strings of a packed buffer, checked: the header fits, the count is `expectedCount` (when
// not SIZE_MAX), the offsets start after the header, never decrease and end at the buffer's size.
// The views point into `data`.
Result<std::vector<std::string_view>> readStrings(const uint8_t* data, size_t size,
                                                  size_t expectedCount = SIZE_MAX);
// The packed buffer of `strings`.
std::vector<uint8_t> packStrings(const std::vector<std::string_view>& strings);

}  // namespace nnemu::tflite
