// The instruction sets the NPU core's own kernels come in, and the one this CPU runs best.
#pragma once

#include <cstdint>
#include <vector>

namespace nnemu::synap::kernels {

// The values are stored in programs (PackedWeights.isa): new ones go last, whatever their rank.
enum class Isa : uint8_t { Portable, Avx2, Avx512Vnni, AvxVnni };

// AvxVnni is AVX2 plus AVX-VNNI (Alder Lake and later clients: vpdpbusd and vpdpwssd on 256-bit
// vectors, no AVX-512): its GEMM and depthwise kernels are the AVX2 ones with the real
// instructions, reading AVX2's packed layouts, and every other kernel is the AVX2 one. baseIsa
// gives the Isa whose layouts and other kernels an Isa uses (Avx2 for AvxVnni, itself otherwise):
// programs record it, so avx2 and avxvnni processes share their packed weights.
constexpr Isa baseIsa(Isa isa) { return isa == Isa::AvxVnni ? Isa::Avx2 : isa; }

// Every Isa this CPU and its OS run (the compiler runtime's CPUID and XGETBV checks,
// __builtin_cpu_supports: the library's start-up has run them already, where cpuinfo's
// initialization cost a new process 0.25-0.35 ms of CPUID exits in a VM), from Portable up:
// Portable, Avx2, AvxVnni, Avx512Vnni.
const std::vector<Isa>& supportedIsas();
// The best supported Isa, capped by NNEMU_NPU_KERNEL_ISA (portable, avx2, avxvnni, avx512vnni,
// amx) if set.
Isa bestIsa();
const char* isaName(Isa isa);

// AMX tiles on top of Avx512Vnni (Sapphire Rapids and later): the CPU has AMX-TILE and the
// named unit, Linux granted this process the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM,
// asked once), bestIsa() is Avx512Vnni and NNEMU_NPU_KERNEL_ISA does not cap below "amx" (unset
// or "amx"); amxInt8Usable() also asks for AVX512-VBMI (the int8 kernel's epilogue). Kernels
// using them keep Avx512Vnni's packed layouts, so a program's packed weights do not depend on
// AMX; each thread loads its own tile configuration.
bool amxInt8Usable();
bool amxBf16Usable();
// Gives the calling thread its AMX tile state now, where amxInt8Usable() or amxBf16Usable(), and
// releases the tiles again: Linux enlarges a thread's saved register state at its first tile
// instruction (a trap: ~20 us in a bare process on the 2-core VM, ~60 us in benchmark_model),
// which a program's first run would pay otherwise. Called for a program loaded from the NNAPI
// cache whose kernels may run on tiles, on the thread that runs Compilation_finish
// (NpuCore::prepareCallingThread). Once per thread. Where amxInt8Usable(), also faults in the
// thread's AMX GEMM scratch (prepareAmxGemmScratch), which its first GEMM would otherwise grow.
void prepareAmxThread();
// The calling thread's AMX int8 GEMM working memory, allocated and written once for GEMMs up to
// 1280 deep and wide (GemmAmxInt8.cpp): ~60 page faults of a warm process's first run moved to
// the thread's preparation.
void prepareAmxGemmScratch();

}  // namespace nnemu::synap::kernels
