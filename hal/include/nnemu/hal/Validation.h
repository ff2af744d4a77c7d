// Model and operand validation shared by the runtime (addOperand, addOperation, finish) and
// by drivers (prepareModel). A failure is BAD_DATA saying what is wrong.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Types.h"

namespace nnemu::hal {

// Bytes of operand `index` when it holds a constant, else nullptr.
using ConstantLookup = std::function<uint8_t*(uint32_t index)>;

// Type code, rank and quantization parameters of one operand (§1.2 rules).
Status validateOperandType(int32_t type, const std::vector<uint32_t>& dims, float scale, int32_t zeroPoint);

OperationContext makeOperationContext(const Operation& operation,
                                      const std::vector<Operand>& operands,
                                      const ConstantLookup& constantOf);

// Operand indexes in range and, when the operation is registered, its signature check.
Status validateOperation(const Operation& operation, const std::vector<Operand>& operands,
                         const ConstantLookup& constantOf);

// Bytes of a CONSTANT_COPY / CONSTANT_REFERENCE operand of a finished model.
uint8_t* constantData(const Model& model, const Operand& operand);

// Everything `Model_finish` checks: operands, constant locations, operations, writers of
// temporaries and outputs, inputs/outputs lists, and that the operation order is a valid
// topological order (no cycles).
Status validateModel(const Model& model);

}  // namespace nnemu::hal
