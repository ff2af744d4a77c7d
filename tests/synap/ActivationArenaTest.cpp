// The activation arena's placement (driver/synap/core/ActivationArena.h): values and stage workspaces
// live at the same layer never share bytes, and the arena is as small as the layer with the most
// bytes live where the placement can reach it.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/ActivationArena.h"

namespace nnemu::synap {
namespace {

// The most bytes live at one layer: no placement can do with less.
size_t widestLayer(const std::vector<LiveRange>& ranges) {
    int64_t layers = 0;
    for (const LiveRange& range : ranges) layers = std::max(layers, range.last + 1);
    size_t widest = 0;
    for (int64_t l = 0; l < layers; ++l) {
        size_t live = 0;
        for (const LiveRange& range : ranges) live += range.first <= l && l <= range.last ? range.bytes : 0;
        widest = std::max(widest, live);
    }
    return widest;
}

void expectDisjointWhileLive(const std::vector<LiveRange>& ranges, const std::vector<size_t>& offsets, size_t bytes) {
    ASSERT_EQ(offsets.size(), ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
        EXPECT_LE(offsets[i] + ranges[i].bytes, bytes) << "range " << i;
        for (size_t j = i + 1; j < ranges.size(); ++j) {
            const bool together = ranges[i].first <= ranges[j].last && ranges[j].first <= ranges[i].last;
            const bool apart = offsets[i] + ranges[i].bytes <= offsets[j] || offsets[j] + ranges[j].bytes <= offsets[i];
            EXPECT_TRUE(!together || apart) << "ranges " << i << " and " << j;
        }
    }
}

TEST(ActivationArena, LiveRangesNeverShareBytes) {
    std::mt19937 random(7);
    for (int round = 0; round < 200; ++round) {
        std::vector<LiveRange> ranges(std::uniform_int_distribution<size_t>(1, 40)(random));
        for (LiveRange& range : ranges) {
            range.first = std::uniform_int_distribution<int64_t>(0, 30)(random);
            range.last = range.first + std::uniform_int_distribution<int64_t>(0, 8)(random);
            range.bytes = 64 * std::uniform_int_distribution<size_t>(1, 5000)(random);
        }
        size_t bytes = 0;
        const std::vector<size_t> offsets = placeLiveRanges(ranges, &bytes);
        expectDisjointWhileLive(ranges, offsets, bytes);
        EXPECT_GE(bytes, widestLayer(ranges));
    }
}

// MobileNet v2's first blocks on two threads (KB, layers): a block's output lives until the
// next block, or the residual add after it, has read it; each banded stage's band buffers live
// over its layers. Placing the largest first leaves the third block's buffers and outputs
// scattered (427 KB); the arena needs only its widest layer, the second block (351 KB).
TEST(ActivationArena, ResidualBlocksTakeOnlyTheirWidestLayer) {
    const std::vector<LiveRange> ranges = {
            {0, 6, 200'768},  {0, 3, 144'384},  {4, 6, 76'288},  {4, 10, 75'328}, {7, 9, 162'304},
            {7, 10, 75'328},  {10, 13, 75'328}, {11, 13, 97'792}, {11, 17, 25'152},
    };
    size_t bytes = 0;
    const std::vector<size_t> offsets = placeLiveRanges(ranges, &bytes);
    expectDisjointWhileLive(ranges, offsets, bytes);
    EXPECT_EQ(bytes, widestLayer(ranges));
    EXPECT_EQ(bytes, size_t{200'768 + 76'288 + 75'328});
}

}  // namespace
}  // namespace nnemu::synap
