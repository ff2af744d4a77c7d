#include "Isa.h"


#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string_view>

namespace nnemu::synap::kernels {

namespace {

// AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 (the OS saving the YMM state is AVX2's check).
// GCC 12's runtime has read it at start-up; clang 14's does not know the name.
bool avxVnni() {
#if defined(__x86_64__) && defined(__clang__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
#elif defined(__x86_64__)
    return __builtin_cpu_supports("avxvnni");
#else
    return false;
#endif
}

}  // namespace

const std::vector<Isa>& supportedIsas() {
    // Never destroyed: threads that outlive main (the pool's starter, a prefetch) may ask at exit.
    static const std::vector<Isa>* isas = [] {
        auto* found = new std::vector<Isa>{Isa::Portable};
        if (__builtin_cpu_supports("avx2")) found->push_back(Isa::Avx2);
        if (__builtin_cpu_supports("avx2") && avxVnni()) found->push_back(Isa::AvxVnni);
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vnni")) {
            found->push_back(Isa::Avx512Vnni);
        }
        return found;
    }();
    return *isas;
}

const char* isaName(Isa isa) {
    switch (isa) {
        case Isa::Avx2: return "avx2";
        case Isa::AvxVnni: return "avxvnni";
        case Isa::Avx512Vnni: return "avx512vnni";
        default: return "portable";
    }
}

Isa bestIsa() {
    static const Isa best = [] {
        // A cap the CPU lacks still caps: avxvnni on an AVX-512 machine without AVX-VNNI is avx2.
        constexpr Isa kRanked[] = {Isa::Portable, Isa::Avx2, Isa::AvxVnni, Isa::Avx512Vnni};
        const char* cap = std::getenv("NNEMU_NPU_KERNEL_ISA");
        const auto rank = [&](Isa isa) {
            return static_cast<size_t>(std::find(std::begin(kRanked), std::end(kRanked), isa) - std::begin(kRanked));
        };
        size_t capRank = std::size(kRanked) - 1;
        for (Isa isa : kRanked) {
            if (cap != nullptr && std::string_view(cap) == isaName(isa)) capRank = rank(isa);
        }
        Isa chosen = Isa::Portable;
        for (Isa isa : supportedIsas()) {
            if (rank(isa) <= capRank) chosen = isa;
        }
        return chosen;
    }();
    return best;
}

namespace {

struct AmxUnits {
    bool int8 = false;
    bool bf16 = false;
};

// __builtin_cpu_supports (GCC 12, clang 14) does not know AMX: CPUID leaf 7 subleaf 0, EDX bits 22 (AMX-BF16),
// 24 (AMX-TILE) and 25 (AMX-INT8). The tile data state is off for a process until it asks Linux
// for it (arch_prctl ARCH_REQ_XCOMP_PERM with XFEATURE_XTILEDATA, 18); a kernel or a VM that
// refuses leaves AMX unused.
AmxUnits amxUnits() {
    static const AmxUnits units = [] {
        AmxUnits found;
#if defined(__x86_64__)
        if (bestIsa() != Isa::Avx512Vnni) return found;
        const char* cap = std::getenv("NNEMU_NPU_KERNEL_ISA");
        if (cap != nullptr && *cap != '\0' && std::string_view(cap) != "amx") return found;
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return found;
        if ((edx & (1u << 24)) == 0) return found;
        constexpr long kArchGetXcompPerm = 0x1022, kArchReqXcompPerm = 0x1023, kXtileData = 18;
        if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXtileData) != 0) return found;
        unsigned long permitted = 0;
        if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &permitted) != 0 ||
            (permitted & (1ul << kXtileData)) == 0) {
            return found;
        }
        // (The int8 kernel's epilogue also takes AVX512-VBMI, GemmAvx512Fields.h: every AMX CPU has it.)
        found.int8 = (edx & (1u << 25)) != 0 && __builtin_cpu_supports("avx512vbmi");
        found.bf16 = (edx & (1u << 22)) != 0 && __builtin_cpu_supports("avx512bf16");
#endif
        return found;
    }();
    return units;
}

}  // namespace

bool amxInt8Usable() { return amxUnits().int8; }
bool amxBf16Usable() { return amxUnits().bf16; }

}  // namespace nnemu::synap::kernels
