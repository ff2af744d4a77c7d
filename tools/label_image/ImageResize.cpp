#include "ImageResize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace nnemu::labelimage {
namespace {

// Where output coordinate `index` samples the input (TFLite's interpolation values without
// half-pixel centres): the position index * scale, its floor clamped at 0 and its ceiling
// clamped at the last index.
struct Sample {
    float position;
    int lower;
    int upper;
};

Sample samplePoint(int index, float scale, int inputSize) {
    const float position = static_cast<float>(index) * scale;
    Sample sample;
    sample.position = position;
    sample.lower = std::max(static_cast<int>(std::floor(position)), 0);
    sample.upper = std::min(static_cast<int>(std::ceil(position)), inputSize - 1);
    return sample;
}

}  // namespace

Image convertChannels(const Image& image, int channels) {
    if (image.channels == channels) return image;
    Image out;
    out.width = image.width;
    out.height = image.height;
    out.channels = channels;
    const size_t count = static_cast<size_t>(image.width) * static_cast<size_t>(image.height);
    out.pixels.resize(count * static_cast<size_t>(channels));
    for (size_t i = 0; i < count; ++i) {
        const uint8_t* in = image.pixels.data() + i * static_cast<size_t>(image.channels);
        uint8_t* px = out.pixels.data() + i * static_cast<size_t>(channels);
        if (channels == 1) {
            int sum = 0;
            for (int c = 0; c < image.channels; ++c) sum += in[c];
            px[0] = static_cast<uint8_t>(sum / image.channels);
        } else {
            for (int c = 0; c < channels; ++c) px[c] = in[image.channels == 1 ? 0 : std::min(c, image.channels - 1)];
        }
    }
    return out;
}

std::vector<float> resizeBilinear(const Image& image, int outHeight, int outWidth) {
    const int channels = image.channels;
    std::vector<float> out(static_cast<size_t>(outHeight) * static_cast<size_t>(outWidth) * static_cast<size_t>(channels));
    // float / int as TFLite computes the scales (align_corners=false).
    const float heightScale = static_cast<float>(image.height) / static_cast<float>(outHeight);
    const float widthScale = static_cast<float>(image.width) / static_cast<float>(outWidth);
    size_t at = 0;
    for (int y = 0; y < outHeight; ++y) {
        const Sample sy = samplePoint(y, heightScale, image.height);
        const float dy = sy.position - static_cast<float>(sy.lower);
        for (int x = 0; x < outWidth; ++x) {
            const Sample sx = samplePoint(x, widthScale, image.width);
            const float dx = sx.position - static_cast<float>(sx.lower);
            // The four corner weights, each a product of two factors in this order.
            const float weights[4] = {(1 - dy) * (1 - dx), (1 - dy) * dx, dy * (1 - dx), dy * dx};
            for (int c = 0; c < channels; ++c) {
                // Accumulated from zero corner by corner: top-left, top-right, bottom-left,
                // bottom-right, each product rounded before its sum (this file is compiled with
                // -ffp-contract=off: no fused multiply-add, as TFLite's kernel).
                float sum = 0.0f;
                sum += static_cast<float>(image.at(sy.lower, sx.lower, c)) * weights[0];
                sum += static_cast<float>(image.at(sy.lower, sx.upper, c)) * weights[1];
                sum += static_cast<float>(image.at(sy.upper, sx.lower, c)) * weights[2];
                sum += static_cast<float>(image.at(sy.upper, sx.upper, c)) * weights[3];
                out[at++] = sum;
            }
        }
    }
    return out;
}

Image resizeBilinearToBytes(const Image& image, int outHeight, int outWidth) {
    const std::vector<float> values = resizeBilinear(image, outHeight, outWidth);
    Image out;
    out.width = outWidth;
    out.height = outHeight;
    out.channels = image.channels;
    out.pixels.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        out.pixels[i] = static_cast<uint8_t>(std::clamp(values[i], 0.0f, 255.0f));   // truncation
    }
    return out;
}

}  // namespace nnemu::labelimage
