#include "ToolLog.h"

#include <cstdio>

namespace nnemu::benchmark {

const char* severityPrefix(Severity severity) {
    switch (severity) {
        case Severity::VERBOSE: return "VERBOSE: ";
        case Severity::INFO: return "INFO: ";
        case Severity::WARNING: return "WARNING: ";
        case Severity::ERROR: return "ERROR: ";
    }
    return "";
}

void writeLogLine(Severity severity, const std::string& message) {
    // One fwrite per line so that lines from several processes do not interleave mid-line.
    std::string line = severityPrefix(severity);
    line += message;
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

}  // namespace nnemu::benchmark
