// A per-operation list (signatures, a device's kernels or lowering rules) against the table of
// OperationTable.def.
#pragma once

#include <string>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::hal {

// What is wrong with `listed` (the operations a list has an entry for, one element per entry):
// an operation of the table introduced at or below `featureLevel` with no entry or with more than
// one, an entry for a code outside the table. `exempt` operations need no entry (nullptr: none).
// `what` names an entry in the messages ("signature", "reference kernel"). Empty when complete.
std::vector<std::string> coverageProblems(const std::vector<OperationType>& listed, int64_t featureLevel,
                                          bool (*exempt)(OperationType), const std::string& what);

}  // namespace nnemu::hal
