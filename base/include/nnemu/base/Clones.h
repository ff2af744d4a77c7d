// One build of a function per x86-64 vector level (target_clones, chosen once at load through an
// ifunc resolver). NNEMU_CLONES: just that; NNEMU_FLATTEN_CLONES: with GCC its callees are also
// inlined into each build (flatten), which clang does not combine with multiversioning. Under
// ThreadSanitizer both are empty: its instrumented ifunc resolvers run before its runtime is up
// and crash the process at load (a baseline build only: same results, other speed).
#pragma once

#if defined(__SANITIZE_THREAD__)
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
#if defined(__clang__)
#define NNEMU_FLATTEN_CLONES NNEMU_CLONES
#else
#define NNEMU_FLATTEN_CLONES __attribute__((flatten, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
