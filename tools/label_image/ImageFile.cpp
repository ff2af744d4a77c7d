#include "ImageFile.h"

#include <stb_image.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

#include "BmpDecoder.h"

namespace nnemu::labelimage {
namespace {

Result<std::vector<uint8_t>> readWholeFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return unavailable("cannot open image " + path + ": " + std::strerror(errno));
    std::vector<uint8_t> bytes(std::istreambuf_iterator<char>(file), {});
    if (file.bad()) return unavailable("cannot read image " + path);
    return bytes;
}

// Grey+alpha becomes grey and RGBA becomes RGB: the models take grey or RGB.
Status decodeWithStb(const std::vector<uint8_t>& bytes, Image* image) {
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return badData("image file too large");
    int width = 0, height = 0, channels = 0;
    stbi_uc* pixels = stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width, &height, &channels, 0);
    if (pixels == nullptr) {
        const char* reason = stbi_failure_reason();
        return badData(std::string("cannot decode image: ") + (reason ? reason : "unknown format"));
    }
    const int outChannels = channels <= 2 ? 1 : 3;
    image->width = width;
    image->height = height;
    image->channels = outChannels;
    const size_t count = static_cast<size_t>(width) * static_cast<size_t>(height);
    image->pixels.resize(count * static_cast<size_t>(outChannels));
    for (size_t i = 0; i < count; ++i) {
        for (int c = 0; c < outChannels; ++c) {
            image->pixels[i * static_cast<size_t>(outChannels) + static_cast<size_t>(c)] =
                pixels[i * static_cast<size_t>(channels) + static_cast<size_t>(c)];
        }
    }
    stbi_image_free(pixels);
    return {};
}

}  // namespace

Status loadImageFile(const std::string& path, Image* image) {
    NNEMU_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, readWholeFile(path));
    const Status decoded = isBmp(bytes) ? decodeBmp(bytes, image) : decodeWithStb(bytes, image);
    if (!decoded) return {decoded.code(), path + ": " + decoded.message()};
    return {};
}

}  // namespace nnemu::labelimage
