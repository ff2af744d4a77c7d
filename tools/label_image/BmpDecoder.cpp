#include "BmpDecoder.h"

#include <algorithm>
#include <cstring>

namespace nnemu::labelimage {
namespace {

constexpr size_t kFileHeaderSize = 14;
constexpr uint32_t kCompressionNone = 0;        // BI_RGB
constexpr uint32_t kCompressionBitfields = 3;   // BI_BITFIELDS (only the plain BGRA masks)
constexpr int64_t kMaxDimension = 1 << 15;

uint16_t readU16(const std::vector<uint8_t>& b, size_t at) {
    return static_cast<uint16_t>(b[at] | (b[at + 1] << 8));
}

uint32_t readU32(const std::vector<uint8_t>& b, size_t at) {
    return static_cast<uint32_t>(b[at]) | (static_cast<uint32_t>(b[at + 1]) << 8) |
           (static_cast<uint32_t>(b[at + 2]) << 16) | (static_cast<uint32_t>(b[at + 3]) << 24);
}

int32_t readI32(const std::vector<uint8_t>& b, size_t at) {
    const uint32_t value = readU32(b, at);
    int32_t result;
    std::memcpy(&result, &value, sizeof result);
    return result;
}

Status fail(const std::string& message) { return badData("BMP: " + message); }

}  // namespace

bool isBmp(const std::vector<uint8_t>& bytes) { return bytes.size() >= 2 && bytes[0] == 'B' && bytes[1] == 'M'; }

Status decodeBmp(const std::vector<uint8_t>& bytes, Image* image) {
    if (!isBmp(bytes)) return fail("not a BMP file (no 'BM' signature)");
    if (bytes.size() < kFileHeaderSize + 12) return fail("file too short for its headers");
    const uint32_t dataOffset = readU32(bytes, 10);
    const uint32_t infoSize = readU32(bytes, 14);
    if (infoSize != 12 && infoSize < 40) return fail("unsupported header size " + std::to_string(infoSize));
    if (bytes.size() < kFileHeaderSize + infoSize) return fail("file too short for its headers");

    int64_t width = 0, height = 0;
    uint16_t bitsPerPixel = 0;
    uint32_t compression = kCompressionNone;
    uint32_t paletteEntries = 0;
    size_t paletteEntrySize = 4;
    if (infoSize == 12) {   // BITMAPCOREHEADER
        width = readU16(bytes, 18);
        height = static_cast<int16_t>(readU16(bytes, 20));
        bitsPerPixel = readU16(bytes, 24);
        paletteEntrySize = 3;
    } else {
        width = readI32(bytes, 18);
        height = readI32(bytes, 22);
        bitsPerPixel = readU16(bytes, 28);
        compression = readU32(bytes, 30);
        paletteEntries = readU32(bytes, 46);
    }
    const bool topDown = height < 0;
    if (topDown) height = -height;
    if (width <= 0 || height <= 0 || width > kMaxDimension || height > kMaxDimension) {
        return fail("bad dimensions " + std::to_string(width) + "x" + std::to_string(height));
    }
    if (bitsPerPixel != 8 && bitsPerPixel != 24 && bitsPerPixel != 32) {
        return fail(std::to_string(bitsPerPixel) + "-bit pixels are not supported (8, 24 or 32)");
    }
    if (compression == kCompressionBitfields && bitsPerPixel == 32 && infoSize >= 52) {
        // Only the usual B,G,R byte order is accepted.
        if (readU32(bytes, 54) != 0x00FF0000u || readU32(bytes, 58) != 0x0000FF00u || readU32(bytes, 62) != 0x000000FFu) {
            return fail("32-bit BI_BITFIELDS with non-BGRA channel masks is not supported");
        }
    } else if (compression != kCompressionNone) {
        return fail("compressed BMP (compression " + std::to_string(compression) + ") is not supported");
    }

    // 8-bit: decide between raw grey and an applied palette.
    std::vector<uint8_t> palette;   // RGB triples
    bool greyPalette = true;
    if (bitsPerPixel == 8) {
        if (paletteEntries == 0 || paletteEntries > 256) paletteEntries = 256;
        const size_t paletteStart = kFileHeaderSize + infoSize;
        const size_t available = dataOffset > paletteStart ? (dataOffset - paletteStart) / paletteEntrySize : 0;
        const size_t entries = std::min<size_t>(paletteEntries, available);
        if (paletteStart + entries * paletteEntrySize > bytes.size()) return fail("palette extends past the end of the file");
        for (size_t i = 0; i < entries; ++i) {
            const size_t at = paletteStart + i * paletteEntrySize;
            const uint8_t b = bytes[at], g = bytes[at + 1], r = bytes[at + 2];
            palette.insert(palette.end(), {r, g, b});
            if (r != i || g != i || b != i) greyPalette = false;
        }
    }

    const uint64_t rowBytes = ((static_cast<uint64_t>(bitsPerPixel) * static_cast<uint64_t>(width) + 31) / 32) * 4;
    const uint64_t needed = static_cast<uint64_t>(dataOffset) + rowBytes * static_cast<uint64_t>(height);
    if (dataOffset < kFileHeaderSize + infoSize || needed > bytes.size()) {
        return fail("pixel data extends past the end of the file (" + std::to_string(bytes.size()) +
                               " bytes, " + std::to_string(needed) + " needed)");
    }

    const int outChannels = bitsPerPixel == 8 && greyPalette ? 1 : 3;
    image->width = static_cast<int>(width);
    image->height = static_cast<int>(height);
    image->channels = outChannels;
    image->pixels.assign(static_cast<size_t>(width * height * outChannels), 0);
    const size_t bytesPerPixel = bitsPerPixel / 8;
    for (int64_t row = 0; row < height; ++row) {
        const int64_t fileRow = topDown ? row : height - 1 - row;
        const uint8_t* src = bytes.data() + dataOffset + static_cast<size_t>(fileRow) * rowBytes;
        uint8_t* dst = image->pixels.data() + static_cast<size_t>(row * width * outChannels);
        for (int64_t x = 0; x < width; ++x) {
            const uint8_t* pixel = src + static_cast<size_t>(x) * bytesPerPixel;
            if (bitsPerPixel == 8) {
                if (outChannels == 1) {
                    dst[x] = pixel[0];
                } else {
                    const size_t entry = static_cast<size_t>(pixel[0]) * 3;
                    if (entry + 2 < palette.size()) {
                        dst[x * 3 + 0] = palette[entry];
                        dst[x * 3 + 1] = palette[entry + 1];
                        dst[x * 3 + 2] = palette[entry + 2];
                    }
                }
            } else {
                dst[x * 3 + 0] = pixel[2];   // stored B, G, R
                dst[x * 3 + 1] = pixel[1];
                dst[x * 3 + 2] = pixel[0];
            }
        }
    }
    return {};
}

}  // namespace nnemu::labelimage
