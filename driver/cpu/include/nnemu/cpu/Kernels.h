// Reference kernels of the nnapi-reference device: one per operation, registered from
// driver/cpu/kernels/<family>.cpp. A kernel dispatches on operand types itself and returns
// false for a combination it does not implement.
#pragma once

#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// Called with every input's data and dims known and every output's dims already inferred by
// the operation's signature and its buffer allocated.
using Kernel = bool (*)(hal::OperationContext& context);

void registerKernel(hal::OperationType type, Kernel kernel);
Kernel findKernel(hal::OperationType type);  // nullptr when none is registered

struct KernelRegistrar {
    KernelRegistrar(hal::OperationType type, Kernel kernel) { registerKernel(type, kernel); }
};

#define NN_REGISTER_KERNEL(name, kernel)                                   \
    static const ::nnemu::cpu::KernelRegistrar kKernelRegistrar_##name(   \
            ::nnemu::hal::OperationType::name, kernel)

}  // namespace nnemu::cpu
