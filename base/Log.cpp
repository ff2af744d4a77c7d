#include "nnemu/base/Log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace nnemu {
namespace {

LogLevel levelFromEnvironment() {
    const char* value = std::getenv("NNEMU_LOG");
    if (value == nullptr) return LogLevel::WARNING;
    static const struct {
        const char* name;
        LogLevel level;
    } kNames[] = {{"verbose", LogLevel::VERBOSE}, {"info", LogLevel::INFO},
                  {"warning", LogLevel::WARNING}, {"error", LogLevel::ERROR},
                  {"silent", LogLevel::SILENT}};
    for (const auto& entry : kNames) {
        if (strcasecmp(value, entry.name) == 0) return entry.level;
    }
    return LogLevel::WARNING;
}

const char* prefix(LogLevel level) {
    switch (level) {
        case LogLevel::VERBOSE: return "VERBOSE: ";
        case LogLevel::INFO: return "INFO: ";
        case LogLevel::WARNING: return "WARNING: ";
        default: return "ERROR: ";
    }
}

}  // namespace

bool logEnabled(LogLevel level) {
    static const LogLevel threshold = levelFromEnvironment();
    return level >= threshold && level != LogLevel::SILENT;
}

void logLine(LogLevel level, const std::string& message) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    std::fprintf(stderr, "%s%s\n", prefix(level), message.c_str());
}

}  // namespace nnemu
