// The one rule for forms NNAPI expresses but TFLite's builtin kernels compute otherwise (int8
// CONV_2D and FULLY_CONNECTED: TFLite's x86 build rounds their requantization as ruy does,
// ConvInt8.cpp). Outside
// delegated partitions such a node runs on the tools' CPU kernel in place of nnapi-reference, so
// that the CPU path gives TFLite's bytes; delegated partitions keep NNAPI's semantics, as with
// TFLite's own delegate. The rows: kReplacesNnapi in CpuKernelTable.cpp.
#pragma once

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

// Whether `node` (its CPU kernel's prepare() accepts it) runs on the tools' kernel on the CPU path.
bool cpuKernelReplacesNnapi(const Subgraph& subgraph, const Node& node);

}  // namespace nnemu::tflite
