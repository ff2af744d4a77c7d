// GROUPED_CONV_2D and TRANSPOSE_CONV_2D where the conformance vectors do not reach: malformed
// operands rejected by prepare, a zero-sized batch, the implicit transpose padding; and the
// fixed-point requantization with multipliers above 1 (feature level 29).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/TransposeWindow.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;

// An operation's operands with storage; outputs get buffers sized from prepare's dims.
class Operation {
public:
    explicit Operation(OperationType type) { context_.type = type; }

    template <typename T>
    Operation& tensor(OperandType type, std::vector<uint32_t> dims, std::vector<T> values) {
        hal::OperandView view;
        view.type = type;
        view.dims = std::move(dims);
        store(view, values.data(), values.size() * sizeof(T));
        return *this;
    }
    Operation& i32(int32_t value) { return scalar(OperandType::INT32, &value, sizeof value); }
    Operation& boolean(bool value) {
        const uint8_t byte = value ? 1 : 0;
        return scalar(OperandType::BOOL, &byte, 1);
    }
    Operation& output(OperandType type) {
        hal::OperandView view;
        view.type = type;
        context_.outputs.push_back(view);
        return *this;
    }

    const hal::OperationSignature& signature() const { return *hal::findSignature(context_.type); }
    bool validate() const { return signature().validate(context_); }
    bool prepare() { return hal::prepareOperation(signature(), context_); }  // the execution stage
    // prepare, allocate the outputs, run the reference kernel.
    bool run() {
        if (!prepare()) return false;
        for (hal::OperandView& out : context_.outputs) {
            outputStorage_.emplace_back(hal::byteSize(out.type, out.dims) + 1);
            out.data = outputStorage_.back().data();
            out.length = outputStorage_.back().size() - 1;
        }
        return cpu::findKernel(context_.type)(context_);
    }
    const std::vector<uint32_t>& outputDims() const { return context_.outputs[0].dims; }
    template <typename T>
    std::vector<T> outputValues() const {
        const hal::OperandView& out = context_.outputs[0];
        std::vector<T> values(out.length / sizeof(T));
        if (!values.empty()) std::memcpy(values.data(), out.data, values.size() * sizeof(T));
        return values;
    }

private:
    Operation& scalar(OperandType type, const void* value, size_t size) {
        hal::OperandView view;
        view.type = type;
        store(view, value, size);
        return *this;
    }
    void store(hal::OperandView& view, const void* data, size_t size) {
        storage_.emplace_back(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
        storage_.back().push_back(0);   // a non-null pointer even for empty tensors
        view.data = storage_.back().data();
        view.length = size;
        context_.inputs.push_back(view);
    }

    hal::OperationContext context_;
    std::vector<std::vector<uint8_t>> storage_, outputStorage_;
};

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr int32_t kSame = static_cast<int32_t>(hal::PaddingScheme::SAME);

// GROUPED_CONV_2D, explicit padding 0, stride 1, on input [1,1,1,inChannels].
Operation grouped(uint32_t inChannels, std::vector<uint32_t> filterDims, int32_t groups) {
    Operation op(OperationType::GROUPED_CONV_2D);
    std::vector<float> filter(filterDims[0] * filterDims[1] * filterDims[2] * filterDims[3], 1.0f);
    std::vector<float> input(inChannels);
    for (uint32_t i = 0; i < inChannels; ++i) input[i] = static_cast<float>(i + 1);
    op.tensor<float>(F32, {1, 1, 1, inChannels}, input)
            .tensor<float>(F32, filterDims, filter)
            .tensor<float>(F32, {filterDims[0]}, std::vector<float>(filterDims[0], 0.0f));
    for (int32_t v : {0, 0, 0, 0, 1, 1, groups, 0}) op.i32(v);
    op.boolean(false).output(F32);
    return op;
}

TEST(GroupedConv2D, EachGroupReadsItsOwnInputChannels) {
    Operation op(OperationType::GROUPED_CONV_2D);
    op.tensor<float>(F32, {1, 1, 1, 4}, {1, 2, 3, 4})
            .tensor<float>(F32, {2, 1, 1, 2}, {1, 1, 1, -1})
            .tensor<float>(F32, {2}, {0, 10});
    for (int32_t v : {0, 0, 0, 0, 1, 1, 2, 0}) op.i32(v);
    op.boolean(false).output(F32);
    ASSERT_TRUE(op.validate());
    ASSERT_TRUE(op.run());
    EXPECT_EQ(op.outputDims(), (std::vector<uint32_t>{1, 1, 1, 2}));
    EXPECT_EQ(op.outputValues<float>(), (std::vector<float>{1 + 2, 3 - 4 + 10}));
}

TEST(GroupedConv2D, PrepareRejectsChannelsThatDoNotSplitIntoGroups) {
    EXPECT_TRUE(grouped(4, {2, 1, 1, 2}, 2).prepare());
    EXPECT_FALSE(grouped(4, {2, 1, 1, 2}, 3).prepare());   // 2 x 3 != 4 input channels
    EXPECT_FALSE(grouped(6, {4, 1, 1, 2}, 3).prepare());   // 4 outputs do not split into 3
    EXPECT_FALSE(grouped(4, {2, 1, 1, 2}, 0).prepare());
    EXPECT_FALSE(grouped(4, {2, 1, 1, 2}, -2).prepare());
}

TEST(GroupedConv2D, LayoutIsMandatory) {
    Operation op = grouped(4, {2, 1, 1, 2}, 2);
    EXPECT_TRUE(op.validate());
    Operation without(OperationType::GROUPED_CONV_2D);
    without.tensor<float>(F32, {1, 1, 1, 4}, {1, 2, 3, 4})
            .tensor<float>(F32, {2, 1, 1, 2}, {1, 1, 1, 1})
            .tensor<float>(F32, {2}, {0, 0});
    for (int32_t v : {0, 0, 0, 0, 1, 1, 2, 0}) without.i32(v);
    without.output(F32);
    EXPECT_FALSE(without.validate());
}

// TRANSPOSE_CONV_2D, implicit form: input [batch,2,2,1], filter [1,3,3,1] of ones.
Operation transposeImplicit(uint32_t batch, std::vector<int32_t> outputShape, int32_t scheme, int32_t stride) {
    Operation op(OperationType::TRANSPOSE_CONV_2D);
    op.tensor<float>(F32, {batch, 2, 2, 1}, std::vector<float>(batch * 4, 1.0f))
            .tensor<float>(F32, {1, 3, 3, 1}, std::vector<float>(9, 1.0f))
            .tensor<float>(F32, {1}, {0.5f})
            .tensor<int32_t>(OperandType::TENSOR_INT32, {static_cast<uint32_t>(outputShape.size())}, outputShape);
    op.i32(scheme).i32(stride).i32(stride).i32(0).boolean(false).output(F32);
    return op;
}

TEST(TransposeConv2D, SamePaddingGivesTheRequestedSize) {
    // Output 4 from input 2 with stride 2 and filter 3: (2 - 1) x 2 + 3 - 1 of padding.
    Operation op = transposeImplicit(1, {1, 4, 4, 1}, kSame, 2);
    ASSERT_TRUE(op.validate());
    ASSERT_TRUE(op.run());
    EXPECT_EQ(op.outputDims(), (std::vector<uint32_t>{1, 4, 4, 1}));
    // Head padding 0: output row 0 gets input row 0 tap 0; row 2 gets row 0 tap 2 and row 1 tap 0.
    const std::vector<float> out = op.outputValues<float>();
    EXPECT_EQ(out[0], 1.5f);
    EXPECT_EQ(out[2 * 4 + 2], 4.5f);
    int32_t head = 0, tail = 0;
    hal::transposePaddingForScheme(kSame, 4, 1, 2, &head, &tail);
    EXPECT_EQ(head, 0);
    EXPECT_EQ(tail, -1);   // the tail may be negative: 2 x (2 - 1) + 1 + 1 = 4
}

TEST(TransposeConv2D, ZeroBatchGivesAnEmptyOutput) {
    Operation op = transposeImplicit(0, {0, 4, 4, 1}, kSame, 2);
    EXPECT_TRUE(op.signature().allowZeroSizedInput);
    ASSERT_TRUE(op.run());
    EXPECT_EQ(op.outputDims(), (std::vector<uint32_t>{0, 4, 4, 1}));
}

TEST(TransposeConv2D, PrepareRejectsMalformedOperands) {
    EXPECT_FALSE(transposeImplicit(1, {1, 4, 4}, kSame, 2).prepare());
    EXPECT_FALSE(transposeImplicit(1, {1, 4, 4, 1}, 0, 2).prepare());   // no such scheme
    EXPECT_FALSE(transposeImplicit(1, {1, 4, 4, 1}, kSame, 0).prepare());
    EXPECT_FALSE(transposeImplicit(1, {1, -4, 4, 1}, kSame, 2).prepare());
    // Explicit form: a negative head padding, and a tail that leaves nothing.
    for (const std::vector<int32_t>& pads : {std::vector<int32_t>{-1, 0, 0, 0}, std::vector<int32_t>{0, 0, 0, 9}}) {
        Operation op(OperationType::TRANSPOSE_CONV_2D);
        op.tensor<float>(F32, {1, 2, 2, 1}, std::vector<float>(4, 1.0f))
                .tensor<float>(F32, {1, 3, 3, 1}, std::vector<float>(9, 1.0f))
                .tensor<float>(F32, {1}, {0.0f});
        for (int32_t v : pads) op.i32(v);
        op.i32(1).i32(1).i32(0).boolean(false).output(F32);
        EXPECT_TRUE(op.validate());
        EXPECT_FALSE(op.prepare()) << pads[0] << " " << pads[3];
    }
}

TEST(QuantMath, MultipliersAboveOneMatchTheRealProduct) {
    // Real layers reach factors of a few units up to a few hundred. The left shift comes first,
    // so a result is exact (to the rounding) below 2^30; from there on it saturates, still at
    // 2^30 or more and of the right sign, which clamps to the same 8-bit output.
    for (double real : {1.0000001, 1.5, 2.5, 12.5, 100.3, 255.99, 256.0, 4096.7}) {
        int32_t quantized = 0;
        int shift = 0;
        quant::quantizeMultiplier(real, &quantized, &shift);
        ASSERT_GT(shift, 0) << real;
        const double represented = quantized * std::ldexp(1.0, shift - 31);
        for (int32_t x : {1, -1, 3, -7, 1000, -12345, 400000, -2000000}) {
            const double exact = x * represented;
            const int32_t actual = quant::multiplyByQuantizedMultiplier(x, quantized, shift);
            if (std::fabs(exact) < std::ldexp(1.0, 30)) {
                EXPECT_NEAR(actual, exact, 0.5 + 1e-9) << real << " x " << x;
            } else {
                EXPECT_GE(std::fabs(static_cast<double>(actual)), std::ldexp(1.0, 30) - 1) << real << " x " << x;
                EXPECT_EQ(actual > 0, x > 0) << real << " x " << x;
            }
        }
    }
    int32_t quantized = 0;
    int shift = 0;
    quant::quantizeMultiplier(2.0, &quantized, &shift);
    EXPECT_EQ(quant::multiplyByQuantizedMultiplier(-1234567, quantized, shift), -2469134);
}

}  // namespace
}  // namespace nnemu
