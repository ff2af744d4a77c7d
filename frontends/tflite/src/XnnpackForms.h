// TFLite's default delegate: real TensorFlow Lite 2.21 applies XNNPACK to the nodes no other
// delegate took (benchmark_model without --use_xnnpack=false, label_image always). Its quantized
// arithmetic and its float summation orders differ from TFLite's builtin kernels': the table in
// XnnpackForms.cpp lists the 8-bit and float builtins it claims whose bytes differ, and with
// DelegateOptions::xnnpack such a node runs on the
// tools' CPU kernel with XNNPACK's arithmetic (QuantizedArithmetic::Xnnpack) instead of TFLite's
// builtin kernel's. Nodes it claims that compute the same bytes (RESHAPE) keep their path.
#pragma once

#include <vector>

#include "nnemu/tflite/Model.h"
#include "nnemu/tflite/NnapiGraph.h"

namespace nnemu::tflite {

// Moves every node `delegated` leaves out that XNNPACK would claim, whose bytes differ and whose
// CPU kernel accepts it under XNNPACK's arithmetic onto that kernel; true per such node.
std::vector<bool> runXnnpackFormsOnCpuKernels(const Model& model, const std::vector<bool>& delegated, NnapiGraph& graph);

}  // namespace nnemu::tflite
