// Denormal floats as TFLite's Invoke treats them (issue 24): TFLite runs every invoke with the
// calling thread's denormals suppressed (x86: MXCSR's flush-to-zero and denormals-are-zero), so
// its builtin kernels, and a delegate kernel calling nnemu's library, read denormal inputs as
// zero and flush denormal results to zero. nnemu's tools do the same (Interpreter::invoke,
// frontends/tflite/src/DenormalFlush.h). Each model here reads or produces denormals, checked to
// do so on the values themselves: the CPU path must give tflite_run --xnnpack=0's bytes, and each
// delegated mode the bytes real TFLite's benchmark_model gives with its own NNAPI delegate on
// nnemu's library and the same device.
#include <algorithm>
#include <functional>
#include <random>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

bool isDenormal(float value) { return std::fpclassify(value) == FP_SUBNORMAL; }

size_t denormalsIn(const std::vector<float>& values) {
    return static_cast<size_t>(std::count_if(values.begin(), values.end(), isDenormal));
}

// Four kinds of value in turn (element i has kind (i / stride) % 4), each sign, random mantissas:
// denormals (2^-149 to 2^-127), tiny normals (2^-70 to 2^-60: their products are denormal or
// close), large values (2^40 to 2^70: a denormal times one is normal unless read as zero) and
// ordinary ones in [-4, 4].
std::vector<float> denormalMix(size_t count, size_t stride, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    const auto exponent = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) {
        const float sign = (i * 7 + seed) % 3 == 0 ? -1.0f : 1.0f;
        switch ((i / stride) % 4) {
            case 0: values[i] = sign * std::ldexp(mantissa(random), exponent(-149, -127)); break;
            case 1: values[i] = sign * std::ldexp(mantissa(random), exponent(-70, -60)); break;
            case 2: values[i] = sign * std::ldexp(mantissa(random), exponent(40, 70)); break;
            default: values[i] = std::uniform_real_distribution<float>(-4.0f, 4.0f)(random); break;
        }
    }
    return values;
}

// Biases of 2^-122 to 2^-118, each sign: sums of denormal products change their last bits unless
// the products are flushed.
std::vector<uint8_t> tinyBias(size_t count, uint32_t seed) {
    std::vector<float> values = denormalMix(count, 1, seed);
    for (size_t i = 0; i < count; ++i) {
        values[i] = std::ldexp(values[i] < 0 ? -1.0f - static_cast<float>(i) / 8 : 1.0f + static_cast<float>(i) / 8, -122 + static_cast<int>(i % 5));
    }
    return GraphBuilder::bytes(values);
}

std::vector<float> floatsOf(const std::vector<uint8_t>& bytes) { return valuesOf<float>(bytes.data(), bytes.size() / 4); }

// The model on `inputs` in every mode, byte for byte: the CPU path against TFLite's builtin
// kernels; a mode that delegates against TFLite's own NNAPI delegate on nnemu's library on the
// same device. tfliteFlushes: TFLite's outputs hold no denormal (arithmetic results).
void expectFlushedAsTflite(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs,
                           bool tfliteFlushes = true) {
    const std::vector<uint8_t> bytes = g.buildBytes();
    const RealTfliteResult real = runRealTflite(bytes, inputs);
    ASSERT_TRUE(real.ok) << "tflite_run failed:\n" << real.log;
    for (const std::vector<uint8_t>& output : real.outputs) {
        if (tfliteFlushes) {
            EXPECT_EQ(denormalsIn(floatsOf(output)), 0u);
        }
    }
    const std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    forEachKernelRunMode(bytes, [&](Interpreter& interpreter, const RunMode& mode) {
        for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter.inputData(i), inputs[i].data(), inputs[i].size());
        const Status status = interpreter.invoke();
        ASSERT_TRUE(status.isOk()) << status.message();
        RealTfliteResult delegated;
        if (interpreter.delegatedNodeCount() > 0) {
            delegated = runRealTfliteNnapi(bytes, *model, inputs, mode.options.acceleratorName);
            ASSERT_TRUE(delegated.ok) << "benchmark_model --use_nnapi=true failed:\n" << delegated.log;
        }
        const RealTfliteResult& want = delegated.ok ? delegated : real;
        ASSERT_EQ(interpreter.outputCount(), want.outputs.size());
        for (size_t o = 0; o < want.outputs.size(); ++o) {
            SCOPED_TRACE(std::string(delegated.ok ? "delegated, against TFLite's delegate on nnemu's library, "
                                                  : "against tflite_run --xnnpack=0, ") +
                         "output " + std::to_string(o));
            ASSERT_EQ(interpreter.outputTensor(o).byteSize(), want.outputs[o].size());
            expectSameBytes(interpreter.outputTensor(o), interpreter.outputData(o), want.outputs[o], /*ulps=*/0);
        }
    });
}

// Elementwise binary operator on two {16, 16} inputs: every kind of value meets every kind. Where
// the result overflows, or a divisor is denormal (a division by zero when read as zero), the
// second operand is 1 instead: TFLite clamps a float MUL's or DIV's infinite result to the
// largest float (its activation range without an activation), nnemu's CPU path keeps the
// infinity, another difference than this test's.
void expectBinary(fb::BuiltinOperator code, const std::function<float(float, float)>& exact, bool divides) {
    std::vector<float> a = denormalMix(256, 1, 11), b = denormalMix(256, 4, 12);
    std::vector<float> results(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(exact(a[i], b[i])) || (divides && isDenormal(b[i]))) b[i] = 1.0f;
        results[i] = exact(a[i], b[i]);
    }
    ASSERT_GT(denormalsIn(results), 8u) << "the operands must give denormal results where nothing is flushed";
    expectFlushedAsTflite(oneOp(code, {f32({16, 16}), f32({16, 16})}, {f32({16, 16})}),
                          {GraphBuilder::bytes(a), GraphBuilder::bytes(b)});
}

TEST(RealTfliteDenormal, MulFloat) {
    REQUIRE();
    expectBinary(fb::BuiltinOperator_MUL, [](float x, float y) { return x * y; }, false);
}

TEST(RealTfliteDenormal, DivFloat) {
    REQUIRE();
    expectBinary(fb::BuiltinOperator_DIV, [](float x, float y) { return x / y; }, true);
}

// Denormal inputs only: their sums are denormal where they are not read as zero.
TEST(RealTfliteDenormal, AddFloatOfDenormalInputs) {
    REQUIRE();
    const std::vector<float> a = denormalMix(256, 1, 21), b = denormalMix(256, 4, 22);
    std::vector<float> sums(a.size());
    for (size_t i = 0; i < a.size(); ++i) sums[i] = a[i] + b[i];
    ASSERT_GT(denormalsIn(sums), 8u);
    expectFlushedAsTflite(oneOp(fb::BuiltinOperator_ADD, {f32({16, 16}), f32({16, 16})}, {f32({16, 16})}),
                          {GraphBuilder::bytes(a), GraphBuilder::bytes(b)});
}

void expectUnary(fb::BuiltinOperator code, const std::vector<float>& values, bool tfliteFlushes = true) {
    const int32_t count = static_cast<int32_t>(values.size());
    expectFlushedAsTflite(oneOp(code, {f32({count})}, {f32({count})}), {GraphBuilder::bytes(values)}, tfliteFlushes);
}

// The RELU family on denormal inputs (read as zero by every comparison under the flags): TFLite's
// RELU gives a signed zero for one (Eigen's max), RELU6 and RELU_N1_TO_1 pass it as it is, so
// these outputs may hold denormals. Whole packets, and tails of 3 with a denormal of each sign
// (TFLite's RELU passes one there).
TEST(RealTfliteDenormal, ReluFamilyFloatOfDenormalInputs) {
    REQUIRE();
    for (const size_t count : {256u, 259u, 263u}) {
        const std::vector<float> values = denormalMix(count, 1, 31);
        ASSERT_GT(denormalsIn(values), 8u);
        for (const fb::BuiltinOperator code :
             {fb::BuiltinOperator_RELU, fb::BuiltinOperator_RELU6, fb::BuiltinOperator_RELU_N1_TO_1}) {
            SCOPED_TRACE(std::string(fb::EnumNameBuiltinOperator(code)) + ", " + std::to_string(count) + " elements");
            expectUnary(code, values, /*tfliteFlushes=*/false);
        }
    }
}

TEST(RealTfliteDenormal, SquareFloat) {
    REQUIRE();
    const std::vector<float> values = denormalMix(256, 1, 41);
    std::vector<float> squares(values.size());
    for (size_t i = 0; i < values.size(); ++i) squares[i] = values[i] * values[i];
    ASSERT_GT(denormalsIn(squares), 8u);
    expectUnary(fb::BuiltinOperator_SQUARE, values);
}

// EXP from -110 to -80 (exp(x) is denormal below about -87.34), and denormal inputs (exp of 0).
TEST(RealTfliteDenormal, ExpFloatFarBelowZero) {
    REQUIRE();
    std::vector<float> values = denormalMix(64, 1, 51);
    for (size_t i = 0; i < 192; ++i) values.push_back(-110.0f + 30.0f * static_cast<float>(i * 37 % 192) / 191.0f);
    std::vector<float> exact(values.size());
    for (size_t i = 0; i < values.size(); ++i) exact[i] = std::exp(values[i]);
    ASSERT_GT(denormalsIn(exact), 8u);
    expectUnary(fb::BuiltinOperator_EXP, values);
}

// Values whose exponent lies in [evenLow, evenHigh] at even positions and [oddLow, oddHigh] at odd
// ones (along a depth of even size: the channel), random mantissas and signs.
std::vector<float> alternating(size_t count, int evenLow, int evenHigh, int oddLow, int oddHigh, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) {
        const int low = i % 2 == 0 ? evenLow : oddLow, high = i % 2 == 0 ? evenHigh : oddHigh;
        const float sign = random() % 3 == 0 ? -1.0f : 1.0f;
        values[i] = sign * std::ldexp(mantissa(random), std::uniform_int_distribution<int>(low, high)(random));
    }
    return values;
}

// Sums of tiny products: along the depth the input alternates denormals (2^-149 to 2^-127) with
// tiny normals (2^-66 to 2^-60), the weights values of 2^-4 to 1 with tiny normals, over biases of
// about 2^-120. A denormal input read as zero drops its product (2^-153 to 2^-127, within the
// sum's precision), and a product of two tiny normals is denormal or close (flushed where TFLite
// rounds it on its own, kept in a fused multiply-add).
std::vector<float> tinyInput(size_t count, uint32_t seed) { return alternating(count, -149, -127, -66, -60, seed); }
std::vector<float> tinyWeights(size_t count, uint32_t seed) { return alternating(count, -4, 0, -66, -60, seed); }

TEST(RealTfliteDenormal, FullyConnectedFloatOfTinyProducts) {
    REQUIRE();
    const std::vector<float> input = tinyInput(48, 61), weights = tinyWeights(7 * 48, 62);
    ASSERT_EQ(denormalsIn(input), 24u);
    const auto options = [](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateFullyConnectedOptions(b, fb::ActivationFunctionType_NONE).Union();
    };
    expectFlushedAsTflite(oneOp(fb::BuiltinOperator_FULLY_CONNECTED,
                                {f32({1, 48}), constant(f32({7, 48}), GraphBuilder::bytes(weights)),
                                 constant(f32({7}), tinyBias(7, 63))},
                                {f32({1, 7})}, fb::BuiltinOptions_FullyConnectedOptions, options),
                          {GraphBuilder::bytes(input)});
}

TEST(RealTfliteDenormal, Conv2DFloatOfTinyProducts) {
    REQUIRE();
    const std::vector<float> input = tinyInput(5 * 5 * 4, 71), filter = tinyWeights(3 * 3 * 3 * 4, 72);
    ASSERT_EQ(denormalsIn(input), 50u);
    const auto options = [](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateConv2DOptions(b, fb::Padding_SAME, 1, 1, fb::ActivationFunctionType_NONE, 1, 1).Union();
    };
    expectFlushedAsTflite(oneOp(fb::BuiltinOperator_CONV_2D,
                                {f32({1, 5, 5, 4}), constant(f32({3, 3, 3, 4}), GraphBuilder::bytes(filter)),
                                 constant(f32({3}), tinyBias(3, 73))},
                                {f32({1, 5, 5, 3})}, fb::BuiltinOptions_Conv2DOptions, options),
                          {GraphBuilder::bytes(input)});
}

#if defined(__x86_64__) || defined(__i386__)
// The flags hold for the invoke only: the caller's MXCSR comes back as it was, set or not (no real
// TFLite needed).
TEST(DenormalFlush, InvokeRestoresTheCallersFlags) {
    const std::vector<float> a = denormalMix(64, 1, 81), b = denormalMix(64, 4, 82);
    const std::vector<uint8_t> bytes = oneOp(fb::BuiltinOperator_MUL, {f32({64}), f32({64})}, {f32({64})}).buildBytes();
    const unsigned saved = _mm_getcsr();
    for (const unsigned callers : {saved & ~0x8040u, saved | 0x8040u, (saved & ~0x8040u) | 0x0040u}) {
        forEachKernelRunMode(bytes, [&](Interpreter& interpreter) {
            std::memcpy(interpreter.inputData(0), a.data(), a.size() * sizeof(float));
            std::memcpy(interpreter.inputData(1), b.data(), b.size() * sizeof(float));
            _mm_setcsr(callers);
            const Status status = interpreter.invoke();
            const unsigned after = _mm_getcsr();
            _mm_setcsr(saved);
            ASSERT_TRUE(status.isOk()) << status.message();
            EXPECT_EQ(after & ~0x3fu, callers & ~0x3fu);   // the exception flags aside
            // On the CPU path, flushed whatever the caller's flags (a device's own threads keep
            // theirs: the tests above compare those modes with TFLite's delegate instead).
            if (interpreter.delegatedNodeCount() == 0) {
                EXPECT_EQ(denormalsIn(valuesOf<float>(interpreter.outputData(0), 64)), 0u);
            }
        });
    }
}
#endif

}  // namespace
}  // namespace nnemu::tflite::test
