// The TFLite-to-NNAPI mapping, as TFLite's NNAPI delegate maps a graph: a Model (read from a
// .tflite file or from a delegate's TfLiteContext, Model.h) lowered into an NnapiGraph. The
// lowering calls no NNAPI function, so delegates that run the result on a driver of their own use
// it too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/tflite/Model.h"
#include "nnemu/tflite/NnapiGraph.h"

namespace nnemu::tflite {

// Lowers every node of a (data-flow checked) model's main graph into graph; BAD_DATA
// "operator X at node N: reason" when a node has no NNAPI form. The subgraphs its IF and WHILE
// nodes run are lowered and built as NNAPI models on the way (graph.ownedReferences).
Status lowerModel(const Model& model, NnapiGraph& graph);
// The same for subgraph `index`; IF and WHILE need graph.references set.
Status lowerSubgraph(const Model& model, uint32_t index, NnapiGraph& graph);
// Lowers every node that has an NNAPI form and leaves the others without operations (false in
// the result, the reason in `reasons`): for delegates that keep those nodes on their host.
std::vector<bool> lowerMappableNodes(const Model& model, NnapiGraph& graph, std::vector<std::string>* reasons);
// A delegate that carries its own copy of the driver (libvx_delegate.so) states the NNAPI feature
// level it implements: the lowering's level-dependent choices then follow it instead of the
// libneuralnetworks.so the process may (or, in a TFLite host, may not) have in its global scope.
void useOwnNnapiFeatureLevel(int64_t level);

// The NNAPI operand type of a TFLite element type, for messages.
const char* nnapiTypeName(int32_t type);
// TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED: the types int8/uint8 activations take.
bool isQuant8Asymm(int32_t type);

}  // namespace nnemu::tflite
