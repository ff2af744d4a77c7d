#include "TensorFiles.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace nnemu::benchmark {

std::vector<std::string> splitPathList(const std::string& text) {
    std::vector<std::string> paths;
    if (text.empty()) return paths;
    std::string current;
    for (char c : text) {
        if (c == ',') {
            paths.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    paths.push_back(current);
    return paths;
}

Status readTensorFile(const std::string& path, size_t expectedBytes, std::vector<uint8_t>* bytes) {
    std::error_code status;
    if (std::filesystem::exists(path, status) && !std::filesystem::is_regular_file(path, status)) {
        return unavailable("Failed to read the input file " + path + ": not a regular file");
    }
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        return unavailable("Failed to read the input file " + path + ": " + std::strerror(errno));
    }
    const std::streamoff size = file.tellg();
    if (size < 0 || static_cast<size_t>(size) != expectedBytes) {
        std::ostringstream message;
        message << "The size of " << path << " is " << size << " bytes. It should be " << expectedBytes << " bytes.";
        return badData(message.str());
    }
    bytes->resize(expectedBytes);
    file.seekg(0);
    if (expectedBytes > 0 && !file.read(reinterpret_cast<char*>(bytes->data()), static_cast<std::streamsize>(expectedBytes))) {
        return unavailable("Failed to read the input file " + path);
    }
    return {};
}

Status writeTensorFile(const std::string& path, const uint8_t* data, size_t size) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) {
        return unavailable("Failed to open the output file " + path + ": " + std::strerror(errno));
    }
    if (size > 0) file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    file.close();
    if (!file) {
        return unavailable("Failed to write the output file " + path);
    }
    return {};
}

}  // namespace nnemu::benchmark
