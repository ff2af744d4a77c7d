// Checks on a loaded graph before it is lowered: the data flow TFLite's interpreter relies on
// (nodes in execution order, one writer per tensor) and the memory its tensors need.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

// Every node reads only constants, subgraph inputs and earlier nodes' outputs; every tensor has
// at most one writer; every subgraph output gets a value.
bool checkDataFlow(const Subgraph& graph, std::string* error);
inline bool checkDataFlow(const Model& model, std::string* error) { return checkDataFlow(model.subgraphs()[0], error); }

// The non-constant tensors the interpreter keeps a buffer for (subgraph inputs and outputs,
// node inputs and outputs), ascending; false when they need more than 1 GB.
bool tensorsInUse(const Subgraph& graph, std::vector<int32_t>* used, std::string* error);
inline bool tensorsInUse(const Model& model, std::vector<int32_t>* used, std::string* error) {
    return tensorsInUse(model.subgraphs()[0], used, error);
}

}  // namespace nnemu::tflite
