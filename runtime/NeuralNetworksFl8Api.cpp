// The C entry points of feature level 8: extension attributes of compilations and executions
// (nnapi-fl30plus.md §3.9). Null checks here, the rules in Compilation / Execution.
#include <android/NeuralNetworksExtensions.h>

#include "ApiGuard.h"
#include "Execution.h"

using namespace nnemu::runtime;

int ANeuralNetworksCompilation_addExtensionAttribute(ANeuralNetworksCompilation* compilation,
                                                     const char* extensionName,
                                                     uint16_t attributeCodeWithinExtension, const void* data,
                                                     size_t length) try {
    if (compilation == nullptr || extensionName == nullptr || (data == nullptr && length != 0)) {
        return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    return reinterpret_cast<Compilation*>(compilation)
            ->addExtensionAttribute(extensionName, attributeCodeWithinExtension, data, length);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_addExtensionAttribute(ANeuralNetworksExecution* execution, const char* extensionName,
                                                   uint16_t attributeCodeWithinExtension, const void* data,
                                                   size_t length) try {
    if (execution == nullptr || extensionName == nullptr || (data == nullptr && length != 0)) {
        return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    return reinterpret_cast<Execution*>(execution)
            ->addExtensionAttribute(extensionName, attributeCodeWithinExtension, data, length);
} NNEMU_API_GUARD
