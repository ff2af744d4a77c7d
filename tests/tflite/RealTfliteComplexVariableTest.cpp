// Differential tests against real TensorFlow Lite 2.21 (issue 24): RFFT2D, COMPLEX_ABS, REAL,
// IMAG (complex64 and complex128) and resource variables (VAR_HANDLE, READ_VARIABLE,
// ASSIGN_VARIABLE initialised by a CALL_ONCE subgraph), on the tools' CPU kernels in every
// interpreter mode (RealTfliteOps.h), against `tflite_run --xnnpack=0` (variables over three
// invokes, `--runs=3`). None of them goes to NNAPI, as in TFLite's delegate. Malformed nodes are
// refused everywhere.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

Spec complex64(std::vector<int32_t> shape) { return {std::move(shape), fb::TensorType_COMPLEX64}; }
Spec complex128(std::vector<int32_t> shape) { return {std::move(shape), fb::TensorType_COMPLEX128}; }
Spec f64(std::vector<int32_t> shape) { return {std::move(shape), fb::TensorType_FLOAT64}; }
// RFFT2D: within 4 ULP, or, where the exact value is zero and both transforms leave a rounding
// residue of their double arithmetic, within 1e-12 of the largest magnitude.
constexpr double kResidue = 1e-12;

Spec fftLength(int32_t height, int32_t width) {
    return constantOf<int32_t>({2}, fb::TensorType_INT32, std::vector<int32_t>{height, width});
}

// ---- RFFT2D (the fft length constant unless said otherwise)
void expectRfft2d(std::vector<int32_t> in, int32_t height, int32_t width, std::vector<int32_t> out) {
    const GraphBuilder g = oneOp(fb::BuiltinOperator_RFFT2D, {f32(in), fftLength(height, width)}, {complex64(out)});
    EXPECT_EQ(delegatedNodes(g), 0u);
    expectSameAsRealTflite(g, {inputBytes(f32(in))}, 4, 1, kResidue);
}

TEST(RealTfliteComplex, Rfft2dSquare) {
    REQUIRE();
    expectRfft2d({8, 8}, 8, 8, {8, 5});
}
TEST(RealTfliteComplex, Rfft2dWide) {
    REQUIRE();
    expectRfft2d({4, 32}, 4, 32, {4, 17});
}
TEST(RealTfliteComplex, Rfft2dBatchedPaddedAndCropped) {
    REQUIRE();
    // Height 5 zero-padded to 8, width 6 cropped to 4, over 2 x 3 slices.
    expectRfft2d({2, 3, 5, 6}, 8, 4, {2, 3, 8, 3});
}
TEST(RealTfliteComplex, Rfft2dAudioFrames) {
    REQUIRE();
    // YAMNet-style: frames of 400 samples, one row each, transformed over 512.
    expectRfft2d({3, 1, 400}, 1, 512, {3, 1, 257});
}
TEST(RealTfliteComplex, Rfft2dLarge) {
    REQUIRE();
    expectRfft2d({1, 64, 128}, 64, 128, {1, 64, 65});
}
// The fft length a model input: TFLite sizes the output at invoke.
TEST(RealTfliteComplex, Rfft2dLengthAtInvoke) {
    REQUIRE();
    const GraphBuilder g = oneOp(fb::BuiltinOperator_RFFT2D, {f32({3, 4, 16}), i32({2})}, {complex64({3, 4, 9})});
    expectSameAsRealTflite(g, {inputBytes(f32({3, 4, 16})), GraphBuilder::bytes(std::vector<int32_t>{4, 16})}, 4, 1,
                           kResidue);
}

// RFFT2D then COMPLEX_ABS, REAL and IMAG of its result, as audio front ends use it.
TEST(RealTfliteComplex, Rfft2dThenMagnitudeAndParts) {
    REQUIRE();
    GraphBuilder g;
    const int32_t signal = g.tensor({2, 16, 16}, fb::TensorType_FLOAT32);
    const int32_t length = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{16, 16}));
    const int32_t spectrum = g.tensor({2, 16, 9}, fb::TensorType_COMPLEX64);
    const int32_t magnitude = g.tensor({2, 16, 9}, fb::TensorType_FLOAT32);
    const int32_t real = g.tensor({2, 16, 9}, fb::TensorType_FLOAT32);
    const int32_t imag = g.tensor({2, 16, 9}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_RFFT2D, {signal, length}, {spectrum});
    g.op(fb::BuiltinOperator_COMPLEX_ABS, {spectrum}, {magnitude});
    g.op(fb::BuiltinOperator_REAL, {spectrum}, {real});
    g.op(fb::BuiltinOperator_IMAG, {spectrum}, {imag});
    g.inputs = {signal};
    g.outputs = {magnitude, real, imag};
    EXPECT_EQ(delegatedNodes(g), 0u);
    expectSameAsRealTflite(g, {inputBytes(f32({2, 16, 16}))}, 4, 1, kResidue);
}

// ---- COMPLEX_ABS, REAL, IMAG on model inputs, complex64 and complex128
struct PartCase {
    const char* name;
    fb::BuiltinOperator code;
    bool doublePrecision;
};

class RealTfliteComplexParts : public testing::TestWithParam<PartCase> {};

TEST_P(RealTfliteComplexParts, SameAsRealTflite) {
    REQUIRE();
    const std::vector<int32_t> shape = {2, 3, 7};
    const size_t values = 2 * elementCount(shape);   // real and imaginary parts
    const bool wide = GetParam().doublePrecision;
    const std::vector<uint8_t> input = wide ? rampBytes<double>(values, -3e5, 3e5) : rampBytes<float>(values, -30, 30);
    const GraphBuilder g = oneOp(GetParam().code, {wide ? complex128(shape) : complex64(shape)}, {wide ? f64(shape) : f32(shape)});
    EXPECT_EQ(delegatedNodes(g), 0u);
    expectSameAsRealTflite(g, {input});
}

INSTANTIATE_TEST_SUITE_P(Parts, RealTfliteComplexParts,
                         testing::Values(PartCase{"ComplexAbsComplex64", fb::BuiltinOperator_COMPLEX_ABS, false},
                                         PartCase{"ComplexAbsComplex128", fb::BuiltinOperator_COMPLEX_ABS, true},
                                         PartCase{"RealComplex64", fb::BuiltinOperator_REAL, false},
                                         PartCase{"RealComplex128", fb::BuiltinOperator_REAL, true},
                                         PartCase{"ImagComplex64", fb::BuiltinOperator_IMAG, false},
                                         PartCase{"ImagComplex128", fb::BuiltinOperator_IMAG, true}),
                         [](const testing::TestParamInfo<PartCase>& info) { return std::string(info.param.name); });

// ---- resource variables
GraphBuilder::Options varHandle(const char* container, const char* name) {
    return [container, name](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateVarHandleOptionsDirect(b, container, name).Union();
    };
}
GraphBuilder::Options callOnce(int32_t index) {
    return [index](flatbuffers::FlatBufferBuilder& b) { return fb::CreateCallOnceOptions(b, index).Union(); };
}

// The init subgraph: assigns `initial` (a constant of `type` and `shape`) to the named variable.
GraphBuilder initGraph(const char* container, const char* name, std::vector<int32_t> shape, fb::TensorType type,
                       std::vector<uint8_t> initial) {
    GraphBuilder init;
    const int32_t handle = init.tensor({}, fb::TensorType_RESOURCE);
    const int32_t value = init.tensor(std::move(shape), type, std::move(initial));
    init.op(fb::BuiltinOperator_VAR_HANDLE, {}, {handle}, fb::BuiltinOptions_VarHandleOptions, varHandle(container, name));
    init.op(fb::BuiltinOperator_ASSIGN_VARIABLE, {handle, value}, {});
    return init;
}

// A tf.Variable incremented each invoke: CALL_ONCE(init); v = READ(var); y = v + x; ASSIGN(var, y);
// outputs y and the handle's value read again.
GraphBuilder accumulator(std::vector<int32_t> shape, fb::TensorType type, std::vector<uint8_t> initial) {
    GraphBuilder g;
    const int32_t handle = g.tensor({}, fb::TensorType_RESOURCE);
    const int32_t x = g.tensor(shape, type), v = g.tensor(shape, type), y = g.tensor(shape, type);
    const int32_t again = g.tensor(shape, type);
    g.op(fb::BuiltinOperator_CALL_ONCE, {}, {}, fb::BuiltinOptions_CallOnceOptions, callOnce(1));
    g.op(fb::BuiltinOperator_VAR_HANDLE, {}, {handle}, fb::BuiltinOptions_VarHandleOptions, varHandle("", "acc"));
    g.op(fb::BuiltinOperator_READ_VARIABLE, {handle}, {v});
    g.op(fb::BuiltinOperator_ADD, {v, x}, {y}, fb::BuiltinOptions_AddOptions,
         [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateAddOptions(b).Union(); });
    g.op(fb::BuiltinOperator_ASSIGN_VARIABLE, {handle, y}, {});
    g.op(fb::BuiltinOperator_READ_VARIABLE, {handle}, {again});
    g.inputs = {x};
    g.outputs = {y, again};
    g.subgraphs.push_back(initGraph("", "acc", shape, type, std::move(initial)));
    return g;
}

TEST(RealTfliteVariables, FloatAccumulatorOverThreeInvokes) {
    REQUIRE();
    const GraphBuilder g = accumulator({2, 3}, fb::TensorType_FLOAT32, rampBytes<float>(6, -1, 1));
    EXPECT_EQ(delegatedNodes(g), 1u);   // the ADD; the variables stay with the CPU, as in TFLite
    expectSameAsRealTflite(g, {rampBytes<float>(6, -2, 3)}, 0, 3);
}

TEST(RealTfliteVariables, Int32AccumulatorOverThreeInvokes) {
    REQUIRE();
    const GraphBuilder g = accumulator({4}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{1, -2, 3, 100}));
    expectSameAsRealTflite(g, {GraphBuilder::bytes(std::vector<int32_t>{5, 6, -7, 8})}, 0, 3);
}

// Two variables of one container, told apart by shared_name; one interpreter runs CALL_ONCE once.
TEST(RealTfliteVariables, TwoVariablesAndOneInitialization) {
    REQUIRE();
    GraphBuilder g;
    const int32_t a = g.tensor({}, fb::TensorType_RESOURCE), b = g.tensor({}, fb::TensorType_RESOURCE);
    const int32_t x = g.tensor({3}, fb::TensorType_FLOAT32), va = g.tensor({3}, fb::TensorType_FLOAT32);
    const int32_t vb = g.tensor({3}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_CALL_ONCE, {}, {}, fb::BuiltinOptions_CallOnceOptions, callOnce(1));
    g.op(fb::BuiltinOperator_VAR_HANDLE, {}, {a}, fb::BuiltinOptions_VarHandleOptions, varHandle("box", "a"));
    g.op(fb::BuiltinOperator_VAR_HANDLE, {}, {b}, fb::BuiltinOptions_VarHandleOptions, varHandle("box", "b"));
    g.op(fb::BuiltinOperator_READ_VARIABLE, {a}, {va});
    g.op(fb::BuiltinOperator_READ_VARIABLE, {b}, {vb});
    g.op(fb::BuiltinOperator_ASSIGN_VARIABLE, {a, x}, {});   // a takes the input; b keeps its value
    g.inputs = {x};
    g.outputs = {va, vb};
    GraphBuilder init = initGraph("box", "a", {3}, fb::TensorType_FLOAT32, rampBytes<float>(3, 1, 3));
    const int32_t hb = init.tensor({}, fb::TensorType_RESOURCE);
    const int32_t cb = init.tensor({3}, fb::TensorType_FLOAT32, rampBytes<float>(3, -5, 5));
    init.op(fb::BuiltinOperator_VAR_HANDLE, {}, {hb}, fb::BuiltinOptions_VarHandleOptions, varHandle("box", "b"));
    init.op(fb::BuiltinOperator_ASSIGN_VARIABLE, {hb, cb}, {});
    g.subgraphs.push_back(init);
    expectSameAsRealTflite(g, {rampBytes<float>(3, 7, 9)}, 0, 1);
    expectSameAsRealTflite(g, {rampBytes<float>(3, 7, 9)}, 0, 2);
}

// ---- malformed nodes
TEST(ComplexMalformed, Rfft2dLengthNotAPowerOfTwo) {
    expectModelRefused(oneOp(fb::BuiltinOperator_RFFT2D, {f32({4, 6}), fftLength(4, 6)}, {complex64({4, 4})}),
                       "must be powers of two");
}
TEST(ComplexMalformed, Rfft2dLengthShape) {
    const Spec length = constantOf<int32_t>({3}, fb::TensorType_INT32, std::vector<int32_t>{4, 4, 4});
    expectModelRefused(oneOp(fb::BuiltinOperator_RFFT2D, {f32({4, 4}), length}, {complex64({4, 3})}),
                       "fft_length must have shape [2]");
}
TEST(ComplexMalformed, Rfft2dRank1) {
    expectModelRefused(oneOp(fb::BuiltinOperator_RFFT2D, {f32({8}), fftLength(1, 8)}, {complex64({1, 5})}), "rank 2");
}
TEST(ComplexMalformed, Rfft2dFloatOutput) {
    expectModelRefused(oneOp(fb::BuiltinOperator_RFFT2D, {f32({4, 4}), fftLength(4, 4)}, {f32({4, 3})}),
                       "output of type FLOAT32 is not supported");
}
TEST(ComplexMalformed, Rfft2dDeclaredShape) {
    expectModelRefused(oneOp(fb::BuiltinOperator_RFFT2D, {f32({4, 4}), fftLength(4, 4)}, {complex64({4, 4})}),
                       "computes to [4,3]");
}
TEST(ComplexMalformed, ComplexAbsFloatInput) {
    expectModelRefused(oneOp(fb::BuiltinOperator_COMPLEX_ABS, {f32({4})}, {f32({4})}), "input of type FLOAT32");
}
TEST(ComplexMalformed, RealOutputPrecision) {
    expectModelRefused(oneOp(fb::BuiltinOperator_REAL, {complex128({4})}, {f32({4})}),
                       "output of type FLOAT32 for a COMPLEX128 input, expected FLOAT64");
}

TEST(VariablesMalformed, InitSubgraphOutOfRange) {
    GraphBuilder g = accumulator({2}, fb::TensorType_FLOAT32, rampBytes<float>(2, 0, 1));
    g.subgraphs.clear();
    expectModelRefused(g, "operator CALL_ONCE at node 0: init subgraph index 1 is out of range");
}
TEST(VariablesMalformed, InitSubgraphWithInputs) {
    GraphBuilder g = accumulator({2}, fb::TensorType_FLOAT32, rampBytes<float>(2, 0, 1));
    g.subgraphs[0].inputs = {g.subgraphs[0].tensor({2}, fb::TensorType_FLOAT32)};
    expectModelRefused(g, "has inputs or outputs");
}
TEST(VariablesMalformed, InitSubgraphCallsItself) {
    GraphBuilder g = accumulator({2}, fb::TensorType_FLOAT32, rampBytes<float>(2, 0, 1));
    g.subgraphs[0].op(fb::BuiltinOperator_CALL_ONCE, {}, {}, fb::BuiltinOptions_CallOnceOptions, callOnce(1));
    expectModelRefused(g, "init subgraph 1 is the subgraph that calls it");
}
// No options read as index 0, as TFLite reads them: the main graph, which has inputs.
TEST(VariablesMalformed, CallOnceWithoutOptions) {
    GraphBuilder g = accumulator({2}, fb::TensorType_FLOAT32, rampBytes<float>(2, 0, 1));
    g.subgraphs[0].op(fb::BuiltinOperator_CALL_ONCE, {}, {});
    expectModelRefused(g, "operator CALL_ONCE at node 2: init subgraph 0 has inputs or outputs");
}
TEST(VariablesMalformed, ResourceIdOfTwoValues) {
    GraphBuilder g;
    const int32_t ids = g.tensor({2}, fb::TensorType_INT32), value = g.tensor({2}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_READ_VARIABLE, {ids}, {value});
    g.inputs = {ids};
    g.outputs = {value};
    expectModelRefused(g, "resource id must be one value");
}
// Reading a variable nobody assigned fails the invoke with a reason, as in TFLite.
TEST(VariablesMalformed, ReadBeforeAssign) {
    GraphBuilder g;
    const int32_t handle = g.tensor({}, fb::TensorType_RESOURCE), value = g.tensor({2}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_VAR_HANDLE, {}, {handle}, fb::BuiltinOptions_VarHandleOptions, varHandle("", "v"));
    g.op(fb::BuiltinOperator_READ_VARIABLE, {handle}, {value});
    g.outputs = {value};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, mode.options));
        ASSERT_NE(interpreter, nullptr);
        const std::string error = failureOf(interpreter->invoke());
        EXPECT_NE(error.find("operator READ_VARIABLE at node 1: resource variable 0 has no value"), std::string::npos)
                << error;
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
