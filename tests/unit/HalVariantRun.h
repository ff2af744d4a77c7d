// Runs a conformance variant straight on the reference executor (no runtime, no feature-level
// gate): for tests of HAL-level behaviour, such as operations newer than the runtime's level.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "Variant.h"
#include "nnemu/hal/Types.h"

namespace nnemu::halvariant {

hal::Model buildModel(const conformance::Variant& v);
// The first problem found over every example (validation, execution, comparison), or nothing.
std::optional<std::string> runVariant(const conformance::Variant& v);
// The same on another executor of HAL models (a device's prepared model, for instance).
using Executor = std::function<std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>>(const hal::Model&,
                                                                                           const hal::Request&)>;
std::optional<std::string> runVariant(const conformance::Variant& v, const Executor& execute);

}  // namespace nnemu::halvariant
