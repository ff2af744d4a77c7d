// The driver's statistics files as tests read them under a device root, on either board.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace nnemu::props::testing {

// The text of inference_count under `root` (Android's path, else Yocto's); "" when neither exists.
inline std::string readInferenceCount(const std::string& root) {
    for (const char* path : {"/sys/class/misc/synap/device/misc/synap/statistics/inference_count",
                             "/sys/class/misc/synap/statistics/inference_count"}) {
        std::ifstream file(root + path);
        if (file) {
            std::stringstream text;
            text << file.rdbuf();
            return text.str();
        }
    }
    return "";
}

}  // namespace nnemu::props::testing
