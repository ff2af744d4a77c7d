// Runs a conformance variant straight on the reference executor (no runtime, no feature-level
// gate): for tests of HAL-level behaviour, such as operations newer than the runtime's level.
#pragma once

#include <optional>
#include <string>

#include "Variant.h"
#include "nnemu/hal/Types.h"

namespace nnemu::halvariant {

hal::Model buildModel(const conformance::Variant& v);
// The first problem found over every example (validation, execution, comparison), or nothing.
std::optional<std::string> runVariant(const conformance::Variant& v);

}  // namespace nnemu::halvariant
