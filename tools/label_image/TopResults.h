// The top-N classes of a classifier output, scored as TFLite's label_image scores them: float
// outputs as they are, uint8 outputs q/255, int8 outputs (q+128)/256; scores below the threshold
// are dropped; highest first (equal scores: higher index first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace nnemu::labelimage {

enum class ScoreType { FLOAT32, UINT8, INT8 };

struct ClassScore {
    float score;
    int index;
};

std::vector<ClassScore> topResults(const uint8_t* data, size_t count, ScoreType type, size_t maxResults,
                                   float threshold = 0.001f);

}  // namespace nnemu::labelimage
