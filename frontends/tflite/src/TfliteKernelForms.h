// Builtin forms whose TFLite kernel computes other values than the NNAPI operation nnemu lowers
// them to (the table in TfliteKernelForms.cpp). On a board, a node no delegate takes runs on
// TFLite's own kernel: such a node runs on the tools' CPU kernel, which gives TFLite's result,
// instead of on nnapi-reference with NNAPI's semantics. A delegated node keeps NNAPI's.
#pragma once

#include <vector>

#include "nnemu/tflite/Model.h"
#include "nnemu/tflite/NnapiGraph.h"

namespace nnemu::tflite {

// The node's builtin and input type are in the table (TfliteKernelForms.cpp).
bool tfliteKernelDiffersFromNnapi(const Model& model, const Node& node);

// Moves `node` onto its CPU kernel in `graph` (its NNAPI operations go; it reads its inputs
// from the host).
void moveNodeToCpuKernel(const Node& node, NnapiGraph& graph);

// Every node that `delegated` leaves out, is in the table and whose CPU kernel accepts it runs
// on that kernel.
void runTfliteFormsOnCpuKernels(const Model& model, const std::vector<bool>& delegated, NnapiGraph& graph);

}  // namespace nnemu::tflite
