// The instruction sets the NPU core's own kernels come in, and the one this CPU runs best.
#pragma once

#include <cstdint>
#include <vector>

namespace nnemu::synap::kernels {

enum class Isa : uint8_t { Portable, Avx2, Avx512Vnni };

// Every Isa this CPU runs (cpuinfo), Portable first.
const std::vector<Isa>& supportedIsas();
// The best supported Isa, capped by NNEMU_NPU_KERNEL_ISA (portable, avx2, avx512vnni) if set.
Isa bestIsa();
const char* isaName(Isa isa);

}  // namespace nnemu::synap::kernels
