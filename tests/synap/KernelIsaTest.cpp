// The own kernels' ISA list (driver/synap/kernels/Isa.h) against CPUID read here, and the cap
// NNEMU_NPU_KERNEL_ISA names (the ctest variants banded_pairs_* run these too).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "kernels/Isa.h"

namespace nnemu::synap::kernels {
namespace {

bool supports(Isa isa) {
    const auto& isas = supportedIsas();
    return std::find(isas.begin(), isas.end(), isa) != isas.end();
}

TEST(KernelIsa, AvxVnniWhereCpuidHasItOnTopOfAvx2) {
    bool avxVnni = false;
#if defined(__x86_64__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    // CPUID leaf 7 subleaf 1, EAX bit 4: AVX-VNNI (the VEX-encoded vpdpbusd and vpdpwssd).
    avxVnni = __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
#endif
    EXPECT_EQ(supports(Isa::AvxVnni), supports(Isa::Avx2) && avxVnni);
}

TEST(KernelIsa, ListedFromPortableUp) {
    const Isa ranked[] = {Isa::Portable, Isa::Avx2, Isa::AvxVnni, Isa::Avx512Vnni};
    const auto& isas = supportedIsas();
    ASSERT_FALSE(isas.empty());
    EXPECT_EQ(isas.front(), Isa::Portable);
    EXPECT_TRUE(std::includes(std::begin(ranked), std::end(ranked), isas.begin(), isas.end(),
                              [&](Isa a, Isa b) {
                                  return std::find(std::begin(ranked), std::end(ranked), a) <
                                         std::find(std::begin(ranked), std::end(ranked), b);
                              }));
}

TEST(KernelIsa, AvxVnniReadsAvx2Layouts) {
    EXPECT_EQ(baseIsa(Isa::AvxVnni), Isa::Avx2);
    for (Isa isa : {Isa::Portable, Isa::Avx2, Isa::Avx512Vnni}) EXPECT_EQ(baseIsa(isa), isa) << isaName(isa);
    EXPECT_EQ(std::string_view(isaName(Isa::AvxVnni)), "avxvnni");
}

TEST(KernelIsa, TheNamedCapRunsWhereTheCpuHasIt) {
    const char* cap = std::getenv("NNEMU_NPU_KERNEL_ISA");
    if (cap == nullptr) GTEST_SKIP() << "NNEMU_NPU_KERNEL_ISA unset";
    for (Isa isa : supportedIsas()) {
        if (std::string_view(cap) == isaName(isa)) {
            EXPECT_EQ(bestIsa(), isa) << cap;
            return;
        }
    }
    // Named but not run here (or amx): the cap never lifts above what the CPU has.
    EXPECT_TRUE(supports(bestIsa()));
    if (std::string_view(cap) == "avxvnni") {
        EXPECT_NE(bestIsa(), Isa::Avx512Vnni);
    }
}

}  // namespace
}  // namespace nnemu::synap::kernels
