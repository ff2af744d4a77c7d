// Reference kernel of HEATMAP_MAX_KEYPOINT (F32, F16, and Q8 heatmaps with Q16A boxes;
// computed in float). For each box and keypoint, the heatmap's maximum is refined to sub-pixel
// precision by fitting a quadratic (second-order Taylor expansion) to its 3x3 neighbourhood,
// mirrored at the heatmap's border; the fitted peak gives the score and, mapped from heatmap
// cells onto the box, the keypoint (x, y).
#include <algorithm>
#include <cmath>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Detection.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;

// A peak: cell (row, column), its offset (dy, dx) from the cell's centre, and its value.
struct Peak {
    uint32_t row = 0, column = 0;
    float dy = 0.0f, dx = 0.0f, value = 0.0f;
};

// Fits f(d) = f0 + g.d + d'Hd/2 to grid (rows y, columns x, centre [1][1]) and moves the
// peak to its stationary point -inv(H) g. An offset over 1.5 cells leaves the neighbourhood:
// it is scaled back to 1.5 along its longer axis. A determinant within `tolerance` of its
// terms counts as singular: no refinement.
void refine(const float grid[3][3], float tolerance, Peak* peak) {
    const float gx = (grid[1][2] - grid[1][0]) / 2;
    const float gy = (grid[2][1] - grid[0][1]) / 2;
    const float hxx = grid[1][0] - 2 * grid[1][1] + grid[1][2];
    const float hyy = grid[0][1] - 2 * grid[1][1] + grid[2][1];
    const float hxy = (grid[2][2] - grid[2][0] - grid[0][2] + grid[0][0]) / 4;
    const float determinant = hxx * hyy - hxy * hxy;
    peak->value = grid[1][1];
    if (std::abs(determinant) <= tolerance * (std::abs(hxx * hyy) + hxy * hxy)) return;
    float dx = (hxy * gy - hyy * gx) / determinant;
    float dy = (hxy * gx - hxx * gy) / determinant;
    const float largest = std::max(std::abs(dx), std::abs(dy));
    if (largest > 1.5f) {
        dx *= 1.5f / largest;
        dy *= 1.5f / largest;
    }
    peak->dx = dx;
    peak->dy = dy;
    peak->value += gx * dx + gy * dy + (hxx * dx * dx + 2 * hxy * dx * dy + hyy * dy * dy) / 2;
}

// The first maximum of keypoint k's heatmap for box n, refined.
Peak findPeak(const std::vector<float>& heatmaps, const Image4& map, uint32_t n, uint32_t k, float tolerance) {
    Peak peak;
    float best = heatmaps[map.at(n, 0, 0, k)];
    for (uint32_t y = 0; y < map.height; ++y) {
        for (uint32_t x = 0; x < map.width; ++x) {
            if (heatmaps[map.at(n, y, x, k)] > best) {
                best = heatmaps[map.at(n, y, x, k)];
                peak.row = y;
                peak.column = x;
            }
        }
    }
    // A neighbour beyond the border mirrors the one on the other side of the peak.
    auto mirror = [](uint32_t centre, int offset, uint32_t size) {
        const int64_t i = int64_t{centre} + offset;
        return static_cast<uint32_t>(i < 0 || i >= size ? int64_t{centre} - offset : i);
    };
    float grid[3][3];
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            grid[dy + 1][dx + 1] = heatmaps[map.at(n, mirror(peak.row, dy, map.height),
                                                   mirror(peak.column, dx, map.width), k)];
        }
    }
    refine(grid, tolerance, &peak);
    return peak;
}

}  // namespace

bool kernels::heatmapMaxKeypoint(OperationContext& context) {
    const Image4 map = hal::makeImage4(context.input(0).dims, hal::layoutIsNchw(context, 2));
    NN_RET_CHECK(context.input(0).rank() == 4 && map.height >= 2 && map.width == map.height);
    std::vector<float> heatmaps, boxes;
    NN_RET_CHECK(hal::detection::readValues(context.input(0), &heatmaps));
    NN_RET_CHECK(hal::detection::readValues(context.input(1), &boxes));
    NN_RET_CHECK(boxes.size() == size_t{map.batches} * 4);
    NN_RET_CHECK(context.output(0).elements() == uint64_t{map.batches} * map.channels);
    NN_RET_CHECK(context.output(1).elements() == uint64_t{map.batches} * map.channels * 2);
    // Half-precision heatmaps carry about three significant digits, so their fit is singular
    // sooner.
    const float tolerance = context.inputType(0) == hal::OperandType::TENSOR_FLOAT16 ? 1e-3f : 1e-5f;
    const auto size = static_cast<float>(map.width);
    for (uint32_t n = 0; n < map.batches; ++n) {
        const hal::detection::Box box = hal::detection::boxAt(boxes, n);
        const float cellWidth = std::max(box.width(), 1.0f) / size;
        const float cellHeight = std::max(box.height(), 1.0f) / size;
        for (uint32_t k = 0; k < map.channels; ++k) {
            const Peak peak = findPeak(heatmaps, map, n, k, tolerance);
            const size_t i = size_t{n} * map.channels + k;
            hal::detection::writeValue(context.output(0), i, peak.value);
            hal::detection::writeValue(context.output(1), i * 2,
                                       box.x1 + (static_cast<float>(peak.column) + peak.dx + 0.5f) * cellWidth);
            hal::detection::writeValue(context.output(1), i * 2 + 1,
                                       box.y1 + (static_cast<float>(peak.row) + peak.dy + 0.5f) * cellHeight);
        }
    }
    return true;
}

}  // namespace nnemu::cpu
