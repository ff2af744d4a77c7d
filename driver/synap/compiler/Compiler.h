// synap-npu's compiler: lowers an NNAPI model, with the input shapes of its first inference,
// into a serialized NPU program.
#pragma once

#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/hal/Types.h"
#include "../program/ProgramVersion.h"

namespace nnemu::synap {

// The serialized program, or BAD_DATA saying which shape or operation the NPU cannot take.
Result<std::vector<uint8_t>> compileProgram(const hal::Model& model, const std::vector<std::vector<uint32_t>>& inputDims);

}  // namespace nnemu::synap
