#include "StringTensor.h"

#include <cstring>
#include <string>

namespace nnemu::tflite {

namespace {

uint32_t wordAt(const uint8_t* data, size_t i) {
    uint32_t value;
    std::memcpy(&value, data + i * sizeof(uint32_t), sizeof(uint32_t));
    return value;
}

}  // namespace

Result<std::vector<std::string_view>> readStrings(const uint8_t* data, size_t size, size_t expectedCount) {
    if (data == nullptr || size < sizeof(int32_t)) {
        return badData("string buffer of " + std::to_string(size) + " bytes has no count");
    }
    const uint32_t count = wordAt(data, 0);
    if (size < 2 * sizeof(int32_t) || count > size / sizeof(int32_t) - 2) {
        return badData("string buffer of " + std::to_string(size) + " bytes cannot hold " + std::to_string(count) +
                       " offsets");
    }
    if (expectedCount != SIZE_MAX && count != expectedCount) {
        return badData("string buffer holds " + std::to_string(count) + " strings, its shape " +
                       std::to_string(expectedCount));
    }
    const size_t header = (size_t{count} + 2) * sizeof(int32_t);
    std::vector<std::string_view> strings;
    strings.reserve(count);
    size_t previous = wordAt(data, 1);
    if (previous != header) {
        return badData("string offset 0 is " + std::to_string(previous) + ", not the header's end " + std::to_string(header));
    }
    for (size_t i = 1; i <= count; ++i) {
        const size_t next = wordAt(data, i + 1);
        if (next < previous || next > size) {
            return badData("string offset " + std::to_string(i) + " (" + std::to_string(next) +
                           ") is out of range or decreasing (after " + std::to_string(previous) + ", buffer of " +
                           std::to_string(size) + " bytes)");
        }
        strings.emplace_back(reinterpret_cast<const char*>(data) + previous, next - previous);
        previous = next;
    }
    if (previous != size) {
        return badData("string buffer of " + std::to_string(size) + " bytes ends its strings at " + std::to_string(previous));
    }
    return strings;
}

std::vector<uint8_t> packStrings(const std::vector<std::string_view>& strings) {
    const size_t header = (strings.size() + 2) * sizeof(int32_t);
    size_t total = header;
    for (std::string_view s : strings) total += s.size();
    std::vector<uint8_t> bytes(total);
    const auto put = [&](size_t i, size_t value) {
        const auto word = static_cast<uint32_t>(value);
        std::memcpy(bytes.data() + i * sizeof(uint32_t), &word, sizeof(uint32_t));
    };
    put(0, strings.size());
    size_t offset = header;
    for (size_t i = 0; i < strings.size(); ++i) {
        put(i + 1, offset);
        if (!strings[i].empty()) std::memcpy(bytes.data() + offset, strings[i].data(), strings[i].size());
        offset += strings[i].size();
    }
    put(strings.size() + 1, offset);
    return bytes;
}

}  // namespace nnemu::tflite
