// Output shapes TFLite's kernels set at prepare rather than reading from the file. The file
// reader calls this once per subgraph, after its tensors and nodes are read, so that everything
// downstream (lowering, the interpreter's buffers, the tools' outputs) sees the shapes TFLite's
// interpreter would. Today: TFLite_Detection_PostProcess, whose converter often leaves its four
// outputs without a shape.
#pragma once

#include <vector>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

// shapeUnknown[t]: tensor t has no shape in the file (absent or empty) or a shape_signature
// with an unknown (negative) dimension. Only such outputs are sized; a node whose options
// cannot be read is left alone (its lowering reports the options' problem).
void sizeOutputsAtPrepare(Subgraph& graph, const std::vector<bool>& shapeUnknown);

}  // namespace nnemu::tflite
