// Checks on a loaded graph before it is lowered: the data flow TFLite's interpreter relies on
// (nodes in execution order, one writer per tensor) and the memory its tensors need.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

// Every node reads only constants, subgraph inputs and earlier nodes' outputs; every tensor has
// at most one writer; every subgraph output gets a value. BAD_DATA naming the node and tensor
// otherwise.
Status checkDataFlow(const Subgraph& graph);
inline Status checkDataFlow(const Model& model) { return checkDataFlow(model.subgraphs()[0]); }

// The non-constant tensors the interpreter keeps a buffer for (subgraph inputs and outputs,
// node inputs and outputs), ascending; RESOURCE_EXHAUSTED_PERSISTENT when they need more than 1 GB.
Result<std::vector<int32_t>> tensorsInUse(const Subgraph& graph);
inline Result<std::vector<int32_t>> tensorsInUse(const Model& model) { return tensorsInUse(model.subgraphs()[0]); }

}  // namespace nnemu::tflite
