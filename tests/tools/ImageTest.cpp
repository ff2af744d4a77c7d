// label_image's picture path: BMP decoding (all layouts, malformed files), bilinear half-pixel
// resizing, and the shared image oracles (rgb6X4 decode, checker resizes, Coral's preprocessed cats).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "BmpDecoder.h"
#include "ImageFile.h"
#include "ImageResize.h"
#include "ModelInput.h"

namespace nnemu::labelimage {
namespace {

const std::string kModelsDir = std::string(NNEMU_SHARED_DIR) + "/models";

#define SKIP_WITHOUT_SHARED()                                                                  \
    if (!std::filesystem::is_directory(kModelsDir)) {                                          \
        GTEST_SKIP() << "shared models folder not found at " << kModelsDir << " (NNEMU_SHARED_DIR)"; \
    }

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
    b[at] = static_cast<uint8_t>(v);
    b[at + 1] = static_cast<uint8_t>(v >> 8);
}

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

// A BMP with a 40-byte info header. pixel(x, y) gives the RGB (or grey) value of row y from the top.
std::vector<uint8_t> makeBmp(int width, int height, int bits, bool topDown, const std::vector<uint8_t>& rgbTopDown,
                             int channels) {
    const size_t paletteBytes = bits == 8 ? 256 * 4 : 0;
    const size_t rowBytes = ((static_cast<size_t>(bits) * static_cast<size_t>(width) + 31) / 32) * 4;
    const size_t offset = 14 + 40 + paletteBytes;
    std::vector<uint8_t> b(offset + rowBytes * static_cast<size_t>(height), 0xEE);   // 0xEE: row padding
    b[0] = 'B';
    b[1] = 'M';
    put32(b, 2, static_cast<uint32_t>(b.size()));
    put32(b, 10, static_cast<uint32_t>(offset));
    put32(b, 14, 40);
    put32(b, 18, static_cast<uint32_t>(width));
    put32(b, 22, static_cast<uint32_t>(topDown ? -height : height));
    put16(b, 26, 1);
    put16(b, 28, static_cast<uint16_t>(bits));
    put32(b, 30, 0);
    put32(b, 46, bits == 8 ? 256 : 0);
    for (size_t i = 0; i < paletteBytes / 4; ++i) {
        b[54 + i * 4] = b[54 + i * 4 + 1] = b[54 + i * 4 + 2] = static_cast<uint8_t>(i);
        b[54 + i * 4 + 3] = 0;
    }
    for (int y = 0; y < height; ++y) {
        const int fileRow = topDown ? y : height - 1 - y;
        uint8_t* row = b.data() + offset + static_cast<size_t>(fileRow) * rowBytes;
        for (int x = 0; x < width; ++x) {
            const uint8_t* px = rgbTopDown.data() + (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * static_cast<size_t>(channels);
            if (bits == 8) {
                row[x] = px[0];
            } else {
                uint8_t* out = row + static_cast<size_t>(x) * static_cast<size_t>(bits / 8);
                out[0] = px[2];
                out[1] = px[1];
                out[2] = px[0];
                if (bits == 32) out[3] = 0x7F;
            }
        }
    }
    return b;
}

std::vector<uint8_t> sampleRgb(int width, int height) {
    std::vector<uint8_t> rgb;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) rgb.insert(rgb.end(), {static_cast<uint8_t>(x * 40), static_cast<uint8_t>(y * 50), static_cast<uint8_t>(x + y)});
    return rgb;
}

std::vector<uint8_t> readFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

TEST(BmpDecoder, DecodesEveryLayout) {
    const int width = 5, height = 3;   // 5 pixels: rows need padding at 24 bits
    const std::vector<uint8_t> rgb = sampleRgb(width, height);
    for (int bits : {24, 32}) {
        for (bool topDown : {false, true}) {
            Image image;
            ASSERT_EQ(decodeBmp(makeBmp(width, height, bits, topDown, rgb, 3), &image), nnemu::StatusCode::OK);
            EXPECT_EQ(image.width, width);
            EXPECT_EQ(image.height, height);
            EXPECT_EQ(image.channels, 3);
            EXPECT_EQ(image.pixels, rgb) << bits << " bits, topDown " << topDown;
        }
    }
}

TEST(BmpDecoder, EightBitGreyIsReadAsRawValues) {
    const int width = 6, height = 2;
    std::vector<uint8_t> grey;
    for (int i = 0; i < width * height; ++i) grey.push_back(static_cast<uint8_t>(i * 21));
    for (bool topDown : {false, true}) {
        Image image;
        ASSERT_EQ(decodeBmp(makeBmp(width, height, 8, topDown, grey, 1), &image), nnemu::StatusCode::OK);
        EXPECT_EQ(image.channels, 1);
        EXPECT_EQ(image.pixels, grey);
    }
}

TEST(BmpDecoder, EightBitColourPaletteIsApplied) {
    std::vector<uint8_t> file = makeBmp(2, 1, 8, false, {0, 1}, 1);
    // Entry 1 becomes pure red (stored B, G, R, 0).
    file[54 + 4] = 0;
    file[54 + 5] = 0;
    file[54 + 6] = 255;
    Image image;
    ASSERT_EQ(decodeBmp(file, &image), nnemu::StatusCode::OK);
    EXPECT_EQ(image.channels, 3);
    EXPECT_EQ(image.pixels, (std::vector<uint8_t>{0, 0, 0, 255, 0, 0}));
}

TEST(BmpDecoder, RejectsMalformedFiles) {
    const std::vector<uint8_t> good = makeBmp(4, 4, 24, false, sampleRgb(4, 4), 3);
    const auto expectError = [](std::vector<uint8_t> bytes, const std::string& what) {
        Image image;
        std::string error = decodeBmp(bytes, &image).message();
        EXPECT_FALSE(error.empty()) << what;
        EXPECT_EQ(error.rfind("BMP: ", 0), 0u) << what << ": " << error;
    };
    expectError({}, "empty");
    expectError({'B', 'M', 0, 0}, "header only");
    expectError(std::vector<uint8_t>(good.begin(), good.end() - 10), "truncated pixels");
    std::vector<uint8_t> bad = good;
    put32(bad, 18, 0);
    expectError(bad, "zero width");
    bad = good;
    put32(bad, 18, 1u << 30);
    expectError(bad, "huge width");
    bad = good;
    put16(bad, 28, 16);
    expectError(bad, "16-bit");
    bad = good;
    put32(bad, 30, 1);
    expectError(bad, "RLE compressed");
    bad = good;
    put32(bad, 14, 20);
    expectError(bad, "odd header size");
    bad = good;
    put32(bad, 10, 0xFFFFFF00u);
    expectError(bad, "data offset past the end");
    bad = good;
    bad[0] = 'P';
    expectError(bad, "no signature");
}

TEST(ImageFile, MissingAndUndecodableFilesFailCleanly) {
    Image image;
    std::string error = loadImageFile("/nonexistent/picture.bmp", &image).message();
    EXPECT_FALSE(error.empty());
    EXPECT_NE(error.find("/nonexistent/picture.bmp"), std::string::npos);
    const std::string path = testing::TempDir() + "/not_an_image.png";
    std::ofstream(path) << "this is not a picture";
    error = loadImageFile(path, &image).message();
    EXPECT_FALSE(error.empty());
    EXPECT_NE(error.find("cannot decode image"), std::string::npos) << error;
}

TEST(ImageResize, IdentitySizeKeepsPixels) {
    Image image;
    image.width = 5;
    image.height = 3;
    image.channels = 3;
    image.pixels = sampleRgb(5, 3);
    EXPECT_EQ(resizeBilinearToBytes(image, 3, 5).pixels, image.pixels);
}

TEST(ImageResize, TflitesLabelImageSampling) {
    // 1x2 -> 1x4 as TFLite's label_image resizes (no half-pixel centres): samples at x = 0, 0.5,
    // 1 and 1.5 (clamped to the last column) of {0, 100}.
    Image image;
    image.width = 2;
    image.height = 1;
    image.channels = 1;
    image.pixels = {0, 100};
    const std::vector<float> values = resizeBilinear(image, 1, 4);
    ASSERT_EQ(values.size(), 4u);
    EXPECT_EQ(values[0], 0.0f);
    EXPECT_EQ(values[1], 50.0f);
    EXPECT_EQ(values[2], 100.0f);
    EXPECT_EQ(values[3], 100.0f);
}

TEST(ImageResize, ChannelConversion) {
    Image rgb;
    rgb.width = 1;
    rgb.height = 1;
    rgb.channels = 3;
    rgb.pixels = {10, 20, 31};
    EXPECT_EQ(convertChannels(rgb, 1).pixels, std::vector<uint8_t>{20});
    Image grey;
    grey.width = 1;
    grey.height = 1;
    grey.channels = 1;
    grey.pixels = {7};
    EXPECT_EQ(convertChannels(grey, 3).pixels, (std::vector<uint8_t>{7, 7, 7}));
}

TEST(ModelInput, TypesAndNormalisation) {
    Image image;
    image.width = 1;
    image.height = 1;
    image.channels = 3;
    image.pixels = {0, 128, 255};
    EXPECT_EQ(makeModelInput(image, 1, 1, 3, InputType::UINT8, 127.5f, 127.5f), (std::vector<uint8_t>{0, 128, 255}));
    EXPECT_EQ(makeModelInput(image, 1, 1, 3, InputType::INT8, 127.5f, 127.5f), (std::vector<uint8_t>{0x80, 0x00, 0x7F}));
    const std::vector<uint8_t> floats = makeModelInput(image, 1, 1, 3, InputType::FLOAT32, 127.5f, 127.5f);
    ASSERT_EQ(floats.size(), 12u);
    float values[3];
    std::memcpy(values, floats.data(), sizeof values);
    EXPECT_FLOAT_EQ(values[0], -1.0f);
    EXPECT_NEAR(values[1], 0.00392157f, 1e-6);
    EXPECT_FLOAT_EQ(values[2], 1.0f);
}

// libcoral's ReadBMPImage oracle: 6 rows x 4 columns x RGB.
TEST(ImageOracles, Rgb6X4DecodesExactly) {
    SKIP_WITHOUT_SHARED();
    Image image;
    ASSERT_EQ(loadImageFile(kModelsDir + "/images/rgb6X4.bmp", &image), nnemu::StatusCode::OK);
    EXPECT_EQ(image.height, 6);
    EXPECT_EQ(image.width, 4);
    EXPECT_EQ(image.channels, 3);
    const std::vector<uint8_t> expected = {
        255, 0, 255, 255, 0, 255, 0, 255, 0, 0, 255, 0,          //
        255, 0, 255, 255, 0, 255, 0, 255, 0, 0, 255, 0,          //
        255, 0, 255, 255, 0, 255, 0, 255, 0, 0, 255, 0,          //
        0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255,          //
        0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255,          //
        0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255};
    EXPECT_EQ(image.pixels, expected);
}

// libcoral's resize oracles (checker800X600 resized, the preprocessed inputs/*.bin) sample with
// half-pixel centres; label_image resizes as TFLite's label_image instead (no half-pixel
// centres), checked bit for bit against real TFLite in tests/tflite/LabelImagePreprocessTest.cpp.
// The decoding part of those oracles stays.
TEST(ImageOracles, GreyBmpDecodesAsItsInputFile) {
    SKIP_WITHOUT_SHARED();
    // person.bmp: 8-bit grey, decoded bottom-up, is byte for byte the int8 input file.
    Image person;
    ASSERT_EQ(loadImageFile(kModelsDir + "/images/person.bmp", &person), nnemu::StatusCode::OK);
    EXPECT_EQ(person.channels, 1);
    EXPECT_EQ(person.pixels, readFile(kModelsDir + "/inputs/person_96x96x1_i8.bin"));
}

}  // namespace
}  // namespace nnemu::labelimage
