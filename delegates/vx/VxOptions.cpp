#include "VxOptions.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nnemu::vx {
namespace {

bool parseInt(const char* text, int32_t* value) {
    if (text == nullptr || *text == '\0') return false;
    errno = 0;
    char* end = nullptr;
    const long parsed = std::strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed < INT32_MIN || parsed > INT32_MAX) return false;
    *value = static_cast<int32_t>(parsed);
    return true;
}

bool parseFlag(const char* text, bool* value) {
    if (text != nullptr && (std::strcmp(text, "true") == 0 || std::strcmp(text, "false") == 0)) {
        *value = text[0] == 't';
        return true;
    }
    int32_t number = 0;
    if (!parseInt(text, &number)) return false;
    *value = number != 0;
    return true;
}

}  // namespace

Status parseVxOptions(char** keys, char** values, size_t count, VxOptions* options) {
    for (size_t i = 0; i < count; ++i) {
        const std::string key = keys[i] != nullptr ? keys[i] : "";
        const char* value = values[i];
        bool ok = true;
        bool known = true;
        if (key == "allowed_cache_mode") {
            ok = parseFlag(value, &options->allowedCacheMode);
        } else if (key == "cache_file_path") {
            options->cacheFilePath = value != nullptr ? value : "";
        } else if (key == "device_id") {
            ok = parseInt(value, &options->deviceId) && options->deviceId >= 0;
        } else if (key == "allowed_builtin_code") {
            ok = parseInt(value, &options->allowedBuiltinCode) && options->allowedBuiltinCode >= 0;
        } else if (key == "error_during_init") {
            ok = parseFlag(value, &options->errorDuringInit);
        } else if (key == "error_during_prepare") {
            ok = parseFlag(value, &options->errorDuringPrepare);
        } else if (key == "error_during_invoke") {
            ok = parseFlag(value, &options->errorDuringInvoke);
        } else {
            known = false;
        }
        if (!known) {
            std::fprintf(stderr, "WARNING: Vx delegate: unknown option '%s' ignored.\n", key.c_str());
        } else if (!ok) {
            return badData("Vx delegate: bad value '" + std::string(value != nullptr ? value : "") + "' for option " +
                           key +
                           (key == "device_id" || key == "allowed_builtin_code" ? " (expected a non-negative integer)"
                                                                                : " (expected 0, 1, true or false)"));
        }
    }
    return {};
}

void logVxOptions(const VxOptions& options) {
    std::fprintf(stderr, "INFO: Vx delegate: allowed_cache_mode set to %d.\n", options.allowedCacheMode ? 1 : 0);
    if (options.allowedCacheMode) {
        std::fprintf(stderr, "INFO: Vx delegate: cache_file_path set to %s.\n", options.cacheFilePath.c_str());
    }
    std::fprintf(stderr, "INFO: Vx delegate: device num set to %d.\n", options.deviceId);
    std::fprintf(stderr, "INFO: Vx delegate: allowed_builtin_code set to %d.\n", options.allowedBuiltinCode);
    std::fprintf(stderr, "INFO: Vx delegate: error_during_init set to %d.\n", options.errorDuringInit ? 1 : 0);
    std::fprintf(stderr, "INFO: Vx delegate: error_during_prepare set to %d.\n", options.errorDuringPrepare ? 1 : 0);
    std::fprintf(stderr, "INFO: Vx delegate: error_during_invoke set to %d.\n", options.errorDuringInvoke ? 1 : 0);
}

}  // namespace nnemu::vx
