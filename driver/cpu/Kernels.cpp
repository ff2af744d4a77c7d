#include "nnemu/cpu/Kernels.h"

#include <cassert>

#include "kernels/KernelList.h"
#include "nnemu/hal/ControlFlow.h"
#include "nnemu/hal/OperationCoverage.h"

namespace nnemu::cpu {
namespace {

// Every reference kernel, from the rows of kernels/Kernels.def. Explicit, so that what is
// registered does not depend on how the library is linked.
constexpr KernelEntry kKernels[] = {
#define NNEMU_KERNEL(operation, kernel) {hal::OperationType::operation, kernels::kernel},
#include "kernels/Kernels.def"
#undef NNEMU_KERNEL
};

hal::OperationIndex<KernelEntry> buildIndex() {
    assert(kernelCoverageProblems().empty() && "driver/cpu/kernels/Kernels.def: a kernel missing or listed twice");
    return hal::OperationIndex<KernelEntry>(kKernels);
}

}  // namespace

std::vector<hal::OperationType> listedKernels() {
    return hal::operationsOf<KernelEntry>(kKernels);
}

std::vector<std::string> kernelCoverageProblems() {
    return hal::coverageProblems(listedKernels(), kReferenceFeatureLevel, hal::isControlFlow, "reference kernel");
}

Kernel findKernel(hal::OperationType type) {
    static const hal::OperationIndex<KernelEntry> index = buildIndex();
    const KernelEntry* entry = index.find(type);
    return entry == nullptr ? nullptr : entry->kernel;
}

}  // namespace nnemu::cpu
