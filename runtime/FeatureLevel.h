// The feature level this runtime implements (nnapi-fl30plus.md §2.4): a model may only use what
// that level defines. The build sets it (runtime/CMakeLists.txt) to the level libneuralnetworks.so
// implements and exports.
#pragma once

#include <cstdint>

namespace nnemu::runtime {

#ifndef NNEMU_RUNTIME_FEATURE_LEVEL
#error "the build defines NNEMU_RUNTIME_FEATURE_LEVEL for each runtime library"
#endif

constexpr int64_t kRuntimeFeatureLevel = NNEMU_RUNTIME_FEATURE_LEVEL;

}  // namespace nnemu::runtime
