#include "Labels.h"

#include <fstream>

namespace nnemu::labelimage {

bool readLabelsFile(const std::string& path, std::vector<std::string>* labels, std::string* error) {
    std::ifstream file(path);
    if (!file) {
        *error = "Labels file " + path + " not found";
        return false;
    }
    labels->clear();
    std::string line;
    while (std::getline(file, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();   // files written on Windows
        labels->push_back(line);
    }
    while (labels->size() % 16 != 0) labels->emplace_back();
    return true;
}

}  // namespace nnemu::labelimage
