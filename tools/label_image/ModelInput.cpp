#include "ModelInput.h"

#include <cstring>

#include "ImageResize.h"

namespace nnemu::labelimage {

std::vector<uint8_t> makeModelInput(const Image& image, int height, int width, int channels, InputType type,
                                    float mean, float stddev) {
    const Image converted = convertChannels(image, channels);
    std::vector<uint8_t> bytes;
    if (type == InputType::FLOAT32) {
        const std::vector<float> values = resizeBilinear(converted, height, width);
        bytes.resize(values.size() * sizeof(float));
        for (size_t i = 0; i < values.size(); ++i) {
            const float normalized = (values[i] - mean) / stddev;
            std::memcpy(bytes.data() + i * sizeof(float), &normalized, sizeof(float));
        }
        return bytes;
    }
    const Image resized = resizeBilinearToBytes(converted, height, width);
    bytes = resized.pixels;
    if (type == InputType::INT8) {
        for (uint8_t& b : bytes) b = static_cast<uint8_t>(static_cast<int8_t>(static_cast<int>(b) - 128));
    }
    return bytes;
}

}  // namespace nnemu::labelimage
