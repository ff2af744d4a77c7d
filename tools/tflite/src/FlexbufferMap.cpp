#include "FlexbufferMap.h"

#include <cstring>

namespace nnemu::tflite {

bool FlexbufferMap::parse(const uint8_t* data, size_t size, std::string* why) {
    map_ = flexbuffers::Map::EmptyMap();
    if (data == nullptr || size < 3) {
        *why = "too short for a FlexBuffer";
        return false;
    }
    bytes_.assign((size + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
    auto* copy = reinterpret_cast<uint8_t*>(bytes_.data());
    std::memcpy(copy, data, size);
    if (!flexbuffers::VerifyBuffer(copy, size)) {
        *why = "not a well-formed FlexBuffer";
        return false;
    }
    const flexbuffers::Reference root = flexbuffers::GetRoot(copy, size);
    if (!root.IsMap()) {
        *why = "the root is not a map";
        return false;
    }
    map_ = root.AsMap();
    return true;
}

FlexbufferMap::Lookup FlexbufferMap::number(const std::string& key, double* value) const {
    const flexbuffers::Reference entry = map_[key];
    if (entry.IsNull()) return Lookup::ABSENT;
    if (!entry.IsNumeric() && !entry.IsBool()) return Lookup::NOT_A_NUMBER;
    *value = entry.AsDouble();
    return Lookup::NUMBER;
}

}  // namespace nnemu::tflite
