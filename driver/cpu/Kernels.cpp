#include "nnemu/cpu/Kernels.h"

#include <array>

namespace nnemu::cpu {
namespace {

std::array<Kernel, hal::kNumberOfOperationTypes>& table() {
    static std::array<Kernel, hal::kNumberOfOperationTypes> kernels{};
    return kernels;
}

}  // namespace

void registerKernel(hal::OperationType type, Kernel kernel) {
    const auto code = static_cast<int32_t>(type);
    if (code >= 0 && code < hal::kNumberOfOperationTypes) table()[code] = kernel;
}

Kernel findKernel(hal::OperationType type) {
    const auto code = static_cast<int32_t>(type);
    if (code < 0 || code >= hal::kNumberOfOperationTypes) return nullptr;
    return table()[code];
}

}  // namespace nnemu::cpu
