// The feature level 6 and 7 operations and uses through the C API (nnapi-fl30plus.md §2.1, §2.3):
// BATCH_MATMUL, PACK, INT32 RESHAPE (FL6); MIRROR_PAD, REVERSE, quantized RSQRT (FL7). Expected
// values are computed here from the operations' definitions, not taken from the kernels.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "OperationModelTest.h"

namespace nnemu {
namespace {

class Fl67Operations : public apitest::OperationModelTest {};

TEST_F(Fl67Operations, RuntimeClaimsFeatureLevel7) {
    EXPECT_GE(ANeuralNetworks_getRuntimeFeatureLevel(), ANEURALNETWORKS_FEATURE_LEVEL_7);
}

// out[b][i][j] = sum_k X[b][i][k] * Y[b][k][j], with X and Y read transposed when adjoint.
template <typename T>
std::vector<T> matmul(const std::vector<T>& x, const std::vector<T>& y, uint32_t batches, uint32_t rows,
                      uint32_t inner, uint32_t cols, bool adjX, bool adjY) {
    std::vector<T> out(batches * rows * cols, T{});
    for (uint32_t b = 0; b < batches; ++b) {
        for (uint32_t i = 0; i < rows; ++i) {
            for (uint32_t j = 0; j < cols; ++j) {
                T sum{};
                for (uint32_t k = 0; k < inner; ++k) {
                    const T a = adjX ? x[b * inner * rows + k * rows + i] : x[b * rows * inner + i * inner + k];
                    const T c = adjY ? y[b * cols * inner + j * inner + k] : y[b * inner * cols + k * cols + j];
                    sum += a * c;
                }
                out[b * rows * cols + i * cols + j] = sum;
            }
        }
    }
    return out;
}

TEST_F(Fl67Operations, BatchMatmulFloat) {
    const uint32_t x = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2, 3});
    const uint32_t y = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3, 2});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2, 2});
    ASSERT_EQ(operation(ANEURALNETWORKS_BATCH_MATMUL, {x, y}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<float> a(12), b(12);
    for (int i = 0; i < 12; ++i) {
        a[i] = 0.5f * static_cast<float>(i) - 2.0f;
        b[i] = static_cast<float>((i * 7) % 5) - 1.0f;
    }
    std::vector<float> result(8, -1.0f);
    ASSERT_EQ(run({x, y}, out, std::vector<std::vector<float>>{a, b}, &result), ANEURALNETWORKS_NO_ERROR);
    const std::vector<float> expected = matmul(a, b, 2, 2, 3, 2, false, false);
    for (size_t i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(result[i], expected[i]) << i;
}

TEST_F(Fl67Operations, BatchMatmulInt32WithAdjoints) {
    // x is [1, 3, 2] read as its transpose [2, 3]; y is [1, 4, 3] read as [3, 4]: out [1, 2, 4].
    const uint32_t x = add(ANEURALNETWORKS_TENSOR_INT32, {1, 3, 2});
    const uint32_t y = add(ANEURALNETWORKS_TENSOR_INT32, {1, 4, 3});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_INT32, {1, 2, 4});
    ASSERT_EQ(operation(ANEURALNETWORKS_BATCH_MATMUL, {x, y, flag(true), flag(true)}, out), ANEURALNETWORKS_NO_ERROR);
    const std::vector<int32_t> a = {1, -2, 3, 4, -5, 6};
    const std::vector<int32_t> b = {2, 0, -1, 3, 1, 1, -4, 2, 5, 0, 0, 7};
    std::vector<int32_t> result(8, -1);
    ASSERT_EQ(run({x, y}, out, std::vector<std::vector<int32_t>>{a, b}, &result), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(result, matmul(a, b, 1, 2, 3, 4, true, true));
}

TEST_F(Fl67Operations, BatchMatmulRejectsBadOperands) {
    const uint32_t f = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2});
    const uint32_t i = add(ANEURALNETWORKS_TENSOR_INT32, {2, 2});
    const uint32_t vector = add(ANEURALNETWORKS_TENSOR_FLOAT32, {4});
    const uint32_t u8 = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 0);
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2});
    const uint32_t u8Out = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 0);
    EXPECT_EQ(operation(ANEURALNETWORKS_BATCH_MATMUL, {f, i}, out), ANEURALNETWORKS_BAD_DATA);       // mixed types
    EXPECT_EQ(operation(ANEURALNETWORKS_BATCH_MATMUL, {vector, vector}, out), ANEURALNETWORKS_BAD_DATA);  // rank 1
    EXPECT_EQ(operation(ANEURALNETWORKS_BATCH_MATMUL, {u8, u8}, u8Out), ANEURALNETWORKS_BAD_DATA);  // no unsigned
    EXPECT_EQ(operation(ANEURALNETWORKS_BATCH_MATMUL, {f, f, i}, out), ANEURALNETWORKS_BAD_DATA);   // adj not BOOL
    EXPECT_EQ(operation(ANEURALNETWORKS_BATCH_MATMUL, {f}, out), ANEURALNETWORKS_BAD_DATA);         // one input
}

TEST_F(Fl67Operations, PackInsertsTheNewAxis) {
    const uint32_t axis = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {1});
    const uint32_t a = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t b = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2, 3});
    ASSERT_EQ(operation(ANEURALNETWORKS_PACK, {axis, a, b}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<float> first(6), second(6);
    for (int i = 0; i < 6; ++i) {
        first[i] = static_cast<float>(i);
        second[i] = 10.0f + static_cast<float>(i);
    }
    std::vector<float> result(12, -1.0f);
    ASSERT_EQ(run({a, b}, out, std::vector<std::vector<float>>{first, second}, &result), ANEURALNETWORKS_NO_ERROR);
    // out[r][n][c] = input_n[r][c]
    for (int r = 0; r < 2; ++r) {
        for (int n = 0; n < 2; ++n) {
            for (int c = 0; c < 3; ++c) {
                EXPECT_EQ(result[r * 6 + n * 3 + c], (n == 0 ? first : second)[r * 3 + c]) << r << n << c;
            }
        }
    }
}

TEST_F(Fl67Operations, PackRejectsBadOperands) {
    const uint32_t axis = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {3});  // only 0..2 for rank 2
    const uint32_t goodAxis = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {0});
    const uint32_t a = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t ints = add(ANEURALNETWORKS_TENSOR_INT32, {2, 3});
    const uint32_t q1 = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 3}, 0.5f, 1);
    const uint32_t q2 = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 3}, 0.25f, 1);
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2, 3});
    const uint32_t qOut = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 2, 3}, 0.5f, 1);
    EXPECT_EQ(operation(ANEURALNETWORKS_PACK, {goodAxis, a, ints}, out), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(operation(ANEURALNETWORKS_PACK, {a, a}, out), ANEURALNETWORKS_BAD_DATA);  // axis not INT32
    // A value (the axis) and a relation (the scales differ) wait for the execution, as in Android.
    EXPECT_EQ(operation(ANEURALNETWORKS_PACK, {axis, a, a}, out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(operation(ANEURALNETWORKS_PACK, {goodAxis, q1, q2}, qOut), ANEURALNETWORKS_NO_ERROR);
}

// A model whose PACK axis is beyond the output's rank builds and compiles; its execution fails.
TEST_F(Fl67Operations, PackAxisBeyondTheRankFailsAtExecution) {
    const uint32_t axis = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {3});
    const uint32_t a = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2, 3});
    ASSERT_EQ(operation(ANEURALNETWORKS_PACK, {axis, a, a}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<float> result(12, 0.0f);
    EXPECT_EQ(run({a}, out, std::vector<std::vector<float>>{std::vector<float>(6, 1.0f)}, &result),
              ANEURALNETWORKS_OP_FAILED);
}

// The same for a MIRROR_PAD mode that is neither REFLECT nor SYMMETRIC.
TEST_F(Fl67Operations, MirrorPadUnknownModeFailsAtExecution) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t paddings = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {2, 2}, {0, 0, 1, 1});
    const uint32_t badMode = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {2});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 5});
    ASSERT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, paddings, badMode}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<float> result(10, 0.0f);
    EXPECT_EQ(run({in}, out, std::vector<std::vector<float>>{std::vector<float>(6, 1.0f)}, &result),
              ANEURALNETWORKS_OP_FAILED);
}

TEST_F(Fl67Operations, ReshapeInt32) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_INT32, {2, 3});
    const uint32_t shape = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {2}, {3, -1});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_INT32, {3, 2});
    ASSERT_EQ(operation(ANEURALNETWORKS_RESHAPE, {in, shape}, out), ANEURALNETWORKS_NO_ERROR);
    const std::vector<int32_t> values = {-3, 1 << 30, 7, 0, -(1 << 30), 42};
    std::vector<int32_t> result(6, -1);
    ASSERT_EQ(run({in}, out, std::vector<std::vector<int32_t>>{values}, &result), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(result, values);  // the same elements in the same order
}

// Reflection of index i (which may lie outside [0, n)) back into the tensor.
int64_t mirrorIndex(int64_t i, int64_t n, bool symmetric) {
    if (i < 0) return symmetric ? -i - 1 : -i;
    if (i >= n) return symmetric ? 2 * n - 1 - i : 2 * n - 2 - i;
    return i;
}

TEST_F(Fl67Operations, MirrorPadReflectAndSymmetric) {
    for (const bool symmetric : {false, true}) {
        SCOPED_TRACE(symmetric ? "SYMMETRIC" : "REFLECT");
        model_ = apitest::newModel();
        next_ = 0;
        // [2, 3] padded by (1, 1) rows and (2, 2) columns: [4, 7].
        const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
        const uint32_t paddings = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {2, 2}, {1, 1, 2, 2});
        const uint32_t mode = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {symmetric ? 1 : 0});
        const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {4, 7});
        ASSERT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, paddings, mode}, out), ANEURALNETWORKS_NO_ERROR);
        const std::vector<float> values = {1, 2, 3, 4, 5, 6};
        std::vector<float> result(28, -1.0f);
        ASSERT_EQ(run({in}, out, std::vector<std::vector<float>>{values}, &result), ANEURALNETWORKS_NO_ERROR);
        for (int64_t r = 0; r < 4; ++r) {
            for (int64_t c = 0; c < 7; ++c) {
                const int64_t sr = mirrorIndex(r - 1, 2, symmetric), sc = mirrorIndex(c - 2, 3, symmetric);
                EXPECT_EQ(result[r * 7 + c], values[sr * 3 + sc]) << r << "," << c;
            }
        }
    }
}

TEST_F(Fl67Operations, MirrorPadQuantizedKeepsTheQuantization) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {3}, 0.5f, -3);
    const uint32_t paddings = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {1, 2}, {2, 1});
    const uint32_t mode = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {0});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {6}, 0.5f, -3);
    ASSERT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, paddings, mode}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<int8_t> result(6, 0);
    ASSERT_EQ(run({in}, out, std::vector<std::vector<int8_t>>{{-128, 5, 127}}, &result), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(result, (std::vector<int8_t>{127, 5, -128, 5, 127, 5}));
}

TEST_F(Fl67Operations, MirrorPadRejectsBadOperands) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t paddings = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {2, 2}, {0, 0, 1, 1});
    const uint32_t badMode = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {2});
    const uint32_t floatPaddings = constant<float>(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 2}, {0, 0, 1, 1});
    const uint32_t mode = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {0});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 5});
    const uint32_t intOut = add(ANEURALNETWORKS_TENSOR_INT32, {2, 5});
    EXPECT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, floatPaddings, mode}, out), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, paddings, mode}, intOut), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, paddings}, out), ANEURALNETWORKS_BAD_DATA);
    // The mode is a value: refused by the execution, not by addOperation.
    EXPECT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, paddings, badMode}, out), ANEURALNETWORKS_NO_ERROR);
}

TEST_F(Fl67Operations, MirrorPadReflectWiderThanTheInputFails) {
    // REFLECT may pad at most dim - 1 (here 2) per side: 3 is refused when the shapes are known.
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
    const uint32_t paddings = add(ANEURALNETWORKS_TENSOR_INT32, {1, 2});
    const uint32_t mode = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {0});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {0});
    ASSERT_EQ(operation(ANEURALNETWORKS_MIRROR_PAD, {in, paddings, mode}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<float> result(8, 0.0f);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_.get(), 2, std::vector<uint32_t>{in, paddings}.data(),
                                                            1, &out),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model_.get()), ANEURALNETWORKS_NO_ERROR);
    auto compilation = apitest::compile(model_.get());
    ASSERT_NE(compilation, nullptr);
    auto execution = apitest::newExecution(compilation.get());
    const std::vector<float> values = {1, 2, 3};
    const std::vector<int32_t> pads = {3, 0};
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, values.data(), 12), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, pads.data(), 8), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, result.data(), 32), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
}

TEST_F(Fl67Operations, ReverseOneAxis) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_INT32, {2, 3, 2});
    const uint32_t axis = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {1}, {1});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_INT32, {2, 3, 2});
    ASSERT_EQ(operation(ANEURALNETWORKS_REVERSE, {in, axis}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<int32_t> values(12);
    for (int i = 0; i < 12; ++i) values[i] = i * i - 5;
    std::vector<int32_t> result(12, -1);
    ASSERT_EQ(run({in}, out, std::vector<std::vector<int32_t>>{values}, &result), ANEURALNETWORKS_NO_ERROR);
    for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 3; ++b) {
            for (int c = 0; c < 2; ++c) EXPECT_EQ(result[a * 6 + b * 2 + c], values[a * 6 + (2 - b) * 2 + c]);
        }
    }
}

TEST_F(Fl67Operations, ReverseRejectsBadOperands) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t scalarAxis = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {0});
    const uint32_t axis = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {1}, {0});
    const uint32_t bools = add(ANEURALNETWORKS_TENSOR_BOOL8, {2, 3});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t boolOut = add(ANEURALNETWORKS_TENSOR_BOOL8, {2, 3});
    EXPECT_EQ(operation(ANEURALNETWORKS_REVERSE, {in, scalarAxis}, out), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(operation(ANEURALNETWORKS_REVERSE, {bools, axis}, boolOut), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(operation(ANEURALNETWORKS_REVERSE, {in}, out), ANEURALNETWORKS_BAD_DATA);
}

// Quantized RSQRT: y = 1 / sqrt((q - zp_in) * scale_in), requantized to the output's own scale
// and zero point with rounding to nearest and saturation; a zero input is the largest value.
template <typename T>
T expectedRsqrt(int q, float inScale, int inZero, float outScale, int outZero, int lo, int hi) {
    const double x = (q - inZero) * static_cast<double>(inScale);
    if (x == 0.0) return static_cast<T>(hi);
    const double y = std::round(1.0 / std::sqrt(x) / outScale) + outZero;
    return static_cast<T>(std::clamp(y, static_cast<double>(lo), static_cast<double>(hi)));
}

TEST_F(Fl67Operations, RsqrtQuant8Unsigned) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {6}, 0.25f, 4);
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {6}, 0.0625f, 10);
    ASSERT_EQ(operation(ANEURALNETWORKS_RSQRT, {in}, out), ANEURALNETWORKS_NO_ERROR);
    const std::vector<uint8_t> values = {4, 5, 8, 20, 40, 255};
    std::vector<uint8_t> result(6, 0);
    ASSERT_EQ(run({in}, out, std::vector<std::vector<uint8_t>>{values}, &result), ANEURALNETWORKS_NO_ERROR);
    for (size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(result[i], expectedRsqrt<uint8_t>(values[i], 0.25f, 4, 0.0625f, 10, 0, 255)) << int(values[i]);
    }
}

TEST_F(Fl67Operations, RsqrtQuant8Signed) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {5}, 0.01f, -128);
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {5}, 0.05f, -100);
    ASSERT_EQ(operation(ANEURALNETWORKS_RSQRT, {in}, out), ANEURALNETWORKS_NO_ERROR);
    const std::vector<int8_t> values = {-127, -120, -28, 0, 127};
    std::vector<int8_t> result(5, 0);
    ASSERT_EQ(run({in}, out, std::vector<std::vector<int8_t>>{values}, &result), ANEURALNETWORKS_NO_ERROR);
    for (size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(result[i], expectedRsqrt<int8_t>(values[i], 0.01f, -128, 0.05f, -100, -128, 127)) << int(values[i]);
    }
}

TEST_F(Fl67Operations, RsqrtRejectsMixedTypes) {
    const uint32_t u8 = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, 0.5f, 0);
    const uint32_t s8Out = add(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, 0);
    const uint32_t ints = add(ANEURALNETWORKS_TENSOR_INT32, {2});
    const uint32_t intsOut = add(ANEURALNETWORKS_TENSOR_INT32, {2});
    EXPECT_EQ(operation(ANEURALNETWORKS_RSQRT, {u8}, s8Out), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(operation(ANEURALNETWORKS_RSQRT, {ints}, intsOut), ANEURALNETWORKS_BAD_DATA);
}

}  // namespace
}  // namespace nnemu
