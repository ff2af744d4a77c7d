// Signatures and reference kernels of the comparison, logical, MAXIMUM/MINIMUM, SELECT, POW,
// PRELU and CAST operations, on cases the conformance vectors reach poorly: quant8 operands
// with different quantizations, shapes that prepare() must reject, CAST edge values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/TypeShorthands.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperandView;
using hal::OperationContext;
using hal::OperationType;
using namespace hal::types;

// An operand with its own storage; views point into it.
struct Tensor {
    OperandType type = kF32;
    std::vector<uint32_t> dims;
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    std::vector<uint8_t> bytes;

    template <typename T>
    static Tensor of(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                     float scale = 0.0f, int32_t zeroPoint = 0) {
        Tensor t{type, std::move(dims), scale, zeroPoint, {}};
        t.bytes.resize(values.size() * sizeof(T));
        if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
        return t;
    }
    OperandView view() {
        OperandView v;
        v.type = type;
        v.dims = dims;
        v.scale = scale;
        v.zeroPoint = zeroPoint;
        v.data = bytes.empty() ? nullptr : bytes.data();
        v.length = bytes.size();
        return v;
    }
};

// Output declaration: type and quantization; dims come from prepare().
struct Output {
    OperandType type;
    float scale = 0.0f;
    int32_t zeroPoint = 0;
};

struct Result {
    bool validated = false;
    bool prepared = false;
    bool computed = false;
    std::vector<uint32_t> dims;
    std::vector<uint8_t> bytes;

    template <typename T>
    std::vector<T> values() const {
        std::vector<T> out(bytes.size() / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
        return out;
    }
};

OperationContext makeContext(OperationType type, std::vector<Tensor>& inputs, const Output& output) {
    OperationContext context;
    context.type = type;
    for (Tensor& t : inputs) context.inputs.push_back(t.view());
    OperandView out;
    out.type = output.type;
    out.scale = output.scale;
    out.zeroPoint = output.zeroPoint;
    context.outputs.push_back(out);
    return context;
}

// validate (inputs as non-constants: no data), then prepare and the kernel, as the executor does.
Result run(OperationType type, std::vector<Tensor> inputs, const Output& output) {
    Result result;
    const hal::OperationSignature* signature = hal::findSignature(type);
    const cpu::Kernel kernel = cpu::findKernel(type);
    if (signature == nullptr || kernel == nullptr) return result;
    OperationContext declared = makeContext(type, inputs, output);
    for (OperandView& v : declared.inputs) v.data = nullptr;
    result.validated = signature->validate(declared);
    OperationContext context = makeContext(type, inputs, output);
    result.prepared = hal::prepareOperation(*signature, context);
    if (!result.prepared) return result;
    result.dims = context.output(0).dims;
    result.bytes.assign(hal::byteSize(output.type, result.dims), 0);
    context.output(0).data = result.bytes.data();
    context.output(0).length = result.bytes.size();
    result.computed = kernel(context);
    return result;
}

TEST(Broadcast, ShapeOfTwoShapes) {
    std::vector<uint32_t> out;
    ASSERT_TRUE(hal::broadcastShape({4, 1, 2}, {5, 4, 3, 1}, &out));
    EXPECT_EQ(out, (std::vector<uint32_t>{5, 4, 3, 2}));
    EXPECT_FALSE(hal::broadcastShape({2, 3}, {4, 3}, &out));
}

TEST(Comparison, QuantEqualRealsWithDifferentScalesAreEqual) {
    // (14 - 10) * 0.5 == 2.0 == (8 - 0) * 0.25, and 1.5 == 6 * 0.25.
    auto a = Tensor::of<uint8_t>(kQ8, {2}, {14, 13}, 0.5f, 10);
    auto b = Tensor::of<uint8_t>(kQ8, {2}, {8, 6}, 0.25f, 0);
    const Result eq = run(OperationType::EQUAL, {a, b}, {kB8});
    ASSERT_TRUE(eq.validated && eq.computed);
    EXPECT_EQ(eq.values<uint8_t>(), (std::vector<uint8_t>{1, 1}));
    EXPECT_EQ(run(OperationType::GREATER_EQUAL, {a, b}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{1, 1}));
    EXPECT_EQ(run(OperationType::LESS, {a, b}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{0, 0}));
    EXPECT_EQ(run(OperationType::NOT_EQUAL, {a, b}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{0, 0}));
}

TEST(Comparison, QuantComparesExactRealsNotRoundedFloats) {
    // 3 * 0.1f is 0.3000000045 and 1 * 0.3f is 0.3000000119: different reals, although the
    // float32 product 3 * 0.1f rounds to 0.3f.
    ASSERT_EQ(3.0f * 0.1f, 0.3f);
    auto a = Tensor::of<uint8_t>(kQ8, {1}, {3}, 0.1f, 0);
    auto b = Tensor::of<uint8_t>(kQ8, {1}, {1}, 0.3f, 0);
    EXPECT_EQ(run(OperationType::EQUAL, {a, b}, {kB8}).values<uint8_t>(), std::vector<uint8_t>{0});
    EXPECT_EQ(run(OperationType::LESS, {a, b}, {kB8}).values<uint8_t>(), std::vector<uint8_t>{1});
}

TEST(Comparison, BroadcastsAndComparesBooleans) {
    auto a = Tensor::of<int32_t>(kI32, {2, 1}, {1, 5});
    auto b = Tensor::of<int32_t>(kI32, {3}, {0, 1, 6});
    const Result greater = run(OperationType::GREATER, {a, b}, {kB8});
    ASSERT_TRUE(greater.computed);
    EXPECT_EQ(greater.dims, (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(greater.values<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 1, 1, 0}));
    // Any non-zero byte is true.
    auto x = Tensor::of<uint8_t>(kB8, {3}, {0, 2, 1});
    auto y = Tensor::of<uint8_t>(kB8, {3}, {1, 1, 0});
    EXPECT_EQ(run(OperationType::EQUAL, {x, y}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{0, 1, 0}));
    EXPECT_EQ(run(OperationType::GREATER, {x, y}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{0, 0, 1}));
}

TEST(Comparison, RejectsMismatchedShapesAndTypes) {
    auto a = Tensor::of<float>(kF32, {2, 3}, std::vector<float>(6, 1.0f));
    auto b = Tensor::of<float>(kF32, {4, 3}, std::vector<float>(12, 1.0f));
    const Result mismatched = run(OperationType::EQUAL, {a, b}, {kB8});
    EXPECT_TRUE(mismatched.validated);  // shapes that do not broadcast: refused at execution
    EXPECT_FALSE(mismatched.prepared);
    auto c = Tensor::of<int32_t>(kI32, {2, 3}, std::vector<int32_t>(6, 1));
    EXPECT_FALSE(run(OperationType::LESS, {a, c}, {kB8}).validated);   // input types differ
    EXPECT_FALSE(run(OperationType::LESS, {a, a}, {kF32}).validated);  // output is not BOOL8
}

TEST(Comparison, KernelRefusesAnOutputThatDoesNotFit) {
    auto a = Tensor::of<float>(kF32, {2, 2}, {1, 2, 3, 4});
    std::vector<Tensor> inputs{a, a};
    OperationContext context = makeContext(OperationType::EQUAL, inputs, {kB8});
    ASSERT_TRUE(hal::findSignature(OperationType::EQUAL)->prepare(context));
    std::vector<uint8_t> tooSmall(3);
    context.output(0).data = tooSmall.data();
    context.output(0).length = tooSmall.size();
    EXPECT_FALSE(cpu::findKernel(OperationType::EQUAL)(context));
    context.output(0).dims = {2, 1};  // not the broadcast shape
    EXPECT_FALSE(cpu::findKernel(OperationType::EQUAL)(context));
}

TEST(Logical, AndOrBroadcastAndNot) {
    auto a = Tensor::of<uint8_t>(kB8, {2, 2}, {0, 1, 1, 0});
    auto b = Tensor::of<uint8_t>(kB8, {2}, {1, 0});
    EXPECT_EQ(run(OperationType::LOGICAL_AND, {a, b}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 0}));
    EXPECT_EQ(run(OperationType::LOGICAL_OR, {a, b}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 0}));
    EXPECT_EQ(run(OperationType::LOGICAL_NOT, {a}, {kB8}).values<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 1}));
    auto wrong = Tensor::of<uint8_t>(kB8, {3}, {1, 0, 1});
    EXPECT_FALSE(run(OperationType::LOGICAL_AND, {a, wrong}, {kB8}).prepared);
}

TEST(MaximumMinimum, QuantRequantizesTheChosenValue) {
    // Reals: a = {-1, 4}, b = {0.5, 3}; output scale 0.5, zero point 10.
    auto a = Tensor::of<uint8_t>(kQ8, {2}, {127, 132}, 1.0f, 128);
    auto b = Tensor::of<uint8_t>(kQ8, {2}, {101, 106}, 0.5f, 100);
    const Output out{kQ8, 0.5f, 10};
    EXPECT_EQ(run(OperationType::MAXIMUM, {a, b}, out).values<uint8_t>(), (std::vector<uint8_t>{11, 18}));
    EXPECT_EQ(run(OperationType::MINIMUM, {a, b}, out).values<uint8_t>(), (std::vector<uint8_t>{8, 16}));
    // Requantized values saturate at the ends of [0, 255].
    const Output narrow{kQ8, 0.01f, 128};
    EXPECT_EQ(run(OperationType::MAXIMUM, {a, b}, narrow).values<uint8_t>(), (std::vector<uint8_t>{178, 255}));
    EXPECT_EQ(run(OperationType::MINIMUM, {a, b}, narrow).values<uint8_t>(), (std::vector<uint8_t>{28, 255}));
}

TEST(Select, ChoosesAndRequantizes) {
    auto condition = Tensor::of<uint8_t>(kB8, {3}, {1, 0, 1});
    auto x = Tensor::of<uint8_t>(kQ8, {3}, {130, 130, 126}, 1.0f, 128);  // 2, 2, -2
    auto y = Tensor::of<uint8_t>(kQ8, {3}, {0, 8, 0}, 0.25f, 0);         // 0, 2, 0
    const Result selected = run(OperationType::SELECT, {condition, x, y}, {kQ8, 0.5f, 100});
    ASSERT_TRUE(selected.validated && selected.computed);
    EXPECT_EQ(selected.values<uint8_t>(), (std::vector<uint8_t>{104, 104, 96}));
    auto i = Tensor::of<int32_t>(kI32, {3}, {1, 2, 3});
    auto j = Tensor::of<int32_t>(kI32, {3}, {-1, -2, -3});
    EXPECT_EQ(run(OperationType::SELECT, {condition, i, j}, {kI32}).values<int32_t>(),
              (std::vector<int32_t>{1, -2, 3}));
}

TEST(Select, DoesNotBroadcast) {
    auto condition = Tensor::of<uint8_t>(kB8, {2, 2}, {1, 0, 1, 0});
    auto full = Tensor::of<float>(kF32, {2, 2}, {1, 2, 3, 4});
    auto row = Tensor::of<float>(kF32, {2}, {5, 6});
    const Result broadcast = run(OperationType::SELECT, {condition, full, row}, {kF32});
    EXPECT_TRUE(broadcast.validated);  // shapes that differ: refused at execution
    EXPECT_FALSE(broadcast.prepared);
    auto column = Tensor::of<float>(kF32, {2, 1}, {5, 6});
    EXPECT_FALSE(run(OperationType::SELECT, {condition, column, column}, {kF32}).prepared);
    auto smallCondition = Tensor::of<uint8_t>(kB8, {4}, {1, 0, 1, 0});
    EXPECT_FALSE(run(OperationType::SELECT, {smallCondition, full, full}, {kF32}).prepared);
}

TEST(Prelu, QuantFixedPoint) {
    // input scale 0.5 zp 100, alpha scale 0.125 zp 0 (alpha = 0.25 and 2), output scale 0.25 zp 50.
    auto input = Tensor::of<uint8_t>(kQ8, {2, 2}, {104, 92, 100, 99}, 0.5f, 100);  // 2, -4, 0, -0.5
    auto alpha = Tensor::of<uint8_t>(kQ8, {2}, {2, 16}, 0.125f, 0);
    const Result prelu = run(OperationType::PRELU, {input, alpha}, {kQ8, 0.25f, 50});
    ASSERT_TRUE(prelu.validated && prelu.computed);
    // 2 -> 8 + 50; -4 * 2 = -8 -> -32 + 50; 0 -> 50; -0.5 * 2 = -1 -> -4 + 50.
    EXPECT_EQ(prelu.values<uint8_t>(), (std::vector<uint8_t>{58, 18, 50, 46}));
}

TEST(Prelu, OutputIsTheBroadcastShape) {
    auto input = Tensor::of<float>(kF32, {2, 1}, {-1.0f, 3.0f});
    auto alpha = Tensor::of<float>(kF32, {1, 3}, {0.5f, 1.0f, 2.0f});
    const Result prelu = run(OperationType::PRELU, {input, alpha}, {kF32});
    ASSERT_TRUE(prelu.computed);
    EXPECT_EQ(prelu.dims, (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(prelu.values<float>(), (std::vector<float>{-0.5f, -1.0f, -2.0f, 3.0f, 3.0f, 3.0f}));
    auto wrong = Tensor::of<float>(kF32, {2}, {1.0f, 2.0f});
    auto three = Tensor::of<float>(kF32, {3}, {1.0f, 2.0f, 3.0f});
    EXPECT_FALSE(run(OperationType::PRELU, {three, wrong}, {kF32}).prepared);
    EXPECT_FALSE(run(OperationType::POW, {three, wrong}, {kF32}).prepared);
}

TEST(Cast, FloatToIntegerTruncatesAndSaturates) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto f = Tensor::of<float>(kF32, {6}, {2.7f, -2.7f, 3.9f, 300.0f, 3e9f, nan});
    EXPECT_EQ(run(OperationType::CAST, {f}, {kI32}).values<int32_t>(),
              (std::vector<int32_t>{2, -2, 3, 300, std::numeric_limits<int32_t>::max(), 0}));
    EXPECT_EQ(run(OperationType::CAST, {f}, {kQ8, 4.0f, 100}).values<uint8_t>(),
              (std::vector<uint8_t>{2, 0, 3, 255, 255, 0}));
    auto i = Tensor::of<int32_t>(kI32, {3}, {-5, 77, 1000});
    EXPECT_EQ(run(OperationType::CAST, {i}, {kQ8, 0.5f, 3}).values<uint8_t>(), (std::vector<uint8_t>{0, 77, 255}));
}

TEST(Cast, QuantIsReadAsStoredValues) {
    // Scale and zero point are ignored both ways: 7 stays 7.
    auto q = Tensor::of<uint8_t>(kQ8, {2}, {7, 255}, 4.0f, 100);
    EXPECT_EQ(run(OperationType::CAST, {q}, {kF32}).values<float>(), (std::vector<float>{7.0f, 255.0f}));
    EXPECT_EQ(run(OperationType::CAST, {q}, {kQ8, 0.5f, 0}).values<uint8_t>(), (std::vector<uint8_t>{7, 255}));
    auto b = Tensor::of<uint8_t>(kB8, {2}, {0, 1});
    EXPECT_FALSE(run(OperationType::CAST, {b}, {kF32}).validated);  // BOOL8 is not castable at FL29
}

}  // namespace
}  // namespace nnemu
