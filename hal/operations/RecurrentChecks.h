// Operand checks shared by the signatures of the recurrent operations: one LSTM or RNN cell
// (one direction), wherever its operands sit (see nnemu/hal/RecurrentLayout.h). Defined in
// RecurrentChecks.cpp.
#pragma once

#include <initializer_list>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/RecurrentLayout.h"

namespace nnemu::hal::recurrent {

bool isFloatTensor(OperandType type);
// The scalar float type that goes with a float tensor type.
OperandType floatScalarFor(OperandType tensorType);
// An optional operand is absent when it is omitted; an empty tensor counts as absent too.
bool isAbsent(const OperandView& operand);
// The operation has an operand at this position (layouts name some that older forms lack).
bool exists(const OperationContext& context, uint32_t position);
// The operand exists and has a value.
bool present(const OperationContext& context, uint32_t position);
bool dimsAre(const OperandView& operand, std::initializer_list<uint32_t> dims);
// A required operand: present, with these dims.
bool requiredWithDims(const OperationContext& context, uint32_t position, std::initializer_list<uint32_t> dims);

// validate(): declared types and ranks of one LSTM cell's operands
// (not of its input, whose rank depends on the operation).
bool validateLstmCell(const OperationContext& context, const LstmLayout& layout, OperandType type);

struct LstmSizes {
    uint32_t units = 0;
    uint32_t outputSize = 0;
    bool cifg = false;  // coupled input and forget gates: no input gate operands
};
// prepare(): one LSTM cell's operands against its batch size, input size and auxiliary input
// size (0 when the auxiliary input is absent).
bool prepareLstmCell(const OperationContext& context, const LstmLayout& layout, uint32_t batch,
                     uint32_t inputSize, uint32_t auxInputSize, LstmSizes* sizes);

bool validateRnnCell(const OperationContext& context, const RnnLayout& layout, OperandType type);
// prepare() of one RNN cell; returns its number of units.
bool prepareRnnCell(const OperationContext& context, const RnnLayout& layout, uint32_t batch,
                    uint32_t inputSize, uint32_t auxInputSize, uint32_t* units);

}  // namespace nnemu::hal::recurrent
