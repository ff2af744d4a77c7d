#include "ToolTestSupport.h"

#include <android/NeuralNetworks.h>

#include <fstream>
#include <iterator>

namespace nnemu::tooltest {

std::string joinedNnapiDevices() {
    std::string joined;
    uint32_t count = 0;
    if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return joined;
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        const char* name = nullptr;
        if (ANeuralNetworks_getDevice(i, &device) != ANEURALNETWORKS_NO_ERROR ||
            ANeuralNetworksDevice_getName(device, &name) != ANEURALNETWORKS_NO_ERROR) {
            continue;
        }
        if (!joined.empty()) joined += ',';
        joined += name;
    }
    return joined;
}

bool hasNnapiDevice(const std::string& name) {
    const std::string joined = "," + joinedNnapiDevices() + ",";
    return joined.find("," + name + ",") != std::string::npos;
}

std::vector<uint8_t> readBytes(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> deviceFlags(const std::string& device) {
    if (device.empty()) return {};
    return {"--use_nnapi=true", "--nnapi_accelerator_name=" + device};
}

}  // namespace nnemu::tooltest
