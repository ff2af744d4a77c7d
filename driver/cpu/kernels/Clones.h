// One build of a function per x86-64 vector level (target_clones), chosen once at load. With GCC
// its callees are inlined into each build (flatten); clang does not combine flatten with
// multiversioning, so there the builds inline only what clang inlines anyway (the sanitizer and
// fuzz builds: same results, other speed).
#pragma once

#if defined(__clang__)
#define NNEMU_FLATTEN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NNEMU_FLATTEN_CLONES __attribute__((flatten, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
