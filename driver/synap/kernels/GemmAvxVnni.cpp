// The quantized GEMM on AVX-VNNI (GemmAvx2Body.h): the AVX2 kernel and layout with the real
// VEX-encoded vpdpbusd. Compiled with AVX2 and AVX-VNNI flags: only called when the CPU has them.
#include "GemmAvx2Body.h"

namespace nnemu::synap::kernels {
namespace {

struct VnniDot {
    static constexpr bool kSplitRows = false;
    using Weights = __m256i;
    using Values = __m256i;
    static Weights weights(__m256i w) { return w; }
    static Values values(__m256i x) { return x; }
    static __m256i add(__m256i acc, __m256i x, __m256i w) { return _mm256_dpbusd_avx_epi32(acc, x, w); }
    static void groups4(const uint8_t* rows, size_t rowStride, const int8_t* weights, size_t groups, __m256i flip,
                        __m256i (&acc)[4][2]);
};

// gemmTile's depth loop for 4 rows, one asm statement per depth group: 8 accumulators, 2 weight
// vectors, the broadcast row and the flip take 12 of the 16 vector registers, where GCC 12's
// allocation of the same intrinsics kept 2 accumulators on the stack, stored on every group
// (Zen 5, NNEMU_NPU_KERNEL_ISA=avxvnni, Gemm/: 3136x128x128 490 -> 365-391 us, 49x960x320 119 ->
// 86-91, 3136x144x24 153 -> 118, 12544x16x96 450 -> 395).
#define NNEMU_VNNI_ROW(i)                             \
    "vpbroadcastd (%[r" #i "]), %[x]\n\t"             \
    "vpxor %[flip], %[x], %[x]\n\t"                   \
    "%{vex%} vpdpbusd %[w0], %[x], %[a" #i "0]\n\t"   \
    "%{vex%} vpdpbusd %[w1], %[x], %[a" #i "1]\n\t"

void VnniDot::groups4(const uint8_t* rows, size_t rowStride, const int8_t* weights, size_t groups, __m256i flip,
                      __m256i (&acc)[4][2]) {
    __m256i a00 = acc[0][0], a01 = acc[0][1], a10 = acc[1][0], a11 = acc[1][1];
    __m256i a20 = acc[2][0], a21 = acc[2][1], a30 = acc[3][0], a31 = acc[3][1];
    for (size_t g = 0; g < groups; ++g) {
        __m256i w0, w1, x;
        const uint8_t* r = rows + g * 4;
        asm("vmovdqu (%[w]), %[w0]\n\t"
            "vmovdqu 32(%[w]), %[w1]\n\t"
            NNEMU_VNNI_ROW(0) NNEMU_VNNI_ROW(1) NNEMU_VNNI_ROW(2) NNEMU_VNNI_ROW(3)
            : [a00] "+x"(a00), [a01] "+x"(a01), [a10] "+x"(a10), [a11] "+x"(a11), [a20] "+x"(a20), [a21] "+x"(a21),
              [a30] "+x"(a30), [a31] "+x"(a31), [w0] "=&x"(w0), [w1] "=&x"(w1), [x] "=&x"(x)
            : [w] "r"(weights + g * 64), [r0] "r"(r), [r1] "r"(r + rowStride), [r2] "r"(r + 2 * rowStride),
              [r3] "r"(r + 3 * rowStride), [flip] "x"(flip), "m"(*(const char(*)[64])(weights + g * 64)),
              "m"(*(const char(*)[4])r), "m"(*(const char(*)[4])(r + rowStride)),
              "m"(*(const char(*)[4])(r + 2 * rowStride)), "m"(*(const char(*)[4])(r + 3 * rowStride)));
    }
    acc[0][0] = a00, acc[0][1] = a01, acc[1][0] = a10, acc[1][1] = a11;
    acc[2][0] = a20, acc[2][1] = a21, acc[3][0] = a30, acc[3][1] = a31;
}
#undef NNEMU_VNNI_ROW

}  // namespace

void gemmAvxVnni(const GemmArgs& a) { gemmRows<VnniDot>(a); }

}  // namespace nnemu::synap::kernels
