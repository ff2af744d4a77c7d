#include "nnemu/props/SynapProperties.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>

#include "nnemu/base/Log.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

std::optional<std::string> environment(std::string_view name) {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

// Warns once per distinct message: these accessors run at every JIT compile.
void warnOnce(const std::string& message) {
    static std::mutex mutex;
    static std::set<std::string> warned;
    std::lock_guard<std::mutex> lock(mutex);
    if (warned.insert(message).second) {
        NN_LOG(WARNING) << message;
    }
}

std::optional<int64_t> parseCapacity(const std::string& text) {
    errno = 0;
    char* end = nullptr;
    long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0' || value < 0) return std::nullopt;
    return value;
}

}  // namespace

std::string SynapProperties::cachePath() {
    if (auto path = environment(kCachePathEnv)) return *path;
    if (isYocto()) return yoctoCachePath(programName());
    return get(kCachePath, kDefaultCachePath);
}

std::string SynapProperties::yoctoCachePath(const std::string& program) {
    return std::string(kYoctoCachePrefix) + program;
}

std::string SynapProperties::cacheFile() {
    if (auto path = environment(kCachePathEnv)) {
        // A Linux board's variable names a path on the host as the process sees it.
        std::error_code ec;
        std::filesystem::path absolute = std::filesystem::absolute(*path, ec);
        return ec ? *path : absolute.lexically_normal().string();
    }
    return devicePath(isYocto() ? yoctoCachePath(programName()) : get(kCachePath, kDefaultCachePath));
}

int64_t SynapProperties::cacheCapacity() {
    if (auto text = environment(kCacheCapacityEnv)) {
        if (auto capacity = parseCapacity(*text)) return *capacity;
        warnOnce("ignoring " + std::string(kCacheCapacityEnv) + "=" + *text + ": not a non-negative integer");
    }
    int64_t capacity = getInt(kCacheCapacity, kDefaultCacheCapacity);
    if (capacity < 0) {
        warnOnce(std::string(kCacheCapacity) + "=" + std::to_string(capacity) + " is negative; using " +
                 std::to_string(kDefaultCacheCapacity));
        return kDefaultCacheCapacity;
    }
    return capacity;
}

bool SynapProperties::profile() { return getBool(kProfile, false); }

bool SynapProperties::disable() { return getBool(kDisable, false); }

bool SynapProperties::cacheModel() { return getBool(kCacheModel, false); }

}  // namespace nnemu::props
