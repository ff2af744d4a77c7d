// The feature level 30, 6 and 7 operations (nnapi-fl30plus.md §2.1) and the §2.3 changes, on the
// reference executor: expectations computed by hand from each operation's formula, edge cases
// (zero-sized inputs, extreme integers) and malformed operands that must be refused cleanly.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "SingleOperation.h"
#include "nnemu/hal/TypeShorthands.h"

namespace nnemu {
namespace {

using hal::ErrorStatus;
using hal::OperandType;
using hal::OperationType;
using namespace hal::types;
using testing::output;
using testing::runSingleOperation;
using testing::scalar;
using testing::tensor;

void expectNear(const std::vector<float>& actual, const std::vector<float>& expected, float tolerance) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
}

// ---- ELU: max(0, x) + min(0, alpha (exp(x) - 1)) ----

TEST(Elu, Float32AndFloat16) {
    const std::vector<float> x = {-1.0f, 0.0f, 2.0f, -10.0f};
    const std::vector<float> expected = {0.5f * (std::exp(-1.0f) - 1), 0.0f, 2.0f, 0.5f * (std::exp(-10.0f) - 1)};
    auto r = runSingleOperation(OperationType::ELU, {tensor(kF32, {4}, x), scalar(OperandType::FLOAT32, 0.5f)},
                                {output(kF32, {4}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    expectNear(r.values<float>(), expected, 1e-6f);
    r = runSingleOperation(OperationType::ELU,
                           {{kF16, {4}, testing::halfBytes(x), 0, 0, true}, {OperandType::FLOAT16, {}, testing::halfBytes({0.5f}), 0, 0, false}},
                           {output(kF16, {4}, 8)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    expectNear(r.halfValues(), expected, 1e-3f);
}

TEST(Elu, AlphaMustMatchTheTensorType) {
    const auto r = runSingleOperation(OperationType::ELU,
                                      {{kF16, {2}, testing::halfBytes({1, 2}), 0, 0, true}, scalar(OperandType::FLOAT32, 1.0f)},
                                      {output(kF16, {2}, 4)});
    EXPECT_FALSE(r.valid);
}

// Zero-sized tensors only arise between operations (model inputs must have elements), so these
// are checked on the signatures: the executor runs prepare() and skips the kernel.
std::vector<uint32_t> preparedDims(OperationType type, const std::vector<testing::TestOperand>& inputs,
                                   const std::vector<testing::TestOperand>& outputs, bool* ok) {
    const hal::Model model = testing::singleOperationModel(type, inputs, outputs);
    hal::OperationContext context = hal::makeOperationContext(
            model.operations[0], model.operands, [&](uint32_t i) { return hal::constantData(model, model.operands[i]); });
    const hal::OperationSignature* signature = hal::findSignature(type);
    *ok = signature != nullptr && signature->allowZeroSizedInput && hal::prepareOperation(*signature, context);
    return context.outputs[0].dims;
}

TEST(ZeroSized, EluRankBatchMatmul) {
    bool ok = false;
    EXPECT_EQ(preparedDims(OperationType::ELU, {tensor<float>(kF32, {0, 3}, {}), scalar(OperandType::FLOAT32, 1.0f)},
                           {output(kF32, {0, 0}, 4)}, &ok),
              (std::vector<uint32_t>{0, 3}));
    EXPECT_TRUE(ok);
    EXPECT_TRUE(preparedDims(OperationType::RANK, {tensor<uint8_t>(OperandType::TENSOR_BOOL8, {0, 4}, {})},
                             {output(OperandType::INT32, {}, 4)}, &ok)
                        .empty());
    EXPECT_TRUE(ok);
    EXPECT_EQ(preparedDims(OperationType::BATCH_MATMUL, {tensor<float>(kF32, {0, 2, 3}, {}), tensor<float>(kF32, {0, 3, 2}, {})},
                           {output(kF32, {0, 0, 0}, 4)}, &ok),
              (std::vector<uint32_t>{0, 2, 2}));
    EXPECT_TRUE(ok);
    EXPECT_EQ(preparedDims(OperationType::MIRROR_PAD, {tensor<float>(kF32, {0, 2}, {}), tensor<int32_t>(kI32, {2, 2}, {0, 0, 1, 1}, false),
                                                       scalar(OperandType::INT32, 0)},
                           {output(kF32, {0, 0}, 4)}, &ok),
              (std::vector<uint32_t>{0, 4}));
    EXPECT_TRUE(ok);
}

// ---- HARD_SWISH: x * min(6, max(0, x + 3)) / 6 ----

TEST(HardSwish, Float32) {
    const auto r = runSingleOperation(OperationType::HARD_SWISH, {tensor<float>(kF32, {7}, {-4, -3, -1.5f, 0, 1, 3, 5})},
                                      {output(kF32, {7}, 28)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    expectNear(r.values<float>(), {0, 0, -0.375f, 0, 4.0f / 6, 3, 5}, 1e-6f);
}

TEST(HardSwish, QuantizedOutputHasItsOwnScale) {
    // Input scale 0.5, zero point 128: x = -2, 1, 4. Output scale 0.25, zero point 100:
    // f = -1/3, 2/3, 4 -> round(f / 0.25) + 100 = 99, 103, 116.
    auto r = runSingleOperation(OperationType::HARD_SWISH, {tensor<uint8_t>(kQ8, {3}, {124, 130, 136}, true, 0.5f, 128)},
                                {output(kQ8, {3}, 3, 0.25f, 100)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<uint8_t>(), (std::vector<uint8_t>{99, 103, 116}));
    // Signed: x = -2, 1, 3 (scale 0.5, zero point 0) -> out scale 0.25, zero point -10: -11, -7, 2.
    r = runSingleOperation(OperationType::HARD_SWISH, {tensor<int8_t>(kQ8S, {3}, {-4, 2, 6}, true, 0.5f, 0)},
                           {output(kQ8S, {3}, 3, 0.25f, -10)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int8_t>(), (std::vector<int8_t>{-11, -7, 2}));
}

TEST(HardSwish, RefusesIntegerTensors) {
    EXPECT_FALSE(runSingleOperation(OperationType::HARD_SWISH, {tensor<int32_t>(kI32, {1}, {1})}, {output(kI32, {1}, 4)}).valid);
}

// ---- FILL and RANK ----

TEST(Fill, EveryValueType) {
    auto r = runSingleOperation(OperationType::FILL, {tensor<int32_t>(kI32, {2}, {2, 3}), scalar(OperandType::FLOAT32, 1.5f)},
                                {output(kF32, {0, 0}, 24)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.dims[0], (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(r.values<float>(), std::vector<float>(6, 1.5f));
    r = runSingleOperation(OperationType::FILL, {tensor<int32_t>(kI32, {1}, {3}), scalar(OperandType::INT32, -7)},
                           {output(kI32, {3}, 12)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), std::vector<int32_t>(3, -7));
    r = runSingleOperation(OperationType::FILL,
                           {tensor<int32_t>(kI32, {1}, {2}), {OperandType::FLOAT16, {}, testing::halfBytes({0.25f}), 0, 0, false}},
                           {output(kF16, {2}, 4)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.halfValues(), std::vector<float>(2, 0.25f));
}

TEST(Fill, ZeroAndNegativeDimensions) {
    auto r = runSingleOperation(OperationType::FILL, {tensor<int32_t>(kI32, {2}, {2, 0}), scalar(OperandType::INT32, 1)},
                                {output(kI32, {0, 0}, 4)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.dims[0], (std::vector<uint32_t>{2, 0}));
    r = runSingleOperation(OperationType::FILL, {tensor<int32_t>(kI32, {2}, {2, -1}), scalar(OperandType::INT32, 1)},
                           {output(kI32, {0, 0}, 4)});
    EXPECT_NE(r.status, ErrorStatus::NONE);
}

TEST(Fill, OutputTypeFollowsTheValue) {
    EXPECT_FALSE(runSingleOperation(OperationType::FILL, {tensor<int32_t>(kI32, {1}, {2}), scalar(OperandType::INT32, 1)},
                                    {output(kF32, {2}, 8)})
                         .valid);
}

TEST(Rank, ScalarOutput) {
    auto r = runSingleOperation(OperationType::RANK, {tensor<float>(kF32, {2, 1, 2}, {1, 2, 3, 4})},
                                {output(OperandType::INT32, {}, 4)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_TRUE(r.dims[0].empty());
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{3}));
    r = runSingleOperation(OperationType::RANK, {tensor<uint8_t>(OperandType::TENSOR_BOOL8, {4}, {1, 0, 1, 0})},
                           {output(OperandType::INT32, {}, 4)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{1}));
}

TEST(Rank, OutputMustBeAnInt32Scalar) {
    EXPECT_FALSE(runSingleOperation(OperationType::RANK, {tensor<float>(kF32, {1}, {1})}, {output(kI32, {1}, 4)}).valid);
}

// ---- BATCH_MATMUL ----

const std::vector<int32_t> kX = {1, 2, 3, 4, 5, 6};     // [1, 2, 3]
const std::vector<int32_t> kY = {7, 8, 9, 10, 11, 12};  // [1, 3, 2]
const std::vector<int32_t> kXY = {58, 64, 139, 154};    // [1, 2, 2]

TEST(BatchMatmul, Int32AndFloat) {
    auto r = runSingleOperation(OperationType::BATCH_MATMUL, {tensor(kI32, {1, 2, 3}, kX), tensor(kI32, {1, 3, 2}, kY)},
                                {output(kI32, {0, 0, 0}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.dims[0], (std::vector<uint32_t>{1, 2, 2}));
    EXPECT_EQ(r.values<int32_t>(), kXY);
    const std::vector<float> x(kX.begin(), kX.end()), y(kY.begin(), kY.end());
    r = runSingleOperation(OperationType::BATCH_MATMUL, {tensor(kF32, {2, 3}, x), tensor(kF32, {3, 2}, y)},
                           {output(kF32, {2, 2}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    expectNear(r.values<float>(), {58, 64, 139, 154}, 0.0f);
}

// Float32 with X as given runs the blocked GEMM (ConvGemm.h), with X transposed the per-element
// loop: both must give the same bits (the same sums from 0 in k order), signed zeros and
// non-finite values included, over batches and column counts around the GEMM's 16-lane blocks.
TEST(BatchMatmul, FloatGemmMatchesThePerElementLoop) {
    std::mt19937 random(6);
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    for (const auto& shape : std::vector<std::array<uint32_t, 4>>{
                 {1, 1, 1, 1}, {2, 3, 5, 17}, {3, 7, 33, 32}, {1, 5, 64, 40}, {2, 9, 3, 15}}) {
        // (Named copies: clang 14 cannot capture structured bindings in the lambda below.)
        const uint32_t batches = shape[0], rows = shape[1], inner = shape[2], cols = shape[3];
        std::vector<float> x(batches * rows * inner), xT(x.size()), y(batches * inner * cols);
        for (float& v : x) v = value(random);
        for (float& v : y) v = value(random);
        x[0] = -0.0f;
        y[0] = -0.0f;
        if (y.size() > 2) y[2] = std::numeric_limits<float>::infinity();
        for (uint32_t b = 0; b < batches; ++b) {
            for (uint32_t r = 0; r < rows; ++r) {
                for (uint32_t k = 0; k < inner; ++k) xT[(b * inner + k) * rows + r] = x[(b * rows + r) * inner + k];
            }
        }
        const auto run = [&](const std::vector<float>& lhs, std::vector<uint32_t> lhsDims, bool adjX) {
            return runSingleOperation(OperationType::BATCH_MATMUL,
                                      {tensor(kF32, std::move(lhsDims), lhs), tensor(kF32, {batches, inner, cols}, y),
                                       scalar(OperandType::BOOL, uint8_t{adjX}), scalar(OperandType::BOOL, uint8_t{0})},
                                      {output(kF32, {batches, rows, cols}, 4 * batches * rows * cols)});
        };
        const auto gemm = run(x, {batches, rows, inner}, false), loop = run(xT, {batches, inner, rows}, true);
        ASSERT_EQ(gemm.status, ErrorStatus::NONE) << gemm.why;
        ASSERT_EQ(loop.status, ErrorStatus::NONE) << loop.why;
        EXPECT_EQ(gemm.outputs[0], loop.outputs[0]) << batches << "x" << rows << "x" << inner << "x" << cols;
    }
}

TEST(BatchMatmul, Adjoints) {
    // x^T given as [3, 2] and y^T as [2, 3]: the same product.
    const std::vector<int32_t> xT = {1, 4, 2, 5, 3, 6}, yT = {7, 9, 11, 8, 10, 12};
    const auto r = runSingleOperation(OperationType::BATCH_MATMUL,
                                      {tensor(kI32, {3, 2}, xT), tensor(kI32, {2, 3}, yT),
                                       scalar(OperandType::BOOL, uint8_t{1}), scalar(OperandType::BOOL, uint8_t{1})},
                                      {output(kI32, {2, 2}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), kXY);
}

TEST(BatchMatmul, SignedQuantized) {
    // x real = q * 0.5, y real = q; out scale 2: 58/2 = 29, 64/2 = 32, 139/2 = 69.5 -> 70, 77.
    const std::vector<int8_t> x = {2, 4, 6, 8, 10, 12}, y = {7, 8, 9, 10, 11, 12};
    const auto r = runSingleOperation(OperationType::BATCH_MATMUL,
                                      {tensor(kQ8S, {2, 3}, x, true, 0.5f, 0), tensor(kQ8S, {3, 2}, y, true, 1.0f, 0)},
                                      {output(kQ8S, {2, 2}, 4, 2.0f, 0)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int8_t>(), (std::vector<int8_t>{29, 32, 70, 77}));
}

TEST(BatchMatmul, MismatchedShapesAreRefused) {
    // Inner dimensions 3 and 2.
    auto r = runSingleOperation(OperationType::BATCH_MATMUL, {tensor(kI32, {2, 3}, kX), tensor(kI32, {2, 3}, kY)},
                                {output(kI32, {0, 0}, 16)});
    EXPECT_NE(r.status, ErrorStatus::NONE);
    // Different batch sizes.
    r = runSingleOperation(OperationType::BATCH_MATMUL,
                           {tensor(kI32, {2, 1, 3}, kX), tensor(kI32, {1, 3, 2}, kY)}, {output(kI32, {0, 0, 0}, 16)});
    EXPECT_NE(r.status, ErrorStatus::NONE);
    // Rank 1 and a type not listed.
    EXPECT_FALSE(runSingleOperation(OperationType::BATCH_MATMUL, {tensor(kI32, {6}, kX), tensor(kI32, {6}, kY)},
                                    {output(kI32, {1}, 4)})
                         .valid);
    EXPECT_FALSE(runSingleOperation(OperationType::BATCH_MATMUL,
                                    {tensor<uint8_t>(kQ8, {1, 1}, {1}, true, 1.0f, 0), tensor<uint8_t>(kQ8, {1, 1}, {1}, true, 1.0f, 0)},
                                    {output(kQ8, {1, 1}, 1, 1.0f, 0)})
                         .valid);
}

// ---- PACK ----

TEST(Pack, InsertsTheNewAxis) {
    auto r = runSingleOperation(OperationType::PACK,
                                {scalar(OperandType::INT32, 0), tensor<int32_t>(kI32, {2}, {1, 2}), tensor<int32_t>(kI32, {2}, {3, 4})},
                                {output(kI32, {0, 0}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.dims[0], (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
    r = runSingleOperation(OperationType::PACK,
                           {scalar(OperandType::INT32, 1), tensor<float>(kF32, {2}, {1, 2}), tensor<float>(kF32, {2}, {3, 4}),
                            tensor<float>(kF32, {2}, {5, 6})},
                           {output(kF32, {2, 3}, 24)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(Pack, RefusesMismatchedInputs) {
    // Different quantization, an axis beyond the output rank: relations and values, refused by
    // the execution.
    EXPECT_TRUE(runSingleOperation(OperationType::PACK,
                                   {scalar(OperandType::INT32, 0), tensor<uint8_t>(kQ8, {1}, {1}, true, 1.0f, 0),
                                    tensor<uint8_t>(kQ8, {1}, {1}, true, 0.5f, 0)},
                                   {output(kQ8, {2, 1}, 2, 1.0f, 0)})
                        .failsAtExecution());
    EXPECT_TRUE(runSingleOperation(OperationType::PACK, {scalar(OperandType::INT32, 2), tensor<int32_t>(kI32, {2}, {1, 2})},
                                   {output(kI32, {0, 0}, 8)})
                        .failsAtExecution());
    // Different tensor types: the model.
    EXPECT_FALSE(runSingleOperation(OperationType::PACK,
                                    {scalar(OperandType::INT32, 0), tensor<int32_t>(kI32, {1}, {1}), tensor<float>(kF32, {1}, {1})},
                                    {output(kI32, {2, 1}, 8)})
                         .valid);
    // Different shapes.
    const auto r = runSingleOperation(OperationType::PACK,
                                      {scalar(OperandType::INT32, 0), tensor<int32_t>(kI32, {2}, {1, 2}), tensor<int32_t>(kI32, {1}, {3})},
                                      {output(kI32, {0, 0}, 16)});
    EXPECT_NE(r.status, ErrorStatus::NONE);
}

// ---- MIRROR_PAD ----

TEST(MirrorPad, ReflectAndSymmetric) {
    const auto pads = tensor<int32_t>(kI32, {1, 2}, {2, 2}, false);
    auto r = runSingleOperation(OperationType::MIRROR_PAD, {tensor<int32_t>(kI32, {3}, {1, 2, 3}), pads, scalar(OperandType::INT32, 0)},
                                {output(kI32, {0}, 28)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{3, 2, 1, 2, 3, 2, 1}));
    r = runSingleOperation(OperationType::MIRROR_PAD, {tensor<int32_t>(kI32, {3}, {1, 2, 3}), pads, scalar(OperandType::INT32, 1)},
                           {output(kI32, {7}, 28)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{2, 1, 1, 2, 3, 3, 2}));
}

TEST(MirrorPad, TwoDimensions) {
    // [[1, 2], [3, 4]], one row before and one column after, SYMMETRIC.
    const auto r = runSingleOperation(OperationType::MIRROR_PAD,
                                      {tensor<float>(kF32, {2, 2}, {1, 2, 3, 4}), tensor<int32_t>(kI32, {2, 2}, {1, 0, 0, 1}, false),
                                       scalar(OperandType::INT32, 1)},
                                      {output(kF32, {0, 0}, 36)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.dims[0], (std::vector<uint32_t>{3, 3}));
    EXPECT_EQ(r.values<float>(), (std::vector<float>{1, 2, 2, 1, 2, 2, 3, 4, 4}));
}

TEST(MirrorPad, RefusesPaddingsBeyondTheBorder) {
    // REFLECT needs padding < dim; SYMMETRIC <= dim; a negative padding or a bad mode never.
    const auto input = tensor<int32_t>(kI32, {2}, {1, 2});
    auto run = [&](std::vector<int32_t> pads, int32_t mode) {
        return runSingleOperation(OperationType::MIRROR_PAD, {input, tensor<int32_t>(kI32, {1, 2}, pads, false), scalar(OperandType::INT32, mode)},
                                  {output(kI32, {0}, 64)});
    };
    EXPECT_NE(run({2, 0}, 0).status, ErrorStatus::NONE);
    EXPECT_EQ(run({2, 0}, 1).status, ErrorStatus::NONE);
    EXPECT_NE(run({3, 0}, 1).status, ErrorStatus::NONE);
    EXPECT_NE(run({-1, 0}, 1).status, ErrorStatus::NONE);
    EXPECT_TRUE(run({0, 0}, 2).failsAtExecution());
}

// ---- REVERSE ----

TEST(Reverse, OneAxis) {
    const auto input = tensor<int32_t>(kI32, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto r = runSingleOperation(OperationType::REVERSE, {input, tensor<int32_t>(kI32, {1}, {1}, false)}, {output(kI32, {2, 3}, 24)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{3, 2, 1, 6, 5, 4}));
    r = runSingleOperation(OperationType::REVERSE, {input, tensor<int32_t>(kI32, {1}, {0}, false)}, {output(kI32, {2, 3}, 24)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{4, 5, 6, 1, 2, 3}));
    const auto q = runSingleOperation(OperationType::REVERSE,
                                      {tensor<int8_t>(kQ8S, {3}, {-1, 0, 1}, true, 0.5f, 3), tensor<int32_t>(kI32, {1}, {0}, false)},
                                      {output(kQ8S, {3}, 3, 0.5f, 3)});
    ASSERT_EQ(q.status, ErrorStatus::NONE) << q.why;
    EXPECT_EQ(q.values<int8_t>(), (std::vector<int8_t>{1, 0, -1}));
}

TEST(Reverse, RefusesAnAxisOutOfRange) {
    const auto input = tensor<int32_t>(kI32, {2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_NE(runSingleOperation(OperationType::REVERSE, {input, tensor<int32_t>(kI32, {1}, {2}, false)}, {output(kI32, {2, 3}, 24)}).status,
              ErrorStatus::NONE);
    EXPECT_NE(runSingleOperation(OperationType::REVERSE, {input, tensor<int32_t>(kI32, {1}, {-1}, false)}, {output(kI32, {2, 3}, 24)}).status,
              ErrorStatus::NONE);
}

// ---- §2.3: integer arithmetic ----

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();

TEST(Int32Arithmetic, DivisionIsFloorDivisionAndSurvivesZero) {
    const auto r = runSingleOperation(OperationType::DIV,
                                      {tensor<int32_t>(kI32, {7}, {7, -7, 7, -7, 6, 5, kMin}),
                                       tensor<int32_t>(kI32, {7}, {2, 2, -2, -2, 3, 0, -1}), scalar(OperandType::INT32, 0)},
                                      {output(kI32, {7}, 28)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{3, -4, -4, 3, 2, 0, kMin}));
}

TEST(Int32Arithmetic, AddSubMulWithBroadcast) {
    const auto a = tensor<int32_t>(kI32, {2, 2}, {1, -2, 3, 4});
    const auto b = tensor<int32_t>(kI32, {2}, {10, -3});
    const std::pair<OperationType, std::vector<int32_t>> cases[] = {
            {OperationType::ADD, {11, -5, 13, 1}}, {OperationType::SUB, {-9, 1, -7, 7}}, {OperationType::MUL, {10, 6, 30, -12}}};
    for (const auto& [op, expected] : cases) {
        const auto r = runSingleOperation(op, {a, b, scalar(OperandType::INT32, 0)}, {output(kI32, {2, 2}, 16)});
        ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
        EXPECT_EQ(r.values<int32_t>(), expected);
    }
}

TEST(Int32Arithmetic, RefusesAFusedActivation) {
    const auto a = tensor<int32_t>(kI32, {1}, {1});
    EXPECT_TRUE(runSingleOperation(OperationType::ADD, {a, a, scalar(OperandType::INT32, 1)}, {output(kI32, {1}, 4)})
                        .failsAtExecution());
}

TEST(Int32Arithmetic, Abs) {
    const auto r = runSingleOperation(OperationType::ABS, {tensor<int32_t>(kI32, {4}, {-3, 0, 5, kMin})}, {output(kI32, {4}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{3, 0, 5, kMin}));
}

// ---- §2.3: other changes ----

TEST(Fl30Changes, ReshapeInt32) {
    const auto r = runSingleOperation(OperationType::RESHAPE,
                                      {tensor<int32_t>(kI32, {2, 2}, {1, 2, 3, 4}), tensor<int32_t>(kI32, {1}, {-1}, false)},
                                      {output(kI32, {0}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.dims[0], (std::vector<uint32_t>{4}));
    EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(Fl30Changes, RsqrtQuantized) {
    // Input scale 0.25: x = 4, 1, 0.25 -> 0.5, 1, 2; output scale 0.1, zero point -100: -95, -90, -80.
    const auto r = runSingleOperation(OperationType::RSQRT, {tensor<int8_t>(kQ8S, {3}, {16, 4, 1}, true, 0.25f, 0)},
                                      {output(kQ8S, {3}, 3, 0.1f, -100)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int8_t>(), (std::vector<int8_t>{-95, -90, -80}));
}

TEST(Fl30Changes, IdentityCasts) {
    const auto r = runSingleOperation(OperationType::CAST, {tensor<int16_t>(OperandType::TENSOR_QUANT16_SYMM, {3}, {-5, 0, 7}, true, 0.5f, 0)},
                                      {output(OperandType::TENSOR_QUANT16_SYMM, {3}, 6, 0.5f, 0)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.values<int16_t>(), (std::vector<int16_t>{-5, 0, 7}));
    // Those types cast only to themselves.
    EXPECT_FALSE(runSingleOperation(OperationType::CAST, {tensor<uint8_t>(OperandType::TENSOR_BOOL8, {1}, {1})}, {output(kF32, {1}, 4)})
                         .valid);
}

TEST(Fl30Changes, EmbeddingLookupFloat16) {
    const auto r = runSingleOperation(OperationType::EMBEDDING_LOOKUP,
                                      {tensor<int32_t>(kI32, {2}, {1, 0}), {kF16, {2, 2}, testing::halfBytes({1, 2, 3, 4}), 0, 0, false}},
                                      {output(kF16, {2, 2}, 8)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    EXPECT_EQ(r.halfValues(), (std::vector<float>{3, 4, 1, 2}));
}

TEST(Fl30Changes, L2NormalizationOfZerosIsZeros) {
    const auto r = runSingleOperation(OperationType::L2_NORMALIZATION, {tensor<float>(kF32, {2, 2}, {0, 0, 3, 4})}, {output(kF32, {2, 2}, 16)});
    ASSERT_EQ(r.status, ErrorStatus::NONE) << r.why;
    expectNear(r.values<float>(), {0, 0, 0.6f, 0.8f}, 1e-6f);
}

// RESIZE_* on a [1, 1, 3, 1] image [10, 20, 30] to width 2 (height 1), by output size.
std::vector<float> resize(OperationType op, int align, int halfPixel, ErrorStatus* status = nullptr, bool* valid = nullptr) {
    std::vector<testing::TestOperand> inputs = {tensor<float>(kF32, {1, 1, 3, 1}, {10, 20, 30}), scalar(OperandType::INT32, 2),
                                                scalar(OperandType::INT32, 1), scalar(OperandType::BOOL, uint8_t{0})};
    if (align >= 0) inputs.push_back(scalar(OperandType::BOOL, static_cast<uint8_t>(align)));
    if (halfPixel >= 0) inputs.push_back(scalar(OperandType::BOOL, static_cast<uint8_t>(halfPixel)));
    const auto r = runSingleOperation(op, inputs, {output(kF32, {1, 1, 2, 1}, 8)});
    if (status != nullptr) *status = r.status;
    if (valid != nullptr) *valid = r.valid;
    return r.status == ErrorStatus::NONE ? r.values<float>() : std::vector<float>{};
}

TEST(Fl30Changes, ResizeNearestNeighborFlags) {
    const auto op = OperationType::RESIZE_NEAREST_NEIGHBOR;
    EXPECT_EQ(resize(op, -1, -1), (std::vector<float>{10, 20}));  // floor(d * 1.5)
    EXPECT_EQ(resize(op, 0, 0), (std::vector<float>{10, 20}));
    EXPECT_EQ(resize(op, 1, -1), (std::vector<float>{10, 30}));   // round(d * 2)
    EXPECT_EQ(resize(op, 0, 1), (std::vector<float>{10, 30}));    // floor((d + 0.5) * 1.5)
}

TEST(Fl30Changes, ResizeBilinearFlags) {
    const auto op = OperationType::RESIZE_BILINEAR;
    EXPECT_EQ(resize(op, -1, -1), (std::vector<float>{10, 25}));  // samples at 0 and 1.5
    EXPECT_EQ(resize(op, 1, 0), (std::vector<float>{10, 30}));    // at 0 and 2
    EXPECT_EQ(resize(op, 0, 1), (std::vector<float>{12.5f, 27.5f}));  // at 0.25 and 1.75
}

// Both flags set: a valid model whose execution fails.
TEST(Fl30Changes, ResizeRefusesBothFlags) {
    bool valid = false;
    ErrorStatus status = ErrorStatus::NONE;
    resize(OperationType::RESIZE_BILINEAR, 1, 1, &status, &valid);
    EXPECT_TRUE(valid);
    EXPECT_EQ(status, ErrorStatus::GENERAL_FAILURE);
}

}  // namespace
}  // namespace nnemu
