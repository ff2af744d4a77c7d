// Reference kernels of ROI_ALIGN and ROI_POOLING (F32, F16, and Q8 feature maps with Q16A
// regions). They compute in float on dequantized values and requantize to the output's own
// parameters. Regions are in image pixels; a feature-map pixel covers `ratio` image pixels.
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
using hal::detection::Box;

// What both operations read: feature map, regions in feature-map pixels, batch indexes.
struct RoiInputs {
    Image4 in, out;
    std::vector<float> input, rois;
    const int32_t* batchIndex = nullptr;
    float heightScale = 1.0f, widthScale = 1.0f;  // feature-map pixels per image pixel

    float at(uint32_t b, uint32_t y, uint32_t x, uint32_t c) const { return input[in.at(b, y, x, c)]; }
    Box region(uint32_t r) const {
        const Box box = hal::detection::boxAt(rois, r);
        return {box.x1 * widthScale, box.y1 * heightScale, box.x2 * widthScale, box.y2 * heightScale};
    }
};

bool readRoiInputs(const OperationContext& context, uint32_t layoutIndex, RoiInputs* p) {
    const bool nchw = hal::layoutIsNchw(context, layoutIndex);
    const hal::OperandView& batchIndex = context.input(2);
    NN_RET_CHECK(context.input(0).rank() == 4 && context.output(0).rank() == 4);
    p->in = hal::makeImage4(context.input(0).dims, nchw);
    p->out = hal::makeImage4(context.output(0).dims, nchw);
    NN_RET_CHECK(p->out.channels == p->in.channels && p->in.height > 0 && p->in.width > 0);
    NN_RET_CHECK(hal::detection::readValues(context.input(0), &p->input));
    NN_RET_CHECK(hal::detection::readValues(context.input(1), &p->rois));
    NN_RET_CHECK(p->rois.size() == size_t{p->out.batches} * 4 && batchIndex.elements() == p->out.batches);
    NN_RET_CHECK(batchIndex.data != nullptr && hal::detection::batchIndexesInRange(batchIndex, p->in.batches));
    NN_RET_CHECK(hal::detection::roisWellFormed(context.input(1)));
    p->batchIndex = batchIndex.as<int32_t>();
    p->heightScale = 1.0f / context.scalar<float>(5);
    p->widthScale = 1.0f / context.scalar<float>(6);
    return true;
}

// Bilinear interpolation of channel c of image b at (y, x); 0 beyond one pixel outside the map,
// edge values up to there.
float interpolate(const RoiInputs& p, uint32_t b, uint32_t c, float y, float x) {
    if (y < -1.0f || y > static_cast<float>(p.in.height) || x < -1.0f || x > static_cast<float>(p.in.width)) {
        return 0.0f;
    }
    struct Axis {
        uint32_t low, high;
        float fraction;
    };
    auto axis = [](float position, uint32_t size) {
        position = std::max(position, 0.0f);
        if (position >= static_cast<float>(size - 1)) return Axis{size - 1, size - 1, 0.0f};
        const auto low = static_cast<uint32_t>(position);
        return Axis{low, low + 1, position - static_cast<float>(low)};
    };
    const Axis ay = axis(y, p.in.height);
    const Axis ax = axis(x, p.in.width);
    const float top = (1 - ax.fraction) * p.at(b, ay.low, ax.low, c) + ax.fraction * p.at(b, ay.low, ax.high, c);
    const float bottom = (1 - ax.fraction) * p.at(b, ay.high, ax.low, c) + ax.fraction * p.at(b, ay.high, ax.high, c);
    return (1 - ay.fraction) * top + ay.fraction * bottom;
}

// Sample i of a bin lies at start + (i + 0.5) * step, i in [0, count). Only samples within
// [-1, size] contribute, so only the indexes that may be there are visited (each is still
// tested exactly): at most about (size + 1) / step + 3 of them however large the region.
struct SampleRange {
    double first = 0.0;
    int64_t count = 0;
};

SampleRange contributingSamples(float start, float step, double count, uint32_t size) {
    const double first = std::clamp(std::floor((-1.0 - start) / step - 0.5) - 1.0, 0.0, count);
    double end = std::min(count, std::ceil((size - static_cast<double>(start)) / step - 0.5) + 2.0);
    end = std::min(end, first + std::ceil((size + 1.0) / step) + 3.0);
    return {first, static_cast<int64_t>(std::max(end - first, 0.0))};
}

// Start and end (exclusive) of bin `index` of `binSize` pixels from `origin`, within the map.
std::pair<uint32_t, uint32_t> poolingBin(uint32_t index, float binSize, float origin, uint32_t size) {
    auto clip = [&](float v) { return static_cast<uint32_t>(std::clamp(v, 0.0f, static_cast<float>(size))); };
    return {clip(std::floor(static_cast<float>(index) * binSize) + origin),
            clip(std::ceil(static_cast<float>(index + 1) * binSize) + origin)};
}

}  // namespace

bool kernels::roiAlign(OperationContext& context) {
    RoiInputs p;
    NN_RET_CHECK(readRoiInputs(context, 9, &p));
    const int32_t samplingHeight = context.scalar<int32_t>(7);
    const int32_t samplingWidth = context.scalar<int32_t>(8);
    NN_RET_CHECK(samplingHeight >= 0 && samplingWidth >= 0);
    hal::OperandView& output = context.output(0);
    for (uint32_t r = 0; r < p.out.batches; ++r) {
        const Box roi = p.region(r);
        const auto b = static_cast<uint32_t>(p.batchIndex[r]);
        const float binHeight = std::max(roi.height(), 1.0f) / static_cast<float>(p.out.height);
        const float binWidth = std::max(roi.width(), 1.0f) / static_cast<float>(p.out.width);
        // Sampling ratio 0: adaptive, about one sample per feature-map pixel.
        const double samplesY = samplingHeight > 0 ? samplingHeight : std::ceil(binHeight);
        const double samplesX = samplingWidth > 0 ? samplingWidth : std::ceil(binWidth);
        const auto stepY = static_cast<float>(binHeight / samplesY);
        const auto stepX = static_cast<float>(binWidth / samplesX);
        for (uint32_t oy = 0; oy < p.out.height; ++oy) {
            const float startY = roi.y1 + static_cast<float>(oy) * binHeight;
            const SampleRange ys = contributingSamples(startY, stepY, samplesY, p.in.height);
            for (uint32_t ox = 0; ox < p.out.width; ++ox) {
                const float startX = roi.x1 + static_cast<float>(ox) * binWidth;
                const SampleRange xs = contributingSamples(startX, stepX, samplesX, p.in.width);
                for (uint32_t c = 0; c < p.out.channels; ++c) {
                    double sum = 0.0;
                    for (int64_t i = 0; i < ys.count; ++i) {
                        const float y = startY + static_cast<float>(ys.first + i + 0.5) * stepY;
                        for (int64_t j = 0; j < xs.count; ++j) {
                            sum += interpolate(p, b, c, y, startX + static_cast<float>(xs.first + j + 0.5) * stepX);
                        }
                    }
                    hal::detection::writeValue(output, p.out.at(r, oy, ox, c),
                                               static_cast<float>(sum / (samplesY * samplesX)));
                }
            }
        }
    }
    return true;
}

// Max pooling over the bins of each region snapped to whole feature-map pixels (both ends
// included); an empty bin outputs 0.
bool kernels::roiPooling(OperationContext& context) {
    RoiInputs p;
    NN_RET_CHECK(readRoiInputs(context, 7, &p));
    hal::OperandView& output = context.output(0);
    for (uint32_t r = 0; r < p.out.batches; ++r) {
        const Box roi = p.region(r);
        const auto b = static_cast<uint32_t>(p.batchIndex[r]);
        const float x1 = std::round(roi.x1), y1 = std::round(roi.y1);
        const float binHeight = std::max(std::round(roi.y2) - y1 + 1, 1.0f) / static_cast<float>(p.out.height);
        const float binWidth = std::max(std::round(roi.x2) - x1 + 1, 1.0f) / static_cast<float>(p.out.width);
        for (uint32_t oy = 0; oy < p.out.height; ++oy) {
            const auto [yBegin, yEnd] = poolingBin(oy, binHeight, y1, p.in.height);
            for (uint32_t ox = 0; ox < p.out.width; ++ox) {
                const auto [xBegin, xEnd] = poolingBin(ox, binWidth, x1, p.in.width);
                for (uint32_t c = 0; c < p.out.channels; ++c) {
                    const bool empty = yBegin >= yEnd || xBegin >= xEnd;
                    float best = empty ? 0.0f : p.at(b, yBegin, xBegin, c);
                    for (uint32_t y = yBegin; y < yEnd; ++y) {
                        for (uint32_t x = xBegin; x < xEnd; ++x) best = std::max(best, p.at(b, y, x, c));
                    }
                    hal::detection::writeValue(output, p.out.at(r, oy, ox, c), best);
                }
            }
        }
    }
    return true;
}

}  // namespace nnemu::cpu
