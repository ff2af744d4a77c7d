// The NPU reached without NNAPI, as the vx delegate reaches it: the same claim, compiler, SyNAP
// cache, core and statistics as the synap-npu NNAPI device. vendor.NNAPI_SYNAP_DISABLE only hides
// the NNAPI device, so it does not apply here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nnemu/hal/Device.h"

namespace nnemu::synap {

// Per operation: the NPU runs it. Empty (with `why`) when the model is invalid.
std::vector<bool> claimOperations(const hal::Model& model, std::string* why);

// A network of a model whose operations are all claimed; compiled at its first execution.
// nullptr (with `why`) otherwise.
std::shared_ptr<hal::IPreparedModel> prepareNetwork(hal::Model model, std::string* why);

}  // namespace nnemu::synap
