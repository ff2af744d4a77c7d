// The minimum feature level of a model and of each of its operations (nnapi-fl30plus.md §2.4):
// what the runtime compares with its own level at Model_finish, and with each device's level
// when it offers operations to devices.
#pragma once

#include <cstdint>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

// The level one operation needs: its use (the signature's rule for later operand types and
// inputs) and the type of every operand it reads or writes. Constants come from `model`.
int64_t operationMinimumLevel(const hal::Model& model, const std::vector<hal::Operand>& operands,
                              const hal::Operation& operation);

// The model's minimum level: the largest over the operands and operations of the main model and
// of every referenced subgraph.
int64_t modelMinimumLevel(const hal::Model& model);

// Per operation of the main model, whether a device at `deviceLevel` may be offered it.
std::vector<bool> operationsWithinLevel(const hal::Model& model, int64_t deviceLevel);

}  // namespace nnemu::runtime
