// A strictly bounds-checked reader for the one thing custom operators keep in custom_options:
// a FlexBuffers map from keys to scalars. flexbuffers.h trusts offsets and alignment more than a
// fuzzed file deserves, so the loader reads the format itself, every byte range checked first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nnemu::tflite {

class FlexbufferMap {
public:
    // False with a reason when the bytes are not a well-formed FlexBuffers map at the root.
    bool parse(const uint8_t* data, size_t size, std::string* why);

    enum class Lookup { ABSENT, NUMBER, NOT_A_NUMBER };
    // A key's value as a number (integers, floats and bools; indirect ones too).
    Lookup number(const std::string& key, double* value) const;

private:
    struct Entry {
        std::string key;
        size_t at = 0;        // the value's slot
        uint8_t packedType = 0;
    };
    bool readUnsigned(size_t at, size_t width, uint64_t* value) const;
    bool target(size_t slot, size_t width, size_t* at) const;   // follows a backward offset

    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    size_t width_ = 0;        // the values' slot width
    std::vector<Entry> entries_;
};

}  // namespace nnemu::tflite
