// label_image's other picture formats: PNG and JPEG through Debian's stb_image, reduced to grey
// or RGB. The files are written here with stb_image_write.
#include <gtest/gtest.h>

#include <stb_image_write.h>

#include <string>
#include <vector>

#include "ImageFile.h"

namespace nnemu::labelimage {
namespace {

std::string writePng(const std::string& name, int width, int height, int channels, const std::vector<uint8_t>& pixels) {
    const std::string path = testing::TempDir() + "/" + name;
    EXPECT_NE(stbi_write_png(path.c_str(), width, height, channels, pixels.data(), width * channels), 0);
    return path;
}

TEST(StbImage, RgbaPngBecomesRgb) {
    const std::vector<uint8_t> rgba = {255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 10, 20, 30, 40};
    Image image;
    ASSERT_EQ(loadImageFile(writePng("rgba.png", 2, 2, 4, rgba), &image), nnemu::StatusCode::OK);
    EXPECT_EQ(image.width, 2);
    EXPECT_EQ(image.height, 2);
    EXPECT_EQ(image.channels, 3);
    EXPECT_EQ(image.pixels, (std::vector<uint8_t>{255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30}));
}

TEST(StbImage, GreyAlphaPngBecomesGrey) {
    Image image;
    ASSERT_EQ(loadImageFile(writePng("ga.png", 3, 1, 2, {7, 255, 8, 0, 9, 100}), &image), nnemu::StatusCode::OK);
    EXPECT_EQ(image.channels, 1);
    EXPECT_EQ(image.pixels, (std::vector<uint8_t>{7, 8, 9}));
}

TEST(StbImage, Jpeg) {
    const int width = 16, height = 8;
    const std::vector<uint8_t> rgb(static_cast<size_t>(width * height * 3), 200);
    const std::string path = testing::TempDir() + "/flat.jpg";
    ASSERT_NE(stbi_write_jpg(path.c_str(), width, height, 3, rgb.data(), 95), 0);
    Image image;
    ASSERT_EQ(loadImageFile(path, &image), nnemu::StatusCode::OK);
    EXPECT_EQ(image.width, width);
    EXPECT_EQ(image.height, height);
    EXPECT_EQ(image.channels, 3);
    for (uint8_t v : image.pixels) EXPECT_NEAR(v, 200, 3);
}

TEST(StbImage, TruncatedPngFailsCleanly) {
    const std::string path = writePng("cut.png", 4, 4, 3, std::vector<uint8_t>(48, 1));
    std::vector<uint8_t> head(30);
    {
        FILE* file = std::fopen(path.c_str(), "rb");
        ASSERT_NE(file, nullptr);
        ASSERT_EQ(std::fread(head.data(), 1, head.size(), file), head.size());
        std::fclose(file);
        file = std::fopen(path.c_str(), "wb");
        std::fwrite(head.data(), 1, head.size(), file);
        std::fclose(file);
    }
    Image image;
    std::string error = loadImageFile(path, &image).message();
    EXPECT_FALSE(error.empty());
    EXPECT_NE(error.find("cannot decode image"), std::string::npos) << error;
}

}  // namespace
}  // namespace nnemu::labelimage
