// How synap-npu turns NNAPI operations into NPU layers. Each operation the NPU runs has one
// rule, defined in lowering/<Family>.cpp and listed, one row each, in Lowering.cpp (kRules):
// `supports` is the device's claim (the exact operand conditions under which the core computes
// the operation correctly) and `lower` emits its layers. The supported-operations table and the
// compiler both read these rules only.
#pragma once

#include <string>
#include <vector>

#include "../program/CoreLimits.h"
#include "ProgramBuilder.h"
#include "nnemu/hal/Operations.h"

namespace nnemu::synap {

struct LoweringRule {
    hal::OperationType type;
    // Sees declared dims (0 = unknown) and constant data; true only if `lower` will succeed
    // and the result matches the reference within the conformance tolerances.
    bool (*supports)(const hal::OperationContext& context);
    // Sees the actual dims of the first inference.
    bool (*lower)(const hal::OperationContext& context, ProgramBuilder& builder);
};

// nullptr when the NPU has no rule for the operation.
const LoweringRule* findLowering(hal::OperationType type);
// Every operation of the rules listed in Lowering.cpp, in their order (an operation
// listed twice appears twice).
std::vector<hal::OperationType> listedLowerings();
// The list against OperationTable.def (hal/OperationCoverage.h): empty when no operation has
// more than one rule and every rule is for an operation of the table (the NPU claims a subset, so
// none is required). findLowering's first use asserts this in debug builds.
std::vector<std::string> loweringCoverageProblems();

// Conditions many rules share.
bool isFloatOrQuant8(hal::OperandType type);  // uint8 only: kinds whose core layers are uint8-only
// Either 8-bit asymmetric type (uint8, or int8 from feature level 30): the core's XNNPACK has
// both (qu8 and qs8) under the same rules, so a rule claims them alike.
bool isQuant8(hal::OperandType type);
bool isFloatOrAnyQuant8(hal::OperandType type);
bool isNhwc(const hal::OperationContext& context, uint32_t layoutInput);  // absent or false
bool fuseCodeValid(const hal::OperationContext& context, uint32_t input);
// Real-valued output bounds of a fused activation, and its name in layer names ("Relu6").
void activationBounds(int32_t fuseCode, float* low, float* high);
const char* activationName(int32_t fuseCode);

// For layers the core only has in float: a Convert layer making a float copy of `tensor`
// (returned as is when already float), and one converting a float result into `tensor`.
uint32_t asFloat(ProgramBuilder& builder, uint32_t tensor);
void convertInto(ProgramBuilder& builder, uint32_t floatTensor, uint32_t tensor);
// A FlipSign layer: `to` holds `from`'s values with the other signedness (zero point ±128).
void flipSign(ProgramBuilder& builder, uint32_t from, uint32_t to);
// A one-element float constant, for scaling and shifting.
uint32_t floatScalar(ProgramBuilder& builder, float value);

}  // namespace nnemu::synap
