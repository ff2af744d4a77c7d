// The driver's own messages, in the board's SyNAP format (synap-behaviors.md §1.2):
//   <V|I|W|E>:SyNAP: <function>():<line>: <message>
// on stderr. SYNAP_NB_LOG_LEVEL (0 verbose, 1 info, 2 warning, 3 error; read once per process)
// chooses which are printed; when it is unset or not a number, NNEMU_LOG decides as for every
// other message (default: warnings and errors). The board sends these to logcat on Android; the
// emulator has no logcat, so both flavours print them to stderr.
#pragma once

#include <sstream>
#include <string>

#include "nnemu/base/Log.h"

namespace nnemu::synap {

bool synapLogEnabled(LogLevel level);
// One line, newline included.
std::string synapLogFormat(LogLevel level, const char* function, int line, const std::string& message);

class SynapLogMessage {
public:
    SynapLogMessage(LogLevel level, const char* function, int line) : level_(level), function_(function), line_(line) {}
    ~SynapLogMessage();
    template <typename T>
    SynapLogMessage& operator<<(const T& value) {
        stream_ << value;
        return *this;
    }

private:
    LogLevel level_;
    const char* function_;
    int line_;
    std::ostringstream stream_;
};

struct SynapLogVoidify {
    void operator&(const SynapLogMessage&) {}
};

}  // namespace nnemu::synap

#define SYNAP_LOG(level)                                                         \
    !::nnemu::synap::synapLogEnabled(::nnemu::LogLevel::level) ? static_cast<void>(0) \
                                                              : ::nnemu::synap::SynapLogVoidify() & \
            ::nnemu::synap::SynapLogMessage(::nnemu::LogLevel::level, __func__, __LINE__)
