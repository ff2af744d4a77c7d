// --nnapi_support_library_path, checked as TensorFlow Lite's loader checks it (nnapi-fl30plus.md
// §4.4): the library opened by its path with RTLD_LAZY | RTLD_LOCAL, ANeuralNetworks_getSLDriverImpl
// found, its table non-null at a level TensorFlow Lite accepts (31, 1000006, 1000007). nnemu's tool
// makes its NNAPI calls through the libneuralnetworks.so it is linked with, so the table must be
// that library's (same entry points); another support library is refused.
#pragma once

#include <cstdint>
#include <string>

#include "nnemu/base/Status.h"

namespace nnemu::benchmark {

// True with the table's level in `level`; false with the reason in `why`.
Status checkSupportLibrary(const std::string& path, int64_t* level);

}  // namespace nnemu::benchmark
