/*
 * Compile-only check of the header's availability guards: an application sees exactly the
 * functions of the API level it builds for (__ANDROID_API__, as with the NDK), or, without one,
 * those of the level libneuralnetworks.so implements. The build compiles this file once per level
 * with NNEMU_EXPECT_API set to the level whose functions must be visible: each visible function is
 * bound to a pointer of its exact type; each hidden one is redeclared as an enumerator, which
 * fails to compile if the header declared it.
 */
#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksExtensions.h>

#ifndef NNEMU_EXPECT_API
#error "the build defines NNEMU_EXPECT_API"
#endif

#define NN_FL30_FUNCTIONS(X)                                                                       \
    X(int, ANeuralNetworksMemoryDesc_create, (ANeuralNetworksMemoryDesc**))                        \
    X(void, ANeuralNetworksMemoryDesc_free, (ANeuralNetworksMemoryDesc*))                          \
    X(int, ANeuralNetworksMemoryDesc_addInputRole,                                                 \
      (ANeuralNetworksMemoryDesc*, const ANeuralNetworksCompilation*, uint32_t, float))            \
    X(int, ANeuralNetworksMemoryDesc_addOutputRole,                                                \
      (ANeuralNetworksMemoryDesc*, const ANeuralNetworksCompilation*, uint32_t, float))            \
    X(int, ANeuralNetworksMemoryDesc_setDimensions,                                                \
      (ANeuralNetworksMemoryDesc*, uint32_t, const uint32_t*))                                     \
    X(int, ANeuralNetworksMemoryDesc_finish, (ANeuralNetworksMemoryDesc*))                         \
    X(int, ANeuralNetworksMemory_createFromDesc,                                                   \
      (const ANeuralNetworksMemoryDesc*, ANeuralNetworksMemory**))                                 \
    X(int, ANeuralNetworksMemory_copy, (const ANeuralNetworksMemory*, const ANeuralNetworksMemory*)) \
    X(int, ANeuralNetworksDevice_wait, (const ANeuralNetworksDevice*))                             \
    X(int, ANeuralNetworksModel_setOperandValueFromModel,                                          \
      (ANeuralNetworksModel*, int32_t, const ANeuralNetworksModel*))                               \
    X(int, ANeuralNetworksCompilation_setPriority, (ANeuralNetworksCompilation*, int))             \
    X(int, ANeuralNetworksCompilation_setTimeout, (ANeuralNetworksCompilation*, uint64_t))         \
    X(int, ANeuralNetworksExecution_setTimeout, (ANeuralNetworksExecution*, uint64_t))             \
    X(int, ANeuralNetworksExecution_setLoopTimeout, (ANeuralNetworksExecution*, uint64_t))         \
    X(uint64_t, ANeuralNetworks_getDefaultLoopTimeout, (void))                                     \
    X(uint64_t, ANeuralNetworks_getMaximumLoopTimeout, (void))                                     \
    X(int, ANeuralNetworksEvent_createFromSyncFenceFd, (int, ANeuralNetworksEvent**))              \
    X(int, ANeuralNetworksEvent_getSyncFenceFd, (const ANeuralNetworksEvent*, int*))               \
    X(int, ANeuralNetworksExecution_startComputeWithDependencies,                                  \
      (ANeuralNetworksExecution*, const ANeuralNetworksEvent* const*, uint32_t, uint64_t,          \
       ANeuralNetworksEvent**))

#define NN_FL5_FUNCTIONS(X)                                                                        \
    X(int64_t, ANeuralNetworks_getRuntimeFeatureLevel, (void))                                     \
    X(int, ANeuralNetworksExecution_enableInputAndOutputPadding, (ANeuralNetworksExecution*, bool)) \
    X(int, ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput,                         \
      (const ANeuralNetworksCompilation*, uint32_t, uint32_t*))                                    \
    X(int, ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput,                           \
      (const ANeuralNetworksCompilation*, uint32_t, uint32_t*))                                    \
    X(int, ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput,                        \
      (const ANeuralNetworksCompilation*, uint32_t, uint32_t*))                                    \
    X(int, ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput,                          \
      (const ANeuralNetworksCompilation*, uint32_t, uint32_t*))                                    \
    X(int, ANeuralNetworksExecution_setReusable, (ANeuralNetworksExecution*, bool))

#define NN_FL8_FUNCTIONS(X)                                                                        \
    X(int, ANeuralNetworksCompilation_addExtensionAttribute,                                       \
      (ANeuralNetworksCompilation*, const char*, uint16_t, const void*, size_t))                   \
    X(int, ANeuralNetworksExecution_addExtensionAttribute,                                         \
      (ANeuralNetworksExecution*, const char*, uint16_t, const void*, size_t))

typedef void (*nn_any_function)(void);

#define NN_BIND(ret, name, params)             \
    {                                          \
        ret(*const typed) params = name;       \
        out[n++] = (nn_any_function)typed;     \
    }
#define NN_HIDE(ret, name, params) name##_hidden_marker, name = 0,

size_t nnapi_header_levels_check(nn_any_function* out);

size_t nnapi_header_levels_check(nn_any_function* out) {
    size_t n = 0;
#if NNEMU_EXPECT_API >= 30
    NN_FL30_FUNCTIONS(NN_BIND)
#endif
#if NNEMU_EXPECT_API >= 31
    NN_FL5_FUNCTIONS(NN_BIND)
#endif
#if NNEMU_EXPECT_API >= 33
    NN_FL8_FUNCTIONS(NN_BIND)
#endif
    (void)out;
    return n;
}

/* The hidden ones: a file-scope enumerator of the same name conflicts with any declaration. */
#if NNEMU_EXPECT_API < 30
enum nn_hidden_fl30 { NN_FL30_FUNCTIONS(NN_HIDE) nn_hidden_fl30_end };
#endif
#if NNEMU_EXPECT_API < 31
enum nn_hidden_fl5 { NN_FL5_FUNCTIONS(NN_HIDE) nn_hidden_fl5_end };
#endif
#if NNEMU_EXPECT_API < 33
enum nn_hidden_fl8 { NN_FL8_FUNCTIONS(NN_HIDE) nn_hidden_fl8_end };
#endif

/* The constants of every level stay visible whatever the level asked for. */
_Static_assert(ANEURALNETWORKS_FEATURE_LEVEL_8 == 1000008, "FeatureLevelCode");
_Static_assert(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED == 14, "OperandCode");
_Static_assert(ANEURALNETWORKS_REVERSE == 105, "OperationCode");
