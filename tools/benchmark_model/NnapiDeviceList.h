// The NNAPI device names, asked through the public C API as TFLite's NNAPI delegate asks them,
// for the "NNAPI accelerators available: [...]" line.
#pragma once

#include <string>
#include <vector>

namespace nnemu::benchmark {

std::vector<std::string> nnapiDeviceNames();
// Names joined with "," and no spaces: "synap-npu,nnapi-reference".
std::string joinDeviceNames(const std::vector<std::string>& names);

}  // namespace nnemu::benchmark
