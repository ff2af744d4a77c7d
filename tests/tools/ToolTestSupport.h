// What the end-to-end tests of the tools share: where the binaries and shared models are, the
// NNAPI devices present, and small file helpers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nnemu::tooltest {

inline const std::string kModelsDir = std::string(NNEMU_SHARED_DIR) + "/models";

#define SKIP_WITHOUT_SHARED_MODELS()                                                                       \
    if (!std::filesystem::is_directory(::nnemu::tooltest::kModelsDir)) {                                    \
        GTEST_SKIP() << "shared models folder not found at " << ::nnemu::tooltest::kModelsDir               \
                     << " (set the NNEMU_SHARED_DIR CMake cache variable)";                               \
    }

// Whether the NNAPI library lists a device of that name.
bool hasNnapiDevice(const std::string& name);
std::string joinedNnapiDevices();

std::vector<uint8_t> readBytes(const std::string& path);
void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes);

// The extra benchmark_model flags that select a device: "" = TFLite's CPU path (no delegate).
std::vector<std::string> deviceFlags(const std::string& device);

}  // namespace nnemu::tooltest
