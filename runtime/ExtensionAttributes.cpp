#include "ExtensionAttributes.h"

#include <android/NeuralNetworks.h>

#include <algorithm>

#include "nnemu/base/Log.h"

namespace nnemu::runtime {
namespace {

// Known as Android's runtime knows extensions: supported by some device.
bool knownExtension(const std::string& name) {
    for (const Device& device : allDevices()) {
        for (const auto& extension : device.driver->getSupportedExtensions()) {
            if (extension.name == name) return true;
        }
    }
    return false;
}

}  // namespace

int ExtensionAttributes::add(const char* function, const char* extension, uint16_t code, const void* data,
                             size_t length) {
    if (!knownExtension(extension)) {
        NN_LOG(ERROR) << function << ": no device supports the extension " << extension;
        return ANEURALNETWORKS_BAD_DATA;
    }
    const bool duplicate = std::any_of(list_.begin(), list_.end(), [&](const ExtensionAttribute& attribute) {
        return attribute.extension == extension && attribute.code == code;
    });
    if (duplicate) {
        NN_LOG(ERROR) << function << ": attribute " << code << " of " << extension << " was already added";
        return ANEURALNETWORKS_BAD_DATA;
    }
    const auto* bytes = static_cast<const uint8_t*>(data);
    list_.push_back({extension, code, length == 0 ? std::vector<uint8_t>{} : std::vector<uint8_t>(bytes, bytes + length)});
    return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace nnemu::runtime
