#include "Labels.h"

#include <fstream>

namespace nnemu::labelimage {

Status readLabelsFile(const std::string& path, std::vector<std::string>* labels) {
    std::ifstream file(path);
    if (!file) return unavailable("Labels file " + path + " not found");
    labels->clear();
    std::string line;
    while (std::getline(file, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();   // files written on Windows
        labels->push_back(line);
    }
    while (labels->size() % 16 != 0) labels->emplace_back();
    return {};
}

}  // namespace nnemu::labelimage
