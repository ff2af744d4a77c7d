#include "ModelInput.h"

#include <algorithm>
#include <cstring>

#include "ImageResize.h"

namespace nnemu::labelimage {

std::vector<uint8_t> makeModelInput(const Image& image, int height, int width, int channels, InputType type,
                                    float mean, float stddev) {
    const Image converted = convertChannels(image, channels);
    const std::vector<float> values = resizeBilinear(converted, height, width);
    std::vector<uint8_t> bytes;
    switch (type) {
        case InputType::FLOAT32:
            bytes.resize(values.size() * sizeof(float));
            for (size_t i = 0; i < values.size(); ++i) {
                const float normalized = (values[i] - mean) / stddev;
                std::memcpy(bytes.data() + i * sizeof(float), &normalized, sizeof(float));
            }
            break;
        case InputType::UINT8:
            bytes.resize(values.size());
            for (size_t i = 0; i < values.size(); ++i) bytes[i] = static_cast<uint8_t>(std::clamp(values[i], 0.0f, 255.0f));
            break;
        case InputType::INT8:
            // v - 128 truncated toward zero: 100.5 gives -27, not (uint8_t)100.5 - 128 = -28.
            bytes.resize(values.size());
            for (size_t i = 0; i < values.size(); ++i) {
                const float shifted = std::clamp(values[i], 0.0f, 255.0f) - 128.0f;
                bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(shifted));
            }
            break;
    }
    return bytes;
}

}  // namespace nnemu::labelimage
