// A decoded picture: rows top to bottom, pixels interleaved (1 channel grey or 3 channels RGB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnemu::labelimage {

struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::vector<uint8_t> pixels;   // height * width * channels bytes

    uint8_t at(int y, int x, int c) const {
        return pixels[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) *
                          static_cast<size_t>(channels) + static_cast<size_t>(c)];
    }
};

}  // namespace nnemu::labelimage
