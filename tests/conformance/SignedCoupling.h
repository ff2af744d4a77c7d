// Quantization coupling (nnapi-fl30plus.md §2.2, conformance README "QuantizationCouplingTest"):
// the single-operation V1_0-V1_2 conformance variants that use TENSOR_QUANT8_ASYMM, turned into
// TENSOR_QUANT8_ASYMM_SIGNED (zero point - 128, every value - 128, goldens too), for the
// reference test (tests/unit) and synap-npu's (tests/synap) to run (tests/unit/HalVariantRun.h).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "Variant.h"
#include "nnemu/base/Status.h"

namespace nnemu::coupling {

// Every coupled variant under root/V1_0..V1_2, converted to signed; BAD_DATA naming a broken entry.
Result<std::vector<conformance::Variant>> coupledSignedVariants(const std::filesystem::path& root);

}  // namespace nnemu::coupling
