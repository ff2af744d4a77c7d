// TFLite's Interpreter::Invoke runs the whole primary subgraph with denormal floats suppressed in
// the calling thread (ruy's scoped suppression: on x86 the MXCSR bits flush-to-zero, 0x8000, and
// denormals-are-zero, 0x0040; on AArch64 the FPCR's FZ, bit 24, and FZ16, bit 19), and restores
// the thread's previous state afterwards. Every builtin kernel, and every delegate kernel called
// from that thread (TFLite's NNAPI delegate calling nnemu's library, an external delegate), thus
// reads denormal inputs as zero and flushes denormal results to zero. The tools' invoke holds one
// of these so that their CPU kernels and the partitions they call compute the same values. On
// other architectures it does nothing (TFLite's also sets 32-bit ARM's FPSCR).
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace nnemu::tflite {

class ScopedDenormalFlush {
public:
    ScopedDenormalFlush() {
#if defined(__x86_64__) || defined(__i386__)
        saved_ = _mm_getcsr();
        _mm_setcsr(static_cast<unsigned>(saved_) | 0x8040u);   // FTZ | DAZ
#elif defined(__aarch64__)
        __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
        const uint64_t flushed = saved_ | (uint64_t{1} << 24) | (uint64_t{1} << 19);   // FZ | FZ16
        __asm__ __volatile__("msr fpcr, %0" : : "r"(flushed));
#endif
    }
    ~ScopedDenormalFlush() {
#if defined(__x86_64__) || defined(__i386__)
        _mm_setcsr(static_cast<unsigned>(saved_));
#elif defined(__aarch64__)
        __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
#endif
    }
    ScopedDenormalFlush(const ScopedDenormalFlush&) = delete;
    ScopedDenormalFlush& operator=(const ScopedDenormalFlush&) = delete;

private:
    uint64_t saved_ = 0;   // the thread's MXCSR or FPCR before
};

}  // namespace nnemu::tflite
