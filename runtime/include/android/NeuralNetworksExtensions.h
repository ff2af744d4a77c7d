/*
 * nnemu: NNAPI vendor-extension entry points (feature levels 29 and 8), source-
 * compatible with the Android platform header <android/NeuralNetworksExtensions.h>.
 */

#ifndef ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_EXTENSIONS_H
#define ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_EXTENSIONS_H

#include <android/NeuralNetworks.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a device supports the named extension. */
int ANeuralNetworksDevice_getExtensionSupport(const ANeuralNetworksDevice* device,
                                              const char* extensionName,
                                              bool* isExtensionSupported)
        __NNAPI_INTRODUCED_IN(29);

/* Model-specific operand / operation codes for a type defined by an extension. */
int ANeuralNetworksModel_getExtensionOperandType(ANeuralNetworksModel* model,
                                                 const char* extensionName,
                                                 uint16_t operandCodeWithinExtension,
                                                 int32_t* type) __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksModel_getExtensionOperationType(ANeuralNetworksModel* model,
                                                   const char* extensionName,
                                                   uint16_t operationCodeWithinExtension,
                                                   ANeuralNetworksOperationType* type)
        __NNAPI_INTRODUCED_IN(29);

/* Opaque extra data attached to an operand of an extension type (copied). */
int ANeuralNetworksModel_setOperandExtensionData(ANeuralNetworksModel* model, int32_t index,
                                                 const void* data, size_t length)
        __NNAPI_INTRODUCED_IN(29);

#if NNEMU_NNAPI_API_LEVEL >= __NNAPI_FL8_MIN_ANDROID_API__
/* Feature level 8: vendor hints (extension, attribute code, opaque payload) for the one device of a
 * createForDevices compilation, and for the executions of such a compilation. */
int ANeuralNetworksCompilation_addExtensionAttribute(ANeuralNetworksCompilation* compilation,
                                                     const char* extensionName,
                                                     uint16_t attributeCodeWithinExtension,
                                                     const void* data, size_t length)
        __NNAPI_INTRODUCED_IN(__NNAPI_FL8_MIN_ANDROID_API__);
int ANeuralNetworksExecution_addExtensionAttribute(ANeuralNetworksExecution* execution,
                                                   const char* extensionName,
                                                   uint16_t attributeCodeWithinExtension,
                                                   const void* data, size_t length)
        __NNAPI_INTRODUCED_IN(__NNAPI_FL8_MIN_ANDROID_API__);
#endif /* NNEMU_NNAPI_API_LEVEL >= __NNAPI_FL8_MIN_ANDROID_API__ */

#ifdef __cplusplus
}
#endif

#endif /* ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_EXTENSIONS_H */
