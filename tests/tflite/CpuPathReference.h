// The catalog's CPU-path models (deeplab_segmenter_*, pose_keypoints_float, extreme_scales_quant)
// computed in plain C++: convolution from the model's constants, align-corners bilinear resizing,
// argmax, and the keypoint decoding. Values travel as doubles; uint8 is dequantized.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "DenseReference.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::tflite::test {

// Real values of float32, uint8 (dequantized), int32 (times its scale when it has one: a
// quantized bias) and int64 tensors.
inline std::vector<double> numbersOf(const Tensor& t, const uint8_t* data) {
    if (t.type != ElementType::INT32 && t.type != ElementType::INT64) {
        const std::vector<float> real = realValues(t, data);
        return {real.begin(), real.end()};
    }
    const size_t size = elementSize(t.type), count = t.byteSize() / size;
    std::vector<double> values(count);
    for (size_t i = 0; i < count; ++i) {
        int64_t v = 0;
        if (size == 4) {
            int32_t v32;
            std::memcpy(&v32, data + 4 * i, 4);
            v = v32;
        } else {
            std::memcpy(&v, data + 8 * i, 8);
        }
        values[i] = t.scale > 0 && size == 4 ? t.scale * static_cast<double>(v) : static_cast<double>(v);
    }
    return values;
}

inline std::vector<double> constantNumbers(const Model& model, const std::string& name) {
    for (const Tensor& t : model.tensors()) {
        if (t.name == name && t.isConstant) return numbersOf(t, t.data);
    }
    ADD_FAILURE() << "no constant " << name;
    return {};
}

// A smooth test pattern in [-1, 1) in the input tensor's type (uint8: quantized with clamping).
inline std::vector<uint8_t> patternBytes(const Tensor& t) {
    const size_t count = t.byteSize() / elementSize(t.type);
    std::vector<uint8_t> bytes(t.byteSize());
    for (size_t i = 0; i < count; ++i) {
        const float real = 0.1f + 0.85f * std::sin(static_cast<float>(i) * 0.37f) * std::cos(static_cast<float>(i) * 0.05f);
        if (t.type == ElementType::FLOAT32) {
            std::memcpy(bytes.data() + 4 * i, &real, 4);
        } else {
            bytes[i] = static_cast<uint8_t>(std::clamp(std::lround(real / t.scale) + t.zeroPoint, 0L, 255L));
        }
    }
    return bytes;
}

struct Image {
    int height = 0, width = 0, channels = 0;
    std::vector<double> values;   // NHWC, batch 1
    double at(int y, int x, int c) const { return values[(static_cast<size_t>(y) * width + x) * channels + c]; }
};

// CONV_2D with OHWI weights of `name`/weights and `name`/bias, TFLite's SAME or VALID padding.
inline Image conv(const Model& model, const std::string& name, const Image& in, int outChannels, int kernel, int stride,
                  bool same, bool relu) {
    const std::vector<double> w = constantNumbers(model, name + "/weights");
    const std::vector<double> b = constantNumbers(model, name + "/bias");
    Image out;
    out.height = same ? (in.height + stride - 1) / stride : (in.height - kernel) / stride + 1;
    out.width = same ? (in.width + stride - 1) / stride : (in.width - kernel) / stride + 1;
    out.channels = outChannels;
    const int padY = same ? std::max(0, ((out.height - 1) * stride + kernel - in.height) / 2) : 0;
    const int padX = same ? std::max(0, ((out.width - 1) * stride + kernel - in.width) / 2) : 0;
    for (int y = 0; y < out.height; ++y) {
        for (int x = 0; x < out.width; ++x) {
            for (int o = 0; o < outChannels; ++o) {
                double sum = b[o];
                for (int ky = 0; ky < kernel; ++ky) {
                    for (int kx = 0; kx < kernel; ++kx) {
                        const int iy = y * stride + ky - padY, ix = x * stride + kx - padX;
                        if (iy < 0 || ix < 0 || iy >= in.height || ix >= in.width) continue;
                        for (int i = 0; i < in.channels; ++i) {
                            sum += in.at(iy, ix, i) * w[((static_cast<size_t>(o) * kernel + ky) * kernel + kx) * in.channels + i];
                        }
                    }
                }
                out.values.push_back(relu ? std::max(0.0, sum) : sum);
            }
        }
    }
    return out;
}

// RESIZE_BILINEAR with align_corners: output pixel y samples input row y * (in - 1) / (out - 1).
inline Image resizeAlignCorners(const Image& in, int height, int width) {
    Image out{height, width, in.channels, {}};
    const double sy = height > 1 ? static_cast<double>(in.height - 1) / (height - 1) : 0.0;
    const double sx = width > 1 ? static_cast<double>(in.width - 1) / (width - 1) : 0.0;
    for (int y = 0; y < height; ++y) {
        const double fy = y * sy;
        const int y0 = static_cast<int>(std::floor(fy)), y1 = std::min(y0 + 1, in.height - 1);
        for (int x = 0; x < width; ++x) {
            const double fx = x * sx;
            const int x0 = static_cast<int>(std::floor(fx)), x1 = std::min(x0 + 1, in.width - 1);
            for (int c = 0; c < in.channels; ++c) {
                const double top = in.at(y0, x0, c) + (in.at(y0, x1, c) - in.at(y0, x0, c)) * (fx - x0);
                const double bottom = in.at(y1, x0, c) + (in.at(y1, x1, c) - in.at(y1, x0, c)) * (fx - x0);
                out.values.push_back(top + (bottom - top) * (fy - y0));
            }
        }
    }
    return out;
}

// Whether `label` is an argmax of values[first + k * stride] (k < count) up to `tolerance`.
inline bool isArgMax(const std::vector<double>& values, size_t first, size_t stride, size_t count, int64_t label,
                     double tolerance) {
    if (label < 0 || static_cast<size_t>(label) >= count) return false;
    double best = values[first];
    for (size_t k = 1; k < count; ++k) best = std::max(best, values[first + k * stride]);
    return values[first + static_cast<size_t>(label) * stride] >= best - tolerance;
}

}  // namespace nnemu::tflite::test
