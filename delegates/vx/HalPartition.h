// A subset of the lowered graph as a HAL model for the synap-npu driver, the way the runtime
// hands a finished NNAPI model to a device: operands, operations, constants copied in, inputs and
// outputs named by the TFLite tensors they carry.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/tflite/NnapiGraph.h"
#include "nnemu/hal/Types.h"

namespace nnemu::vx {

struct HalPartition {
    hal::Model model;
    std::vector<int32_t> inputTensors;   // per model input, the TFLite tensor
    std::vector<int32_t> outputTensors;  // per model output
    std::vector<uint32_t> operationNodes;  // per model operation, the graph node it implements
};

// `nodes`: graph (model) node indexes. `outputs`: the TFLite tensors the host reads afterwards
// (every other value stays inside). BAD_DATA when the subset has no operation or produces none
// of `outputs`.
Result<HalPartition> buildHalPartition(const tflite::NnapiGraph& graph, const std::vector<uint32_t>& nodes,
                                       const std::set<int32_t>& outputs);

}  // namespace nnemu::vx
