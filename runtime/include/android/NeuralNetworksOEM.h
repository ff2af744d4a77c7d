/*
 * nnemu: vendor-specific (OEM) NNAPI codes, source-compatible with the
 * Android NDK <android/NeuralNetworksOEM.h>. Deprecated since feature level 29.
 */

#ifndef ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_OEM_H
#define ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_OEM_H

#include <android/NeuralNetworks.h>

/* OEM operand types (ANeuralNetworksOperandType::type). */
enum {
    ANEURALNETWORKS_OEM_SCALAR = 10000,
    ANEURALNETWORKS_TENSOR_OEM_BYTE = 10001
};

/* OEM operation type (ANeuralNetworksModel_addOperation). */
enum {
    ANEURALNETWORKS_OEM_OPERATION = 10000
};

#endif /* ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_OEM_H */
