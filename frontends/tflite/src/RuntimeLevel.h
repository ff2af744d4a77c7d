// The NNAPI feature level of the libneuralnetworks.so this process really uses, found at run
// time as TensorFlow Lite's delegate finds it: ANeuralNetworks_getRuntimeFeatureLevel when the
// library exports it, else the newest level whose marker function is exported. The loader's
// level-dependent choices (signed int8) all ask here.
#pragma once

#include <cstdint>

namespace nnemu::tflite {

int64_t nnapiRuntimeFeatureLevel();

// Feature level 30 brought TENSOR_QUANT8_ASYMM_SIGNED: int8 tensors keep their values. Below
// it they travel as uint8 with values and zero point shifted by 128.
bool nnapiHasSignedInt8();

}  // namespace nnemu::tflite
