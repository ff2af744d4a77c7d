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

bool readWholeFile(const std::string& path, std::vector<uint8_t>* bytes, std::string* error) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        *error = "cannot open image " + path + ": " + std::strerror(errno);
        return false;
    }
    bytes->assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (file.bad()) {
        *error = "cannot read image " + path;
        return false;
    }
    return true;
}

// Grey+alpha becomes grey and RGBA becomes RGB: the models take grey or RGB.
bool decodeWithStb(const std::vector<uint8_t>& bytes, Image* image, std::string* error) {
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
        *error = "image file too large";
        return false;
    }
    int width = 0, height = 0, channels = 0;
    stbi_uc* pixels = stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width, &height, &channels, 0);
    if (pixels == nullptr) {
        const char* reason = stbi_failure_reason();
        *error = std::string("cannot decode image: ") + (reason ? reason : "unknown format");
        return false;
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
    return true;
}

}  // namespace

bool loadImageFile(const std::string& path, Image* image, std::string* error) {
    std::vector<uint8_t> bytes;
    if (!readWholeFile(path, &bytes, error)) return false;
    if (isBmp(bytes)) {
        if (decodeBmp(bytes, image, error)) return true;
        *error = path + ": " + *error;
        return false;
    }
    if (decodeWithStb(bytes, image, error)) return true;
    *error = path + ": " + *error;
    return false;
}

}  // namespace nnemu::labelimage
