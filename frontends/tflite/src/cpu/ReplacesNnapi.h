// Rows of the rule in TfliteKernelForms.h (forms NNAPI expresses but TFLite's builtin kernels
// compute otherwise) whose test needs the CPU kernel's prepared call: int8 CONV_2D and
// FULLY_CONNECTED, which TFLite's x86 build runs on ruy and rounds as ruy does (ConvInt8.cpp).
// The rows: kReplacesNnapi in CpuKernelTable.cpp.
#pragma once

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

// Whether `node` (its CPU kernel's prepare() accepts it) runs on the tools' kernel on the CPU path.
bool cpuKernelReplacesNnapi(const Subgraph& subgraph, const Node& node);

}  // namespace nnemu::tflite
