// Differential tests against real TensorFlow Lite 2.21, elementwise builtins: unary math and
// activations, binary arithmetic (with broadcasting and fused activations), comparisons, logical
// operators, SELECT. One test per builtin and type TFLite's kernel takes (RealTfliteOps.h).
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

const std::vector<int32_t> kShape = {2, 3, 4, 5};
const std::vector<int32_t> kBroadcast = {1, 3, 1, 5};

void unary(fb::BuiltinOperator code, const Spec& in, const Spec& out) { expectOp(code, {in}, {out}); }

void binary(fb::BuiltinOperator code, const Spec& a, const Spec& b, const Spec& out,
            fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, GraphBuilder::Options options = nullptr) {
    expectOp(code, {a, b}, {out}, optionsType, std::move(options));
}

#define REAL_TFLITE_TEST(name) TEST(RealTfliteElementwise, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

// ---- unary math
REAL_TFLITE_TEST(AbsFloat) { REQUIRE(); unary(fb::BuiltinOperator_ABS, f32(kShape), f32(kShape)); }
REAL_TFLITE_TEST(AbsInt8) { REQUIRE(); unary(fb::BuiltinOperator_ABS, i8(kShape, 0.05f, 3), i8(kShape, 0.04f, -10)); }
REAL_TFLITE_TEST(AbsInt32) { REQUIRE(); unary(fb::BuiltinOperator_ABS, i32(kShape), i32(kShape)); }
REAL_TFLITE_TEST(ExpFloat) { REQUIRE(); unary(fb::BuiltinOperator_EXP, f32(kShape, -8, 8), f32(kShape)); }
REAL_TFLITE_TEST(LogFloat) { REQUIRE(); unary(fb::BuiltinOperator_LOG, f32(kShape, 0.01, 50), f32(kShape)); }
REAL_TFLITE_TEST(SqrtFloat) { REQUIRE(); unary(fb::BuiltinOperator_SQRT, f32(kShape, 0, 50), f32(kShape)); }
REAL_TFLITE_TEST(RsqrtFloat) { REQUIRE(); unary(fb::BuiltinOperator_RSQRT, f32(kShape, 0.01, 50), f32(kShape)); }
REAL_TFLITE_TEST(SinFloat) { REQUIRE(); unary(fb::BuiltinOperator_SIN, f32(kShape, -7, 7), f32(kShape)); }
REAL_TFLITE_TEST(NegFloat) { REQUIRE(); unary(fb::BuiltinOperator_NEG, f32(kShape), f32(kShape)); }
REAL_TFLITE_TEST(NegInt32) { REQUIRE(); unary(fb::BuiltinOperator_NEG, i32(kShape), i32(kShape)); }
REAL_TFLITE_TEST(FloorFloat) { REQUIRE(); unary(fb::BuiltinOperator_FLOOR, f32(kShape), f32(kShape)); }

// ---- activations (TFLite's fixed output scales for LOGISTIC and TANH)
REAL_TFLITE_TEST(ReluFloat) { REQUIRE(); unary(fb::BuiltinOperator_RELU, f32(kShape), f32(kShape)); }
REAL_TFLITE_TEST(ReluUint8) { REQUIRE(); unary(fb::BuiltinOperator_RELU, u8(kShape, 0.05f, 100), u8(kShape, 0.03f, 0)); }
REAL_TFLITE_TEST(ReluInt8) { REQUIRE(); unary(fb::BuiltinOperator_RELU, i8(kShape, 0.05f, 10), i8(kShape, 0.03f, -128)); }
REAL_TFLITE_TEST(Relu6Float) { REQUIRE(); unary(fb::BuiltinOperator_RELU6, f32(kShape, -9, 9), f32(kShape)); }
REAL_TFLITE_TEST(Relu6Uint8) { REQUIRE(); unary(fb::BuiltinOperator_RELU6, u8(kShape, 0.06f, 100), u8(kShape, 0.025f, 0)); }
REAL_TFLITE_TEST(Relu6Int8) { REQUIRE(); unary(fb::BuiltinOperator_RELU6, i8(kShape, 0.06f, 0), i8(kShape, 0.025f, -128)); }
REAL_TFLITE_TEST(ReluN1To1Float) { REQUIRE(); unary(fb::BuiltinOperator_RELU_N1_TO_1, f32(kShape, -3, 3), f32(kShape)); }
REAL_TFLITE_TEST(ReluN1To1Uint8) {
    REQUIRE();
    unary(fb::BuiltinOperator_RELU_N1_TO_1, u8(kShape, 0.02f, 128), u8(kShape, 0.01f, 128));
}
REAL_TFLITE_TEST(ReluN1To1Int8) {
    REQUIRE();
    unary(fb::BuiltinOperator_RELU_N1_TO_1, i8(kShape, 0.02f, 0), i8(kShape, 0.01f, 0));
}
REAL_TFLITE_TEST(LogisticFloat) { REQUIRE(); unary(fb::BuiltinOperator_LOGISTIC, f32(kShape, -10, 10), f32(kShape)); }
REAL_TFLITE_TEST(LogisticUint8) {
    REQUIRE();
    unary(fb::BuiltinOperator_LOGISTIC, u8(kShape, 0.08f, 128), u8(kShape, 1.0f / 256, 0));
}
REAL_TFLITE_TEST(LogisticInt8) {
    REQUIRE();
    unary(fb::BuiltinOperator_LOGISTIC, i8(kShape, 0.08f, 0), i8(kShape, 1.0f / 256, -128));
}
REAL_TFLITE_TEST(TanhFloat) { REQUIRE(); unary(fb::BuiltinOperator_TANH, f32(kShape, -5, 5), f32(kShape)); }
REAL_TFLITE_TEST(TanhUint8) { REQUIRE(); unary(fb::BuiltinOperator_TANH, u8(kShape, 0.03f, 128), u8(kShape, 1.0f / 128, 128)); }
REAL_TFLITE_TEST(TanhInt8) { REQUIRE(); unary(fb::BuiltinOperator_TANH, i8(kShape, 0.03f, 0), i8(kShape, 1.0f / 128, 0)); }
REAL_TFLITE_TEST(PreluFloat) {
    REQUIRE();
    binary(fb::BuiltinOperator_PRELU, f32(kShape), constant(f32({1, 1, 5}), rampBytes<float>(5, -0.5, 0.5)), f32(kShape));
}
REAL_TFLITE_TEST(PreluUint8) {
    REQUIRE();
    binary(fb::BuiltinOperator_PRELU, u8(kShape, 0.05f, 120), constant(u8({1, 1, 5}, 0.01f, 50), rampBytes<uint8_t>(5, 0, 100)),
           u8(kShape, 0.04f, 100));
}
REAL_TFLITE_TEST(PreluInt8) {
    REQUIRE();
    binary(fb::BuiltinOperator_PRELU, i8(kShape, 0.05f, -8), constant(i8({1, 1, 5}, 0.01f, 0), rampBytes<int8_t>(5, -50, 50)),
           i8(kShape, 0.04f, -20));
}

// ---- binary arithmetic, the second input broadcast
GraphBuilder::Options activation(fb::BuiltinOperator code, fb::ActivationFunctionType act) {
    return [code, act](flatbuffers::FlatBufferBuilder& b) -> flatbuffers::Offset<void> {
        switch (code) {
            case fb::BuiltinOperator_ADD: return fb::CreateAddOptions(b, act).Union();
            case fb::BuiltinOperator_SUB: return fb::CreateSubOptions(b, act).Union();
            case fb::BuiltinOperator_MUL: return fb::CreateMulOptions(b, act).Union();
            default: return fb::CreateDivOptions(b, act).Union();
        }
    };
}
fb::BuiltinOptions optionsTypeOf(fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_ADD: return fb::BuiltinOptions_AddOptions;
        case fb::BuiltinOperator_SUB: return fb::BuiltinOptions_SubOptions;
        case fb::BuiltinOperator_MUL: return fb::BuiltinOptions_MulOptions;
        default: return fb::BuiltinOptions_DivOptions;
    }
}
void arithmetic(fb::BuiltinOperator code, const Spec& a, const Spec& b, const Spec& out,
                fb::ActivationFunctionType act = fb::ActivationFunctionType_NONE) {
    binary(code, a, b, out, optionsTypeOf(code), activation(code, act));
}

REAL_TFLITE_TEST(AddInt8Relu) {
    REQUIRE();
    arithmetic(fb::BuiltinOperator_ADD, i8(kShape, 0.05f, -5), i8(kBroadcast, 0.03f, 7), i8(kShape, 0.06f, -20),
               fb::ActivationFunctionType_RELU);
}
REAL_TFLITE_TEST(AddInt32) { REQUIRE(); arithmetic(fb::BuiltinOperator_ADD, i32(kShape), i32(kBroadcast), i32(kShape)); }
REAL_TFLITE_TEST(SubFloatRelu) {
    REQUIRE();
    arithmetic(fb::BuiltinOperator_SUB, f32(kShape), f32(kBroadcast), f32(kShape), fb::ActivationFunctionType_RELU);
}
REAL_TFLITE_TEST(SubUint8) {
    REQUIRE();
    arithmetic(fb::BuiltinOperator_SUB, u8(kShape, 0.05f, 128), u8(kBroadcast, 0.04f, 100), u8(kShape, 0.07f, 130));
}
REAL_TFLITE_TEST(SubInt8) {
    REQUIRE();
    arithmetic(fb::BuiltinOperator_SUB, i8(kShape, 0.05f, 0), i8(kBroadcast, 0.04f, -20), i8(kShape, 0.07f, 3));
}
REAL_TFLITE_TEST(SubInt32) { REQUIRE(); arithmetic(fb::BuiltinOperator_SUB, i32(kShape), i32(kBroadcast), i32(kShape)); }
REAL_TFLITE_TEST(MulFloatRelu6) {
    REQUIRE();
    arithmetic(fb::BuiltinOperator_MUL, f32(kShape), f32(kBroadcast), f32(kShape), fb::ActivationFunctionType_RELU6);
}
REAL_TFLITE_TEST(MulUint8) {
    REQUIRE();
    arithmetic(fb::BuiltinOperator_MUL, u8(kShape, 0.05f, 128), u8(kBroadcast, 0.04f, 100), u8(kShape, 0.1f, 120));
}
REAL_TFLITE_TEST(MulInt32) { REQUIRE(); arithmetic(fb::BuiltinOperator_MUL, i32(kShape), i32(kBroadcast), i32(kShape)); }
REAL_TFLITE_TEST(DivFloat) {
    REQUIRE();
    arithmetic(fb::BuiltinOperator_DIV, f32(kShape), range(f32(kBroadcast), 0.5, 3), f32(kShape));
}
REAL_TFLITE_TEST(PowFloat) {
    REQUIRE();
    binary(fb::BuiltinOperator_POW, f32(kShape, 0.1, 4), f32(kBroadcast, -2, 2), f32(kShape));
}
REAL_TFLITE_TEST(PowInt32) { REQUIRE(); binary(fb::BuiltinOperator_POW, i32(kShape, -5, 5), i32(kBroadcast, 0, 4), i32(kShape)); }
REAL_TFLITE_TEST(MaximumFloat) { REQUIRE(); binary(fb::BuiltinOperator_MAXIMUM, f32(kShape), f32(kBroadcast), f32(kShape)); }
REAL_TFLITE_TEST(MaximumUint8) {
    REQUIRE();
    binary(fb::BuiltinOperator_MAXIMUM, u8(kShape, 0.05f, 128), u8(kBroadcast, 0.05f, 128), u8(kShape, 0.05f, 128));
}
REAL_TFLITE_TEST(MaximumInt8) {
    REQUIRE();
    binary(fb::BuiltinOperator_MAXIMUM, i8(kShape, 0.05f, 0), i8(kBroadcast, 0.05f, 0), i8(kShape, 0.05f, 0));
}
REAL_TFLITE_TEST(MaximumInt32) { REQUIRE(); binary(fb::BuiltinOperator_MAXIMUM, i32(kShape), i32(kBroadcast), i32(kShape)); }
REAL_TFLITE_TEST(MinimumFloat) { REQUIRE(); binary(fb::BuiltinOperator_MINIMUM, f32(kShape), f32(kBroadcast), f32(kShape)); }
REAL_TFLITE_TEST(MinimumUint8) {
    REQUIRE();
    binary(fb::BuiltinOperator_MINIMUM, u8(kShape, 0.05f, 128), u8(kBroadcast, 0.05f, 128), u8(kShape, 0.05f, 128));
}
REAL_TFLITE_TEST(MinimumInt8) {
    REQUIRE();
    binary(fb::BuiltinOperator_MINIMUM, i8(kShape, 0.05f, 0), i8(kBroadcast, 0.05f, 0), i8(kShape, 0.05f, 0));
}
REAL_TFLITE_TEST(MinimumInt32) { REQUIRE(); binary(fb::BuiltinOperator_MINIMUM, i32(kShape), i32(kBroadcast), i32(kShape)); }
REAL_TFLITE_TEST(SquaredDifferenceInt8) {
    REQUIRE();
    binary(fb::BuiltinOperator_SQUARED_DIFFERENCE, i8(kShape, 0.05f, 0), i8(kBroadcast, 0.04f, 5), i8(kShape, 0.2f, -128));
}
REAL_TFLITE_TEST(SquaredDifferenceInt32) {
    REQUIRE();
    binary(fb::BuiltinOperator_SQUARED_DIFFERENCE, i32(kShape), i32(kBroadcast), i32(kShape));
}
REAL_TFLITE_TEST(FloorDivFloat) {
    REQUIRE();
    binary(fb::BuiltinOperator_FLOOR_DIV, f32(kShape, -20, 20), f32(kBroadcast, 0.7, 3), f32(kShape));
}
REAL_TFLITE_TEST(FloorModInt32) {
    REQUIRE();
    binary(fb::BuiltinOperator_FLOOR_MOD, i32(kShape), constantOf<int32_t>(kBroadcast, fb::TensorType_INT32,
                                                                           {3, -4, 5, -6, 7, 2, -3, 4, -5, 6, 9, -2, 11, -7, 13}),
           i32(kShape));
}
REAL_TFLITE_TEST(FloorModFloat) {
    REQUIRE();
    binary(fb::BuiltinOperator_FLOOR_MOD, f32(kShape, -20, 20), f32(kBroadcast, 0.7, 3), f32(kShape));
}

// ---- comparisons (bool outputs)
void comparisons(const Spec& a, const Spec& b) {
    for (const fb::BuiltinOperator code :
         {fb::BuiltinOperator_LESS, fb::BuiltinOperator_LESS_EQUAL, fb::BuiltinOperator_GREATER,
          fb::BuiltinOperator_GREATER_EQUAL, fb::BuiltinOperator_EQUAL, fb::BuiltinOperator_NOT_EQUAL}) {
        SCOPED_TRACE(fb::EnumNameBuiltinOperator(code));
        binary(code, a, b, boolean(kShape));
    }
}
REAL_TFLITE_TEST(ComparisonsFloat) { REQUIRE(); comparisons(f32(kShape, -3, 3), f32(kBroadcast, -3, 3)); }
REAL_TFLITE_TEST(ComparisonsUint8) { REQUIRE(); comparisons(u8(kShape, 0.05f, 128), u8(kBroadcast, 0.07f, 100)); }
REAL_TFLITE_TEST(ComparisonsInt8) { REQUIRE(); comparisons(i8(kShape, 0.05f, 0), i8(kBroadcast, 0.07f, -30)); }
REAL_TFLITE_TEST(ComparisonsInt32) { REQUIRE(); comparisons(i32(kShape, -5, 5), i32(kBroadcast, -5, 5)); }

// ---- logical, SELECT
REAL_TFLITE_TEST(LogicalAndOrBool) {
    REQUIRE();
    binary(fb::BuiltinOperator_LOGICAL_AND, boolean(kShape), boolean(kBroadcast), boolean(kShape));
    binary(fb::BuiltinOperator_LOGICAL_OR, boolean(kShape), boolean(kBroadcast), boolean(kShape));
}
REAL_TFLITE_TEST(LogicalNotBool) { REQUIRE(); unary(fb::BuiltinOperator_LOGICAL_NOT, boolean(kShape), boolean(kShape)); }
REAL_TFLITE_TEST(SelectFloat) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SELECT, {boolean(kShape), f32(kShape), f32(kShape, -9, 0)}, {f32(kShape)});
}
REAL_TFLITE_TEST(SelectUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SELECT, {boolean(kShape), u8(kShape, 0.05f, 128), u8(kShape, 0.05f, 128)},
             {u8(kShape, 0.05f, 128)});
}
REAL_TFLITE_TEST(SelectV2Int8Broadcast) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SELECT_V2, {boolean(kBroadcast), i8(kShape, 0.05f, 0), i8(kShape, 0.05f, 0)},
             {i8(kShape, 0.05f, 0)});
}
REAL_TFLITE_TEST(SelectV2Int32) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SELECT_V2, {boolean(kShape), i32(kShape), i32(kBroadcast)}, {i32(kShape)});
}

}  // namespace
}  // namespace nnemu::tflite::test
