#include "SynapLog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace nnemu::synap {
namespace {

// The board's library compares the number with each message's level; anything else is unset.
std::optional<int> levelFromEnvironment() {
    const char* value = std::getenv("SYNAP_NB_LOG_LEVEL");
    if (value == nullptr || *value == '\0') return std::nullopt;
    char* end = nullptr;
    const long level = std::strtol(value, &end, 10);
    if (*end != '\0') return std::nullopt;
    return static_cast<int>(std::max(-1L, std::min(level, 4L)));
}

}  // namespace

bool synapLogEnabled(LogLevel level) {
    static const std::optional<int> threshold = levelFromEnvironment();
    if (!threshold) return logEnabled(level);
    return level != LogLevel::SILENT && static_cast<int>(level) >= *threshold;
}

std::string synapLogFormat(LogLevel level, const char* function, int line, const std::string& message) {
    static constexpr char kLetters[] = {'V', 'I', 'W', 'E'};
    const char letter = kLetters[std::min(static_cast<int>(level), 3)];
    return std::string(1, letter) + ":SyNAP: " + function + "():" + std::to_string(line) + ": " + message + "\n";
}

SynapLogMessage::~SynapLogMessage() {
    // One write per line, so lines from several threads do not interleave.
    const std::string text = synapLogFormat(level_, function_, line_, stream_.str());
    std::fputs(text.c_str(), stderr);
}

}  // namespace nnemu::synap
