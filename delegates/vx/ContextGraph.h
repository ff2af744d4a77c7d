// The graph a TFLite host shows the delegate (TfLiteContext: execution plan, nodes, builtin_data,
// tensors) rebuilt as a nnemu tflite::Model, so that the loader's TFLite-to-NNAPI mapping runs on
// it unchanged. This is the seam between builtin_data and the flatbuffer options the mapping
// reads: each operator whose builtin_data is converted here can be delegated; any other keeps its
// place in the plan but is left out of the model and falls back to the host.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nnemu/delegate/TfLiteAbi.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::vx {

struct ContextGraph {
    std::unique_ptr<tflite::Model> model;
    std::vector<int> planNodes;            // model node i is the host's node planNodes[i]
    std::vector<int> modelNodeOfPlan;      // per plan position: model node or -1 (left out)
    std::vector<int32_t> builtinCodes;     // per plan position
};

// nullptr with a message when the context cannot be read at all.
std::unique_ptr<ContextGraph> readContext(TfLiteContext* context, std::string* error);

}  // namespace nnemu::vx
