// synap-npu's compiler: lowers an NNAPI model, with the input shapes of its first inference,
// into a serialized NPU program.
#pragma once

#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/hal/Types.h"

namespace nnemu::synap {

// Changes whenever the program format or the lowering changes what a program means; cached
// programs of another version are recompiled. Part of the device's version string.
// 4: int8 network ports and layers; 5: ADD/SUB between sign flips on int8 (SignedAdds.h);
// 6: packed weights; 7: filters of packed layers dropped (PackedFilters.h); 8: depthwise and
// unfolded convolutions stored packed; 9: requantizations that are sign flips become flips;
// 10: 8-bit windowed averages on their own exact layer (QuantizedAveragePool2D).
constexpr uint32_t kCompilerVersion = 10;

// The serialized program, or BAD_DATA saying which shape or operation the NPU cannot take.
Result<std::vector<uint8_t>> compileProgram(const hal::Model& model, const std::vector<std::vector<uint32_t>>& inputDims);

}  // namespace nnemu::synap
