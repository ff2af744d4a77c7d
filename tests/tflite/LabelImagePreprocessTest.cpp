// label_image's preprocessing (tools/label_image) against real TFLite 2.21: TFLite's label_image
// resizes through a one-node TFLite graph (RESIZE_BILINEAR, align_corners=false,
// half_pixel_centers=false, float), so the same graph run by tflite_run gives TFLite's resized
// floats, which nnemu's resize must equal bit for bit; the model inputs are then derived from
// those floats by TFLite's conversions (uint8 and int8 truncate, float (v - mean) / std).
#include <cstring>

#include "ImageFile.h"
#include "ImageResize.h"
#include "ModelInput.h"
#include "RealTflite.h"

namespace nnemu::tflite::test {
namespace {

using labelimage::Image;

// TFLite's label_image resize graph for a picture of this size.
GraphBuilder resizeGraph(const Image& image, int height, int width) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, image.height, image.width, image.channels}, fb::TensorType_FLOAT32);
    const int32_t size = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{height, width}));
    const int32_t out = g.tensor({1, height, width, image.channels}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_RESIZE_BILINEAR, {in, size}, {out}, fb::BuiltinOptions_ResizeBilinearOptions,
         [](auto& b) { return fb::CreateResizeBilinearOptions(b, false, false).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

// TFLite's resized floats for the picture.
std::vector<float> tfliteResize(const Image& image, int height, int width) {
    std::vector<float> pixels(image.pixels.begin(), image.pixels.end());
    const RealTfliteResult real = runRealTflite(resizeGraph(image, height, width).buildBytes(), {GraphBuilder::bytes(pixels)});
    EXPECT_TRUE(real.ok) << real.log;
    if (!real.ok || real.outputs.size() != 1) return {};
    return valuesOf<float>(real.outputs[0].data(), real.outputs[0].size() / sizeof(float));
}

void expectBitwiseEqual(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && differing++ == 0) first = i;
    }
    EXPECT_EQ(differing, 0u) << what << ": first at " << first << ": " << got[first] << " vs TFLite's " << want[first];
}

// A picture whose values change at every pixel and channel (no flat areas hiding weights).
Image syntheticImage(int height, int width, int channels) {
    Image image;
    image.height = height;
    image.width = width;
    image.channels = channels;
    image.pixels.resize(static_cast<size_t>(height * width * channels));
    for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<uint8_t>((i * 37 + i / 7) % 256);
    return image;
}

// Down and up, odd ratios, exact 2x (TFLite's own 2x2 path), one row or column, grey and RGB.
TEST(LabelImagePreprocess, ResizeIsTflitesBitForBit) {
    NNEMU_REQUIRE_REAL_TFLITE();
    struct Case {
        int inHeight, inWidth, channels, outHeight, outWidth;
    };
    const Case cases[] = {{37, 53, 3, 16, 16}, {17, 11, 3, 40, 29}, {8, 6, 3, 16, 12}, {1, 9, 1, 5, 20},
                          {13, 13, 1, 13, 13}, {99, 70, 3, 31, 47}};
    for (const Case& c : cases) {
        const Image image = syntheticImage(c.inHeight, c.inWidth, c.channels);
        const std::string what = std::to_string(c.inHeight) + "x" + std::to_string(c.inWidth) + "x" +
                                 std::to_string(c.channels) + " -> " + std::to_string(c.outHeight) + "x" +
                                 std::to_string(c.outWidth);
        expectBitwiseEqual(labelimage::resizeBilinear(image, c.outHeight, c.outWidth),
                           tfliteResize(image, c.outHeight, c.outWidth), what);
    }
}

// The shared pictures at the shared models' input sizes.
TEST(LabelImagePreprocess, SharedPicturesResizeAsTflite) {
    NNEMU_REQUIRE_REAL_TFLITE();
    NNEMU_REQUIRE_SHARED_MODELS();
    for (const std::string name : {"cat", "bird"}) {
        Image image;
        ASSERT_EQ(labelimage::loadImageFile(modelsDir() + "/images/" + name + ".bmp", &image), nnemu::StatusCode::OK);
        for (int size : {128, 160, 224}) {
            expectBitwiseEqual(labelimage::resizeBilinear(image, size, size), tfliteResize(image, size, size),
                               name + " at " + std::to_string(size));
        }
    }
}

// uint8 and int8 inputs from TFLite's floats: truncation toward zero of v and of v - 128 (the
// int8 one differs from "uint8 then - 128" wherever v has a fraction); float: (v - mean) / std.
TEST(LabelImagePreprocess, InputTypesFromTflitesFloats) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const Image image = syntheticImage(17, 11, 3);
    const std::vector<float> resized = tfliteResize(image, 40, 29);
    ASSERT_EQ(resized.size(), 40u * 29u * 3u);
    std::vector<uint8_t> wantU8, wantI8;
    std::vector<float> wantF32;
    size_t fractional = 0;
    for (float v : resized) {
        wantU8.push_back(static_cast<uint8_t>(v));
        wantI8.push_back(static_cast<uint8_t>(static_cast<int8_t>(v - 128)));
        wantF32.push_back((v - 127.5f) / 127.5f);
        if (static_cast<uint8_t>(static_cast<int8_t>(v - 128)) != static_cast<uint8_t>(static_cast<uint8_t>(v) - 128)) {
            ++fractional;
        }
    }
    EXPECT_GT(fractional, 0u);   // the case tells the two int8 conversions apart
    using labelimage::InputType;
    EXPECT_EQ(labelimage::makeModelInput(image, 40, 29, 3, InputType::UINT8, 127.5f, 127.5f), wantU8);
    EXPECT_EQ(labelimage::makeModelInput(image, 40, 29, 3, InputType::INT8, 127.5f, 127.5f), wantI8);
    EXPECT_EQ(labelimage::makeModelInput(image, 40, 29, 3, InputType::FLOAT32, 127.5f, 127.5f), GraphBuilder::bytes(wantF32));
}

}  // namespace
}  // namespace nnemu::tflite::test
