// The on-the-fly input quantization of TFLite's hybrid kernels (dynamic-range quantization:
// float activations, int8 weights), shared by the hybrid FULLY_CONNECTED and CONV_2D kernels:
// - symmetric: scale max|x| / 127, values round(x * 127 / max|x|) in [-127, 127]; all zeros give
//   zeros and scale 1;
// - asymmetric: over [min(0, min x), max(0, max x)] to [-128, 127], the zero point taken from
//   the end with the smaller error and nudged into range; an empty range gives zeros, scale 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nnemu/delegate/TfLiteAbi.h"

namespace nnemu::tflite::kernels::hybrid {

struct RowQuantization {
    float scale = 1;
    int32_t offset = 0;  // the zero point (asymmetric), else 0
};

RowQuantization quantizeSymmetric(const float* values, size_t size, int8_t* quantized);
RowQuantization quantizeAsymmetric(const float* values, size_t size, int8_t* quantized);
// A float output's fused activation (NONE, RELU, RELU_N1_TO_1, RELU6), as the hybrid
// FULLY_CONNECTED applies it (no bounds for NONE; RELU takes max(0, x): a NaN gives 0).
float activated(float value, TfLiteFusedActivation activation);
// As the hybrid convolutions apply it (ActivationFunctionWithMinMax): clamped to the
// activation's range, NONE's being the finite floats (an infinity ends at the largest float),
// max before min with the value first (a NaN passes).
float activatedWithMinMax(float value, TfLiteFusedActivation activation);

}  // namespace nnemu::tflite::kernels::hybrid

namespace nnemu::tflite::kernels::conv {

// A convolution's output size along one axis (SAME or VALID padding) and the padding before it.
int32_t outputSize(bool same, int32_t in, int32_t filter, int32_t stride, int32_t dilation);
int32_t padBefore(int32_t in, int32_t out, int32_t filter, int32_t stride, int32_t dilation);

}  // namespace nnemu::tflite::kernels::conv
