#include "TopResults.h"

#include <algorithm>
#include <cstring>

namespace nnemu::labelimage {

std::vector<ClassScore> topResults(const uint8_t* data, size_t count, ScoreType type, size_t maxResults,
                                   float threshold) {
    std::vector<ClassScore> scores;
    for (size_t i = 0; i < count; ++i) {
        float value = 0;
        switch (type) {
            case ScoreType::FLOAT32: std::memcpy(&value, data + i * sizeof(float), sizeof(float)); break;
            case ScoreType::UINT8: value = static_cast<float>(data[i] / 255.0); break;
            case ScoreType::INT8: value = static_cast<float>((static_cast<int8_t>(data[i]) + 128) / 256.0); break;
        }
        if (value < threshold) continue;
        scores.push_back({value, static_cast<int>(i)});
    }
    std::sort(scores.begin(), scores.end(), [](const ClassScore& a, const ClassScore& b) {
        if (a.score != b.score) return a.score > b.score;
        return a.index > b.index;
    });
    if (scores.size() > maxResults) scores.resize(maxResults);
    return scores;
}

}  // namespace nnemu::labelimage
