// The documentation's operations table ("| # | operation | ..."), found by its heading row in
// README.md or in any docs/*.md (chapters move between them), so tests can hold it against the
// operation table and the registrations.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace nnemu::test {

// The trimmed cells of a markdown table row, without the empty ones before the first bar.
inline std::vector<std::string> markdownCells(const std::string& row) {
    std::vector<std::string> result;
    std::stringstream stream(row);
    std::string cell;
    std::getline(stream, cell, '|');
    while (std::getline(stream, cell, '|')) {
        const size_t first = cell.find_first_not_of(' ');
        const size_t last = cell.find_last_not_of(' ');
        result.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    return result;
}

struct DocumentedOperations {
    std::string file;  // empty: no file has the table
    std::map<int, std::vector<std::string>> rows;  // operation code -> the row's cells ("#" first)
};

// The first file, README.md then docs/*.md in name order, with a "| # | operation |" row.
inline DocumentedOperations findDocumentedOperations(const std::filesystem::path& sourceDir) {
    std::vector<std::filesystem::path> candidates;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(sourceDir / "docs", error)) {
        if (entry.path().extension() == ".md") candidates.push_back(entry.path());
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.insert(candidates.begin(), sourceDir / "README.md");
    for (const auto& path : candidates) {
        std::ifstream markdown(path);
        DocumentedOperations table;
        bool inTable = false;
        for (std::string line; std::getline(markdown, line);) {
            if (line.rfind("| # | operation |", 0) == 0) {
                inTable = true;
                table.file = path.string();
            } else if (inTable && line.rfind("|---", 0) == 0) {
                continue;
            } else if (inTable && line.rfind("| ", 0) != 0) {
                break;
            } else if (inTable) {
                const auto row = markdownCells(line);
                if (row.size() >= 2) table.rows[std::stoi(row[0])] = row;
            }
        }
        if (inTable) return table;
    }
    return {};
}

}  // namespace nnemu::test
