// One small logging facility. Level from NNEMU_LOG (verbose|info|warning|error|silent);
// default warning. Lines go to stderr with Android-style prefixes ("VERBOSE: ", "INFO: ", ...).
#pragma once

#include <sstream>
#include <string>

namespace nnemu {

enum class LogLevel { VERBOSE = 0, INFO = 1, WARNING = 2, ERROR = 3, SILENT = 4 };

bool logEnabled(LogLevel level);
void logLine(LogLevel level, const std::string& message);

class LogMessage {
public:
    explicit LogMessage(LogLevel level) : level_(level) {}
    ~LogMessage() { logLine(level_, stream_.str()); }
    template <typename T>
    LogMessage& operator<<(const T& value) {
        stream_ << value;
        return *this;
    }

private:
    LogLevel level_;
    std::ostringstream stream_;
};

// Turns a whole `NN_LOG(X) << a << b` chain into one void expression, so the macro is safe in an
// unbraced `if` and costs one check when the level is off.
struct LogVoidify {
    void operator&(const LogMessage&) {}
};

}  // namespace nnemu

#define NN_LOG(level)                                                  \
    !::nnemu::logEnabled(::nnemu::LogLevel::level) ? static_cast<void>(0) \
                                                    : ::nnemu::LogVoidify() & ::nnemu::LogMessage(::nnemu::LogLevel::level)
