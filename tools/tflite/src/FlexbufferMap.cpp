// FlexBuffers layout, as far as a map of scalars needs it: the buffer ends with the root slot,
// its packed type (type << 2 | log2 width) and the root slot's width. A map's slot holds a
// backward offset to its values; before the values sit the keys vector's offset and width and
// the element count; after them one packed type byte per value. Keys are offsets to C strings.
#include "FlexbufferMap.h"

#include <cstring>

namespace nnemu::tflite {
namespace {

// FlexBuffers type codes.
constexpr uint8_t kInt = 1, kUint = 2, kFloat = 3, kIndirectInt = 6, kIndirectUint = 7, kIndirectFloat = 8,
                  kMap = 9, kBool = 26;
constexpr uint64_t kMaxEntries = 1024;   // far above any custom operator's option count

bool validWidth(uint64_t width) { return width == 1 || width == 2 || width == 4 || width == 8; }

}  // namespace

bool FlexbufferMap::readUnsigned(size_t at, size_t width, uint64_t* value) const {
    if (!validWidth(width) || at > size_ || size_ - at < width) return false;
    uint64_t result = 0;
    for (size_t i = 0; i < width; ++i) result |= static_cast<uint64_t>(data_[at + i]) << (8 * i);
    *value = result;
    return true;
}

bool FlexbufferMap::target(size_t slot, size_t width, size_t* at) const {
    uint64_t offset;
    if (!readUnsigned(slot, width, &offset) || offset == 0 || offset > slot) return false;
    *at = slot - static_cast<size_t>(offset);
    return true;
}

bool FlexbufferMap::parse(const uint8_t* data, size_t size, std::string* why) {
    data_ = data;
    size_ = size;
    entries_.clear();
    const auto bad = [why](const char* reason) {
        *why = reason;
        return false;
    };
    if (data == nullptr || size < 3) return bad("too short for a FlexBuffer");
    const size_t rootWidth = data[size - 1];
    const uint8_t rootType = data[size - 2];
    if (!validWidth(rootWidth) || size < 2 + rootWidth) return bad("invalid root width");
    if ((rootType >> 2) != kMap) return bad("the root is not a map");
    width_ = size_t{1} << (rootType & 3);
    size_t values, keys;
    uint64_t count, keysOffset, keysWidth, keyCount;
    if (!target(size - 2 - rootWidth, rootWidth, &values) || values < 3 * width_) return bad("map offset out of range");
    if (!readUnsigned(values - width_, width_, &count) || count > kMaxEntries) return bad("invalid map size");
    if (values + count * width_ + count > size) return bad("map values out of range");
    const size_t keysSlot = values - 3 * width_;
    if (!readUnsigned(keysSlot + width_, width_, &keysWidth) || !validWidth(keysWidth)) return bad("invalid key width");
    if (!readUnsigned(keysSlot, width_, &keysOffset) || keysOffset == 0 || keysOffset > keysSlot) {
        return bad("keys offset out of range");
    }
    keys = keysSlot - static_cast<size_t>(keysOffset);
    if (keys < keysWidth || !readUnsigned(keys - keysWidth, keysWidth, &keyCount) || keyCount != count) {
        return bad("keys and values differ in number");
    }
    if (keys + count * keysWidth > size) return bad("keys out of range");
    for (size_t i = 0; i < count; ++i) {
        size_t keyAt;
        if (!target(keys + i * keysWidth, keysWidth, &keyAt)) return bad("key offset out of range");
        const void* end = std::memchr(data + keyAt, 0, size - keyAt);
        if (end == nullptr) return bad("unterminated key");
        Entry entry;
        entry.key.assign(reinterpret_cast<const char*>(data + keyAt), static_cast<const uint8_t*>(end) - (data + keyAt));
        entry.at = values + i * width_;
        entry.packedType = data[values + count * width_ + i];
        entries_.push_back(std::move(entry));
    }
    return true;
}

FlexbufferMap::Lookup FlexbufferMap::number(const std::string& key, double* value) const {
    for (const Entry& entry : entries_) {
        if (entry.key != key) continue;
        uint8_t type = entry.packedType >> 2;
        size_t at = entry.at, width = width_;
        if (type == kIndirectInt || type == kIndirectUint || type == kIndirectFloat) {
            if (!target(at, width, &at)) return Lookup::NOT_A_NUMBER;
            width = size_t{1} << (entry.packedType & 3);
            type = type == kIndirectInt ? kInt : type == kIndirectUint ? kUint : kFloat;
        }
        uint64_t bits;
        if (!readUnsigned(at, width, &bits)) return Lookup::NOT_A_NUMBER;
        switch (type) {
            case kInt: {
                const unsigned shift = static_cast<unsigned>(64 - 8 * width);
                *value = static_cast<double>(static_cast<int64_t>(bits << shift) >> shift);   // sign-extend
                return Lookup::NUMBER;
            }
            case kUint:
            case kBool: *value = static_cast<double>(bits); return Lookup::NUMBER;
            case kFloat:
                if (width == 4) {
                    float f;
                    const auto narrow = static_cast<uint32_t>(bits);
                    std::memcpy(&f, &narrow, 4);
                    *value = f;
                } else if (width == 8) {
                    std::memcpy(value, &bits, 8);
                } else {
                    return Lookup::NOT_A_NUMBER;
                }
                return Lookup::NUMBER;
            default: return Lookup::NOT_A_NUMBER;
        }
    }
    return Lookup::ABSENT;
}

}  // namespace nnemu::tflite
