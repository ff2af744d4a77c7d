// Differential tests against real TensorFlow Lite 2.21: builtins that move or select data
// (reshapes, transposes, concatenation and splits, padding, slicing, gathering, depth/space,
// resizing) and type conversions. One test per builtin and type (RealTfliteOps.h).
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteShape, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

Spec ints(std::vector<int32_t> values) {
    const int32_t n = static_cast<int32_t>(values.size());
    return constantOf<int32_t>({n}, fb::TensorType_INT32, values);
}

// The same data movement in float32, uint8, int8 (and int32): `make(type spec)` gives the specs.
template <typename Make>
void eachType(Make make, bool withInt32 = true) {
    {
        SCOPED_TRACE("float32");
        make([](std::vector<int32_t> s) { return f32(std::move(s)); });
    }
    {
        SCOPED_TRACE("uint8");
        make([](std::vector<int32_t> s) { return u8(std::move(s), 0.05f, 128); });
    }
    {
        SCOPED_TRACE("int8");
        make([](std::vector<int32_t> s) { return i8(std::move(s), 0.05f, -3); });
    }
    if (withInt32) {
        SCOPED_TRACE("int32");
        make([](std::vector<int32_t> s) { return i32(std::move(s)); });
    }
}
using SpecOf = std::function<Spec(std::vector<int32_t>)>;

REAL_TFLITE_TEST(ReshapeAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_RESHAPE, {t({2, 3, 4}), ints({4, -1})}, {t({4, 6})});
    });
}
REAL_TFLITE_TEST(SqueezeAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_SQUEEZE, {t({1, 3, 1, 4})}, {t({3, 1, 4})}, fb::BuiltinOptions_SqueezeOptions,
                 [](auto& b) {
                     const std::vector<int32_t> dims = {0};
                     return fb::CreateSqueezeOptionsDirect(b, &dims).Union();
                 });
    });
}
REAL_TFLITE_TEST(ExpandDimsAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) { expectOp(fb::BuiltinOperator_EXPAND_DIMS, {t({3, 4}), ints({1})}, {t({3, 1, 4})}); });
}
REAL_TFLITE_TEST(TransposeAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_TRANSPOSE, {t({2, 3, 4, 5}), ints({0, 3, 1, 2})}, {t({2, 5, 3, 4})});
    });
}
REAL_TFLITE_TEST(ConcatenationAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_CONCATENATION, {t({2, 3, 4}), t({2, 2, 4}), t({2, 1, 4})}, {t({2, 6, 4})},
                 fb::BuiltinOptions_ConcatenationOptions, [](auto& b) { return fb::CreateConcatenationOptions(b, 1).Union(); });
    });
}
REAL_TFLITE_TEST(ConcatenationUint8Rescaled) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_CONCATENATION, {u8({2, 3}, 0.05f, 128), u8({2, 4}, 0.02f, 10)}, {u8({2, 7}, 0.07f, 100)},
             fb::BuiltinOptions_ConcatenationOptions, [](auto& b) { return fb::CreateConcatenationOptions(b, -1).Union(); });
}
REAL_TFLITE_TEST(SplitAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_SPLIT, {constantOf<int32_t>({}, fb::TensorType_INT32, {2}), t({2, 3, 6})},
                 {t({2, 3, 2}), t({2, 3, 2}), t({2, 3, 2})}, fb::BuiltinOptions_SplitOptions,
                 [](auto& b) { return fb::CreateSplitOptions(b, 3).Union(); });
    });
}
REAL_TFLITE_TEST(UnpackAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_UNPACK, {t({2, 3, 4})}, {t({2, 4}), t({2, 4}), t({2, 4})}, fb::BuiltinOptions_UnpackOptions,
                 [](auto& b) { return fb::CreateUnpackOptions(b, 3, 1).Union(); });
    });
}
REAL_TFLITE_TEST(PadAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_PAD,
                 {t({1, 3, 4, 2}), constantOf<int32_t>({4, 2}, fb::TensorType_INT32, {0, 0, 1, 2, 2, 0, 0, 1})},
                 {t({1, 6, 6, 3})});
    });
}
REAL_TFLITE_TEST(PadV2Float) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_PADV2,
             {f32({1, 3, 4, 2}), constantOf<int32_t>({4, 2}, fb::TensorType_INT32, {0, 0, 1, 2, 2, 0, 0, 1}),
              constantOf<float>({}, fb::TensorType_FLOAT32, {-7.5f})},
             {f32({1, 6, 6, 3})});
}
REAL_TFLITE_TEST(PadV2Uint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_PADV2,
             {u8({1, 3, 4, 2}, 0.05f, 128), constantOf<int32_t>({4, 2}, fb::TensorType_INT32, {0, 0, 1, 2, 2, 0, 0, 1}),
              constant(u8({}, 0.05f, 128), {37})},
             {u8({1, 6, 6, 3}, 0.05f, 128)});
}
REAL_TFLITE_TEST(SliceAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_SLICE, {t({3, 4, 5}), ints({1, 0, 2}), ints({2, -1, 2})}, {t({2, 4, 2})});
    });
}
GraphBuilder::Options stridedSlice(int beginMask, int endMask, int shrinkMask) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateStridedSliceOptions(b, beginMask, endMask, 0, 0, shrinkMask).Union();
    };
}
REAL_TFLITE_TEST(StridedSliceAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_STRIDED_SLICE, {t({4, 6, 5}), ints({1, -1, 0}), ints({4, 0, 5}), ints({2, -2, 1})},
                 {t({2, 3, 5})}, fb::BuiltinOptions_StridedSliceOptions, stridedSlice(0, 4, 0));
    });
}
REAL_TFLITE_TEST(StridedSliceFloatShrink) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_STRIDED_SLICE, {f32({4, 6, 5}), ints({2, 0, 1}), ints({3, 6, 5}), ints({1, 2, 2})},
             {f32({3, 2})}, fb::BuiltinOptions_StridedSliceOptions, stridedSlice(0, 0, 1));
}
REAL_TFLITE_TEST(TileAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) { expectOp(fb::BuiltinOperator_TILE, {t({2, 3}), ints({2, 3})}, {t({4, 9})}); });
}
REAL_TFLITE_TEST(GatherAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_GATHER, {t({4, 3, 2}), i32({5}, 0, 2)}, {t({4, 5, 2})}, fb::BuiltinOptions_GatherOptions,
                 [](auto& b) { return fb::CreateGatherOptions(b, 1).Union(); });
    });
}
REAL_TFLITE_TEST(GatherNdAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_GATHER_ND,
                 {t({3, 4, 2}), constantOf<int32_t>({5, 2}, fb::TensorType_INT32, {0, 1, 2, 3, 1, 0, 2, 2, 0, 3})},
                 {t({5, 2})});
    });
}
REAL_TFLITE_TEST(DepthToSpaceAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_DEPTH_TO_SPACE, {t({1, 2, 3, 8})}, {t({1, 4, 6, 2})}, fb::BuiltinOptions_DepthToSpaceOptions,
                 [](auto& b) { return fb::CreateDepthToSpaceOptions(b, 2).Union(); });
    }, false);
}
REAL_TFLITE_TEST(SpaceToDepthAllTypes) {
    REQUIRE();
    eachType([](SpecOf t) {
        expectOp(fb::BuiltinOperator_SPACE_TO_DEPTH, {t({1, 4, 6, 2})}, {t({1, 2, 3, 8})}, fb::BuiltinOptions_SpaceToDepthOptions,
                 [](auto& b) { return fb::CreateSpaceToDepthOptions(b, 2).Union(); });
    }, false);
}
REAL_TFLITE_TEST(ShapeInt32) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SHAPE, {f32({2, 3, 5})}, {i32({3})}, fb::BuiltinOptions_ShapeOptions,
             [](auto& b) { return fb::CreateShapeOptions(b, fb::TensorType_INT32).Union(); });
}

// ---- resizing
GraphBuilder::Options bilinear(bool alignCorners, bool halfPixel) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateResizeBilinearOptions(b, alignCorners, halfPixel).Union();
    };
}
GraphBuilder::Options nearest(bool alignCorners, bool halfPixel) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateResizeNearestNeighborOptions(b, alignCorners, halfPixel).Union();
    };
}
void resizes(const SpecOf& t) {
    for (const auto& [align, half] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
        SCOPED_TRACE(std::string("align_corners ") + (align ? "1" : "0") + " half_pixel_centers " + (half ? "1" : "0"));
        expectOp(fb::BuiltinOperator_RESIZE_BILINEAR, {t({1, 5, 7, 2}), ints({9, 4})}, {t({1, 9, 4, 2})},
                 fb::BuiltinOptions_ResizeBilinearOptions, bilinear(align, half));
        expectOp(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, {t({1, 5, 7, 2}), ints({9, 4})}, {t({1, 9, 4, 2})},
                 fb::BuiltinOptions_ResizeNearestNeighborOptions, nearest(align, half));
        // Channel counts that fill vector registers and leave a tail (DeepLab's 21 classes), two images.
        for (int32_t channels : {21, 37}) {
            expectOp(fb::BuiltinOperator_RESIZE_BILINEAR, {t({2, 6, 5, channels}), ints({13, 17})},
                     {t({2, 13, 17, channels})}, fb::BuiltinOptions_ResizeBilinearOptions, bilinear(align, half));
        }
    }
}
REAL_TFLITE_TEST(ResizeFloat) { REQUIRE(); resizes([](std::vector<int32_t> s) { return f32(std::move(s)); }); }
REAL_TFLITE_TEST(ResizeUint8) { REQUIRE(); resizes([](std::vector<int32_t> s) { return u8(std::move(s), 0.05f, 128); }); }
REAL_TFLITE_TEST(ResizeInt8) { REQUIRE(); resizes([](std::vector<int32_t> s) { return i8(std::move(s), 0.05f, -3); }); }

// ---- type conversions
REAL_TFLITE_TEST(CastFloatToInt32) { REQUIRE(); expectOp(fb::BuiltinOperator_CAST, {f32({4, 6}, -9, 9)}, {i32({4, 6})}); }
REAL_TFLITE_TEST(CastInt32ToFloat) { REQUIRE(); expectOp(fb::BuiltinOperator_CAST, {i32({4, 6}, -1000, 1000)}, {f32({4, 6})}); }
REAL_TFLITE_TEST(CastInt64ToInt32) { REQUIRE(); expectOp(fb::BuiltinOperator_CAST, {i64({4, 6})}, {i32({4, 6})}); }
REAL_TFLITE_TEST(CastUint8ToFloat) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_CAST, {{{4, 6}, fb::TensorType_UINT8}}, {f32({4, 6})});
}
REAL_TFLITE_TEST(CastBoolToFloat) { REQUIRE(); expectOp(fb::BuiltinOperator_CAST, {boolean({4, 6})}, {f32({4, 6})}); }
REAL_TFLITE_TEST(QuantizeFloatToUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_QUANTIZE, {f32({4, 6}, -8, 8)}, {u8({4, 6}, 0.05f, 128)});
}
REAL_TFLITE_TEST(QuantizeFloatToInt8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_QUANTIZE, {f32({4, 6}, -8, 8)}, {i8({4, 6}, 0.05f, -3)});
}
REAL_TFLITE_TEST(QuantizeUint8Requantize) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_QUANTIZE, {u8({4, 6}, 0.05f, 128)}, {u8({4, 6}, 0.03f, 100)});
}
REAL_TFLITE_TEST(DequantizeUint8) { REQUIRE(); expectOp(fb::BuiltinOperator_DEQUANTIZE, {u8({4, 6}, 0.05f, 128)}, {f32({4, 6})}); }
REAL_TFLITE_TEST(DequantizeInt8) { REQUIRE(); expectOp(fb::BuiltinOperator_DEQUANTIZE, {i8({4, 6}, 0.05f, -3)}, {f32({4, 6})}); }

}  // namespace
}  // namespace nnemu::tflite::test
