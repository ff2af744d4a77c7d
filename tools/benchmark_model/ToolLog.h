// The log lines of TensorFlow Lite's tools: one line per message on stderr, prefixed with the
// severity name ("INFO: ", "WARNING: ", "ERROR: ", "VERBOSE: "), as benchmark_model prints them.
// Tool output, not library logging: it is what users compare with the board, so it is always on.
#pragma once

#include <sstream>
#include <string>

namespace nnemu::benchmark {

enum class Severity { VERBOSE, INFO, WARNING, ERROR };

const char* severityPrefix(Severity severity);
void writeLogLine(Severity severity, const std::string& message);

class ToolLogLine {
public:
    explicit ToolLogLine(Severity severity) : severity_(severity) {}
    ~ToolLogLine() { writeLogLine(severity_, stream_.str()); }
    ToolLogLine(const ToolLogLine&) = delete;
    ToolLogLine& operator=(const ToolLogLine&) = delete;

    std::ostream& stream() { return stream_; }

private:
    Severity severity_;
    std::ostringstream stream_;
};

}  // namespace nnemu::benchmark

#define TOOL_LOG(severity) ::nnemu::benchmark::ToolLogLine(::nnemu::benchmark::Severity::severity).stream()
