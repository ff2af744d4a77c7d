// The feature level this runtime implements (nnapi-fl30plus.md §2.4): a model may only use what
// that level defines. Raising it is how a later level is switched on.
#pragma once

#include <cstdint>

namespace nnemu::runtime {

constexpr int64_t kRuntimeFeatureLevel = 29;

}  // namespace nnemu::runtime
