// The second reader of the front end: the graph a TensorFlow Lite host shows a delegate
// (TfLiteContext: its execution plan, nodes, builtin_data and tensors) read as a Model in place.
// Nothing is serialized: constants, quantization scales and the nodes' builtin_data stay the
// host's and are read where the host keeps them (they live as long as the host's interpreter,
// which outlives the delegate's kernels), so the mapping reads exactly what the host's own kernels
// read. A node the view cannot carry (a custom operator, a tensor type, shape or quantization it
// cannot express) keeps its place in the plan but is left out of the model and stays with the host.
// Tensors are checked as the file reader checks them: rank, dimensions, an element count and byte
// size that fit 2 GB, finite non-negative scales, positive ones for quantized 8- and 16-bit
// tensors (NNAPI's quantized types require them), per-channel scales that match their dimension.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/delegate/TfLiteAbi.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

struct ContextGraph {
    std::unique_ptr<Model> model;          // one subgraph: the host's tensors, the readable nodes
    std::vector<int> planNodes;            // model node i is the host's node planNodes[i]
    std::vector<int> modelNodeOfPlan;      // per plan position: model node or -1 (left out)
    std::vector<int32_t> builtinCodes;     // per plan position
    std::vector<std::vector<int64_t>> zeroPoints;   // the model's per-channel zero points (the host's are int32)
    // Per host tensor: why the view cannot carry it ("tensor 3 (name): reason"), empty when it can.
    std::vector<std::string> tensorProblems;
};

// The graph, or BAD_DATA with a message when the context cannot be read at all.
Result<std::unique_ptr<ContextGraph>> readContext(TfLiteContext* context);

}  // namespace nnemu::tflite
