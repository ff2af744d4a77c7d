/* The Support Library table as a C loader sees it: the LP64 layout of nnapi-fl30plus.md §4.2. */
#include <android/NeuralNetworksSupportLibraryImpl.h>

#include <stddef.h>

#if defined(__LP64__) || defined(_LP64)
_Static_assert(sizeof(NnApiSLDriverImpl) == 8, "head");
_Static_assert(offsetof(NnApiSLDriverImplFL5, ANeuralNetworksBurst_create) == 8, "first pointer");
_Static_assert(offsetof(NnApiSLDriverImplFL5, ANeuralNetworksExecution_compute) == 200, "#24");
_Static_assert(offsetof(NnApiSLDriverImplFL5, ANeuralNetworksExecution_setReusable) == 304, "#37");
_Static_assert(offsetof(NnApiSLDriverImplFL5, ANeuralNetworksMemory_createFromFd) == 400, "#49");
_Static_assert(offsetof(NnApiSLDriverImplFL5, ANeuralNetworks_getRuntimeFeatureLevel) == 568, "#70");
_Static_assert(offsetof(NnApiSLDriverImplFL5, SL_ANeuralNetworksDiagnostic_registerCallbacks) == 832,
               "last pointer");
_Static_assert(sizeof(NnApiSLDriverImplFL5) == 840, "FL5 table");
_Static_assert(sizeof(NnApiSLDriverImplFL7) == 840, "FL7 table");
_Static_assert(offsetof(NnApiSLDriverImplFL8, ANeuralNetworksCompilation_addExtensionAttribute) == 840,
               "FL8 tail");
_Static_assert(sizeof(NnApiSLDriverImplFL8) == 856, "FL8 table");
_Static_assert(sizeof(SL_ANeuralNetworksPerformanceInfo) == 8, "performance info");
_Static_assert(sizeof(SL_ANeuralNetworksOperandPerformanceInfo) == 12, "operand performance info");
_Static_assert(offsetof(SL_ANeuralNetworksExtensionOperandTypeInformation, type) == 4, "type");
_Static_assert(offsetof(SL_ANeuralNetworksExtensionOperandTypeInformation, isTensor) == 6, "isTensor");
_Static_assert(sizeof(SL_ANeuralNetworksExtensionOperandTypeInformation) == 8, "extension operand type");
#endif
