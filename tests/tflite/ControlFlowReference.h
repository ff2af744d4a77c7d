// The control-flow models of nnemu_modelgen (while_conv_*, if_conv_*) computed in plain C++
// from the constants in the model file: the loop and the branches, convolution, max pooling. Shared
// by the library-path tests (tests/tflite) and the tool tests (tests/tools).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite::test {

// Real values of a tensor's bytes: float as is, int8 dequantized; int32 bias per channel.
inline std::vector<float> realOf(const Tensor& t, const uint8_t* data) {
    const size_t count = t.byteSize() / elementSize(t.type);
    std::vector<float> values(count);
    const size_t channels = t.channelScales.size() > 1 ? t.channelScales.size() : 1;
    const size_t inner = count / (t.shape.empty() ? 1 : static_cast<size_t>(t.shape[0]));
    for (size_t i = 0; i < count; ++i) {
        const float scale = channels > 1 ? t.channelScales[(i / (t.type == ElementType::INT32 ? 1 : inner)) % channels]
                                         : t.scale;
        if (t.type == ElementType::FLOAT32) {
            std::memcpy(&values[i], data + 4 * i, 4);
        } else if (t.type == ElementType::INT8) {
            values[i] = scale * static_cast<float>(static_cast<int8_t>(data[i]) - t.zeroPoint);
        } else if (t.type == ElementType::INT32) {
            int32_t v;
            std::memcpy(&v, data + 4 * i, 4);
            values[i] = scale > 0 ? scale * static_cast<float>(v) : static_cast<float>(v);
        }
    }
    return values;
}

inline std::vector<float> constant(const Subgraph& graph, const std::string& name) {
    for (const Tensor& t : graph.tensors) {
        if (t.name == name && t.isConstant) return realOf(t, t.data);
    }
    ADD_FAILURE() << "no constant " << name << " in subgraph " << graph.name;
    return {};
}

// The image input: a smooth pattern in [-1, 1), negated by `sign`, in the tensor's type.
inline std::vector<uint8_t> imageBytes(const Tensor& t, float sign) {
    const size_t count = t.byteSize() / elementSize(t.type);
    std::vector<uint8_t> bytes(t.byteSize());
    for (size_t i = 0; i < count; ++i) {
        const float real = sign * (0.2f + 0.7f * std::sin(static_cast<float>(i) * 0.21f));
        if (t.type == ElementType::FLOAT32) {
            std::memcpy(bytes.data() + 4 * i, &real, 4);
        } else {
            const long q = std::lround(real / t.scale) + t.zeroPoint;
            bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(q, -128L, 127L)));
        }
    }
    return bytes;
}

// 3x3 convolution, stride 1, SAME, NHWC input [1, size, size, c], OHWI weights.
inline std::vector<float> conv3x3(const std::vector<float>& in, int size, int c, const std::vector<float>& w,
                           const std::vector<float>& b) {
    std::vector<float> out(in.size());
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            for (int o = 0; o < c; ++o) {
                double sum = b[o];
                for (int ky = 0; ky < 3; ++ky) {
                    for (int kx = 0; kx < 3; ++kx) {
                        const int iy = y + ky - 1, ix = x + kx - 1;
                        if (iy < 0 || ix < 0 || iy >= size || ix >= size) continue;
                        for (int i = 0; i < c; ++i) {
                            sum += in[(iy * size + ix) * c + i] * w[((o * 3 + ky) * 3 + kx) * c + i];
                        }
                    }
                }
                out[(y * size + x) * c + o] = static_cast<float>(sum);
            }
        }
    }
    return out;
}

// The global max pool per channel (the models' scores).
inline std::vector<float> maxOverPixels(const std::vector<float>& in, int c) {
    std::vector<float> result(in.begin(), in.begin() + c);
    for (size_t i = 0; i < in.size(); ++i) result[i % c] = std::max(result[i % c], in[i]);
    return result;
}

// The scores of while_conv_*: n times x = relu6(x + conv(x)), then the max per channel.
inline std::vector<float> expectedWhile(const Model& model, std::vector<float> x, int size, int c) {
    const Subgraph& body = model.subgraphs()[2];
    const std::vector<float> w = constant(body, "conv/weights"), b = constant(body, "conv/bias");
    const int n = static_cast<int>(constant(model.subgraphs()[0], "n").at(0));
    EXPECT_EQ(n, 3);
    for (int it = 0; it < n; ++it) {
        const std::vector<float> h = conv3x3(x, size, c, w, b);
        for (size_t i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i] + h[i], 0.0f, 6.0f);
    }
    return maxOverPixels(x, c);
}

// The scores of if_conv_*: mean(image) > 0 chooses relu(conv(x)), else x * gain.
inline std::vector<float> expectedIf(const Model& model, std::vector<float> x, int size, int c, bool* tookThen) {
    double sum = 0;
    for (float v : x) sum += v;
    *tookThen = sum / static_cast<double>(x.size()) > 0.0;
    if (*tookThen) {
        const Subgraph& then = model.subgraphs()[1];
        x = conv3x3(x, size, c, constant(then, "conv/weights"), constant(then, "conv/bias"));
        for (float& v : x) v = std::max(v, 0.0f);
    } else {
        const std::vector<float> gain = constant(model.subgraphs()[2], "gain");
        for (size_t i = 0; i < x.size(); ++i) x[i] *= gain[i % c];
    }
    return maxOverPixels(x, c);
}

}  // namespace nnemu::tflite::test
