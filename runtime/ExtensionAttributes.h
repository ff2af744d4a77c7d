// Feature level 8 extension attributes (nnapi-fl30plus.md §3.9): vendor hints named by (extension,
// 16-bit code) with an opaque copied payload, attached to a compilation or an execution for the one
// device of a createForDevices compilation. Drivers may ignore them; nnemu's HAL has no place to
// pass them yet, so they are validated and kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "Device.h"

namespace nnemu::runtime {

struct ExtensionAttribute {
    std::string extension;
    uint16_t code = 0;
    std::vector<uint8_t> value;
};

class ExtensionAttributes {
public:
    // BAD_DATA (logged under `function`) when no device supports the extension or the attribute
    // was already added; NO_ERROR otherwise, the payload copied.
    int add(const char* function, const char* extension, uint16_t code, const void* data, size_t length);
    const std::vector<ExtensionAttribute>& list() const { return list_; }

private:
    std::vector<ExtensionAttribute> list_;
};

}  // namespace nnemu::runtime
