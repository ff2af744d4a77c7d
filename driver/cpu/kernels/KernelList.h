// The reference kernels Kernels.def lists, declared from its rows: each family file defines its
// rows' functions (nnemu::cpu::kernels::<kernel>), driver/cpu/Kernels.cpp lists them.
#pragma once

#include "nnemu/cpu/Kernels.h"

namespace nnemu::cpu {

// The HAL names every kernel file uses.
using hal::OperandType;
using hal::OperandView;
using hal::OperationContext;
using hal::OperationType;

}  // namespace nnemu::cpu

namespace nnemu::cpu::kernels {

#define NNEMU_KERNEL(operation, kernel) bool kernel(hal::OperationContext& context);
#include "Kernels.def"
#undef NNEMU_KERNEL

}  // namespace nnemu::cpu::kernels
