// IF and WHILE (feature level 30): operations whose bodies are referenced subgraphs of the model.
// Their signatures only see operand types; what ties them to their subgraphs (counts, types,
// dims, quantization of the values passed in and out) is checked against the whole model here.
#pragma once

#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/hal/Types.h"

namespace nnemu::hal {

bool isControlFlow(OperationType type);

// The subgraph a SUBGRAPH operand refers to; nullptr if it refers to none.
const Subgraph* referencedSubgraph(const Model& model, const Operand& operand);

// Same type and quantization, and dimensions that agree where both are known: a value may flow
// from one operand into the other across a subgraph boundary.
bool compatibleAcrossSubgraphs(const Operand& a, const Operand& b);

// Checks an IF or WHILE of `operands` (a graph of `model`) against its referenced subgraphs.
// BAD_DATA saying what does not match.
Status validateControlFlow(const Model& model, const std::vector<Operand>& operands, const Operation& operation);

}  // namespace nnemu::hal
