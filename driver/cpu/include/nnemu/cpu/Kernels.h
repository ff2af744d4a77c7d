// Reference kernels of the nnapi-reference device: one per operation, defined in
// driver/cpu/kernels/<Family>.cpp and listed, one row each, in driver/cpu/kernels/Kernels.def. A
// kernel dispatches on operand types itself and returns false for a combination it does not
// implement.
#pragma once

#include <string>
#include <vector>

#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// Called with every input's data and dims known and every output's dims already inferred by
// the operation's signature and its buffer allocated.
using Kernel = bool (*)(hal::OperationContext& context);

// The feature level of nnapi-reference: every operation introduced up to it has a kernel.
constexpr int64_t kReferenceFeatureLevel = hal::kFeatureLevel7;

// One row of driver/cpu/kernels/Kernels.def.
struct KernelEntry {
    hal::OperationType type;
    Kernel kernel;
};

Kernel findKernel(hal::OperationType type);  // nullptr when none is listed
// Every operation of the rows of driver/cpu/kernels/Kernels.def, in their order (an
// operation listed twice appears twice).
std::vector<hal::OperationType> listedKernels();
// The list against OperationTable.def up to the reference device's feature level
// (hal/OperationCoverage.h): empty when every operation but IF and WHILE (which the executor
// interprets) has exactly one kernel. findKernel's first use asserts this in debug builds.
std::vector<std::string> kernelCoverageProblems();

}  // namespace nnemu::cpu
