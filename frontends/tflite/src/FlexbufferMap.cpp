// Number parsing in flatbuffers' util.h takes the "C" locale object from libflatbuffers.a, which
// is not position-independent and so cannot go into libvx_delegate.so. Only numbers (never
// strings) are read here, so the locale-dependent variant is never reached.
#define FLATBUFFERS_LOCALE_INDEPENDENT 0

#include "FlexbufferMap.h"

#include <flatbuffers/flexbuffers.h>

#include <cstring>

namespace nnemu::tflite {

Status FlexbufferMap::parse(const uint8_t* data, size_t size) {
    size_ = 0;
    if (data == nullptr || size < 3) return badData("too short for a FlexBuffer");
    bytes_.assign((size + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
    auto* copy = reinterpret_cast<const uint8_t*>(bytes_.data());
    std::memcpy(bytes_.data(), data, size);
    if (!flexbuffers::VerifyBuffer(copy, size)) return badData("not a well-formed FlexBuffer");
    if (!flexbuffers::GetRoot(copy, size).IsMap()) return badData("the root is not a map");
    size_ = size;
    return {};
}

FlexbufferMap::Lookup FlexbufferMap::number(const std::string& key, double* value) const {
    if (size_ == 0) return Lookup::ABSENT;
    const auto* copy = reinterpret_cast<const uint8_t*>(bytes_.data());
    const flexbuffers::Reference entry = flexbuffers::GetRoot(copy, size_).AsMap()[key];
    if (entry.IsNull()) return Lookup::ABSENT;
    if (!entry.IsNumeric() && !entry.IsBool()) return Lookup::NOT_A_NUMBER;
    *value = entry.AsDouble();
    return Lookup::NUMBER;
}

}  // namespace nnemu::tflite
