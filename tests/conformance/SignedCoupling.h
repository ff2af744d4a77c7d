// Quantization coupling (nnapi-fl30plus.md §2.2, conformance README "QuantizationCouplingTest"):
// the single-operation V1_0-V1_2 conformance variants that use TENSOR_QUANT8_ASYMM, turned into
// TENSOR_QUANT8_ASYMM_SIGNED (zero point - 128, every value - 128, goldens too), and a way to run
// them on an executor of the HAL (the reference executor, or a device) against the converted
// goldens. Shared by the reference test (tests/unit) and synap-npu's (tests/synap).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "Variant.h"
#include "nnemu/hal/Types.h"

namespace nnemu::coupling {

using Executor = std::function<std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>>(const hal::Model&,
                                                                                           const hal::Request&)>;

// Every coupled variant under root/V1_0..V1_2, converted to signed; `error` names a broken
// entry (then the result is empty).
std::vector<conformance::Variant> coupledSignedVariants(const std::filesystem::path& root, std::string* error);

// The variant as a HAL model (constants copied into operandValues).
hal::Model buildModel(const conformance::Variant& v);

// Validates the model and runs every example through `execute`; the first problem found, or
// nothing when every output matches its golden within the usual tolerances.
std::optional<std::string> runSignedVariant(const conformance::Variant& v, const Executor& execute);

}  // namespace nnemu::coupling
