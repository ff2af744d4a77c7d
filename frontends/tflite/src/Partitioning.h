// Splitting a TFLite graph into node subsets the way TFLite's delegate partitioning does:
// each subset is entirely delegated or entirely CPU, subsets run in order and respect data
// dependencies, and as few subsets as possible are made. The delegate's partition limit keeps
// only the largest delegated subsets.
#pragma once

#include <cstdint>
#include <vector>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

struct NodeSubset {
    std::vector<uint32_t> nodes;   // ascending node indexes
    bool delegated = false;
};

// supported[n]: node n can go to the delegate. The model's nodes must be in execution order.
std::vector<NodeSubset> partitionNodes(const Model& model, const std::vector<bool>& supported);

// With maxDelegatedPartitions > 0 and more delegated subsets than that, the nodes of all but
// the largest (by node count; earlier first on ties) become unsupported. Returns the new list.
std::vector<bool> limitDelegatedPartitions(const std::vector<NodeSubset>& subsets, std::vector<bool> supported,
                                           int maxDelegatedPartitions);

}  // namespace nnemu::tflite
