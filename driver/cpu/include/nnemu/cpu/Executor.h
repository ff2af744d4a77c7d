// Runs a whole HAL model on the reference kernels, operation by operation.
#pragma once

#include <tuple>
#include <vector>

#include "nnemu/hal/Device.h"
#include "nnemu/hal/Types.h"

namespace nnemu::cpu {

// Binds the request's arguments to the model, infers every shape through the operations'
// signatures and runs their kernels. Returns one shape per model output on NONE and on
// OUTPUT_INSUFFICIENT_SIZE. A `deadline` is checked before the first operation (missed:
// MISSED_DEADLINE_PERSISTENT) and between operations (MISSED_DEADLINE_TRANSIENT).
std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>> executeModel(const hal::Model& model,
                                                                         const hal::Request& request,
                                                                         const hal::Deadline& deadline = {});

}  // namespace nnemu::cpu
