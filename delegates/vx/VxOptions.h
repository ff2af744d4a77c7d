// The vx delegate's options (tflite_plugin_create_delegate keys and values), as the board's
// libvx_delegate.so reads them: every default is zero/empty, each value is logged as
// "INFO: Vx delegate: <name> set to <value>.".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "nnemu/base/Status.h"

namespace nnemu::vx {

struct VxOptions {
    bool allowedCacheMode = false;
    std::string cacheFilePath;
    int32_t deviceId = 0;
    int32_t allowedBuiltinCode = 0;   // non-zero: only nodes of this builtin code are delegated
    bool errorDuringInit = false;     // test hooks: the kernel fails at that stage
    bool errorDuringPrepare = false;
    bool errorDuringInvoke = false;
};

// BAD_DATA with a message naming the key for a value that is not a number (0/1/true/false for
// the flags); unknown keys are ignored with a warning.
Status parseVxOptions(char** keys, char** values, size_t count, VxOptions* options);
void logVxOptions(const VxOptions& options);

}  // namespace nnemu::vx
