// Runs a tool as a child process with its own device root and captures what it prints, so the
// end-to-end tests see exactly what a user sees.
#pragma once

#include <string>
#include <vector>

namespace nnemu::tooltest {

struct ToolRun {
    int exitCode = -1;        // -1 when the process did not exit normally
    int signal = 0;           // the signal that ended it, 0 if none
    std::string out;          // stdout
    std::string err;          // stderr
    std::vector<std::string> errLines() const;
};

// Runs program with args; NNEMU_ROOT points at deviceRoot when it is not empty. `environment`
// changes the inherited environment: "NAME=value" sets a variable, "NAME" removes it.
ToolRun runTool(const std::string& program, const std::vector<std::string>& args, const std::string& deviceRoot = "",
                const std::vector<std::string>& environment = {});

// A fresh directory under the test temp dir.
std::string makeTempDir(const std::string& name);

}  // namespace nnemu::tooltest
