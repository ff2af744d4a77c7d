#include "Isa.h"

#include <cpuinfo.h>

#include <cstdlib>
#include <string_view>

namespace nnemu::synap::kernels {

const std::vector<Isa>& supportedIsas() {
    static const std::vector<Isa> isas = [] {
        std::vector<Isa> found{Isa::Portable};
        if (!cpuinfo_initialize()) return found;
        if (cpuinfo_has_x86_avx2()) found.push_back(Isa::Avx2);
        if (cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() &&
            cpuinfo_has_x86_avx512dq() &&
            cpuinfo_has_x86_avx512vnni()) {
            found.push_back(Isa::Avx512Vnni);
        }
        return found;
    }();
    return isas;
}

const char* isaName(Isa isa) {
    switch (isa) {
        case Isa::Avx2: return "avx2";
        case Isa::Avx512Vnni: return "avx512vnni";
        default: return "portable";
    }
}

Isa bestIsa() {
    static const Isa best = [] {
        const char* cap = std::getenv("NNEMU_NPU_KERNEL_ISA");
        Isa chosen = Isa::Portable;
        for (Isa isa : supportedIsas()) {
            chosen = isa;
            if (cap != nullptr && std::string_view(cap) == isaName(isa)) break;
        }
        return chosen;
    }();
    return best;
}

}  // namespace nnemu::synap::kernels
