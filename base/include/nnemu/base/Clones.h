// One build of a function per x86-64 vector level (target_clones, chosen once at load through an
// ifunc resolver). NNEMU_CLONES: just that; NNEMU_FLATTEN_CLONES: with GCC its callees are also
// inlined into each build (flatten). Only GCC builds get the clones; with clang both are empty
// (a baseline build: same results, other speed), because:
//  - clang 14 (Debian 12's) resolves "arch=x86-64-v4" by testing only whether the vendor field of
//    the CPU model (__cpu_model) is zero, not the CPU's features: where it was (the fuzz build on
//    an AVX2-only AMD EPYC, Zen 1) it took the AVX-512 build and died of SIGILL, elsewhere the
//    baseline;
//    clang's feature clones ("avx2") would dispatch right but cannot ask for FMA with AVX2 in one
//    build, which the resize's rounding needs (frontends/tflite/CMakeLists.txt);
//  - under ThreadSanitizer the instrumented ifunc resolvers run before its runtime is up and
//    crash the process at load.
// clang builds here are the sanitizer and fuzz builds (scripts/test.sh, scripts/sanitize.sh).
#pragma once

#if defined(__clang__) || defined(__SANITIZE_THREAD__)
#define NNEMU_NO_CLONES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NNEMU_NO_CLONES 1
#endif
#endif

#if defined(NNEMU_NO_CLONES)
#define NNEMU_CLONES
#define NNEMU_FLATTEN_CLONES
#else
#define NNEMU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define NNEMU_FLATTEN_CLONES __attribute__((flatten, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
