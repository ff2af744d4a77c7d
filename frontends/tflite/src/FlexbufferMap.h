// The one thing custom operators keep in custom_options: a FlexBuffers map from keys to scalars,
// read with flatbuffers' own FlexBuffers reader once its verifier has accepted every offset,
// width and key of the buffer (flexbuffers::VerifyBuffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::tflite {

class FlexbufferMap {
public:
    // BAD_DATA with a reason when the bytes are not a well-formed FlexBuffers map at the root.
    Status parse(const uint8_t* data, size_t size);

    enum class Lookup { ABSENT, NUMBER, NOT_A_NUMBER };
    // A key's value as a number (integers, floats and bools; indirect ones too).
    Lookup number(const std::string& key, double* value) const;

private:
    // A copy at an 8-byte aligned address: the reader loads 8-byte scalars directly, and the
    // verifier checks alignment only relative to the buffer's start.
    std::vector<uint64_t> bytes_;
    size_t size_ = 0;  // 0 until a map was parsed
};

}  // namespace nnemu::tflite
