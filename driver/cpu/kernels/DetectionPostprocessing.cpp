// Reference kernel of DETECTION_POSTPROCESSING (F32, F16; computed in float), the SSD
// post-processing step: decode every anchor's box, then select detections per batch with
// regular NMS (per class, then the best across classes) or fast NMS (once per anchor on its
// best class score, then the anchor's best classes).
//
// Inputs: scores [batches, anchors, classes] where class 0 is background and never selected,
// deltas [batches, anchors, >= 4] as (dy, dx, dh, dw), anchors [anchors, 4] as (cy, cx, h, w).
// Outputs: scores and boxes (y1, x1, y2, x2) of up to maxDetections detections, their class
// labels (background counted or not as label 0, per input 13), and how many were found; the
// unused tail is zero.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Detection.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::detection::Box;
using hal::detection::Candidate;
using hal::detection::NmsParams;

struct Params {
    float scaleY = 1, scaleX = 1, scaleH = 1, scaleW = 1;
    bool regular = false;
    uint32_t maxDetections = 0, maxClassesPerDetection = 0;
    int32_t maxPerClass = 0;
    float scoreThreshold = 0, iouThreshold = 0;
    bool includeBackground = false;
};

struct Entry {
    float score;
    uint32_t anchor;
    uint32_t classId;  // index into the scores' class axis (>= 1)
};

// The scores and boxes of one batch.
struct Batch {
    const float* scores;  // [anchors, classes]
    uint32_t classes;
    std::vector<Box> boxes;
    float score(uint32_t anchor, uint32_t c) const { return scores[static_cast<size_t>(anchor) * classes + c]; }
};

Box decode(const float* delta, const float* anchor, const Params& p) {
    const float centerY = delta[0] / p.scaleY * anchor[2] + anchor[0];
    const float centerX = delta[1] / p.scaleX * anchor[3] + anchor[1];
    const float halfHeight = std::exp(delta[2] / p.scaleH) * anchor[2] / 2;
    const float halfWidth = std::exp(delta[3] / p.scaleW) * anchor[3] / 2;
    return {centerX - halfWidth, centerY - halfHeight, centerX + halfWidth, centerY + halfHeight};
}

// Hard NMS over the anchors whose score(anchor) reaches the threshold.
template <typename Score>
std::vector<Candidate> suppress(const Batch& batch, Score score, const Params& p, int32_t maxKept) {
    std::vector<Candidate> candidates;
    for (uint32_t a = 0; a < batch.boxes.size(); ++a) {
        if (score(a) >= p.scoreThreshold) candidates.push_back({batch.boxes[a], score(a), a});
    }
    NmsParams nms;
    nms.iouThreshold = p.iouThreshold;
    nms.maxKept = maxKept;
    return hal::detection::nonMaxSuppression(std::move(candidates), nms);
}

std::vector<Entry> regularNms(const Batch& batch, const Params& p) {
    std::vector<Entry> entries;
    for (uint32_t c = 1; c < batch.classes; ++c) {
        auto score = [&](uint32_t a) { return batch.score(a, c); };
        for (const Candidate& kept : suppress(batch, score, p, p.maxPerClass)) entries.push_back({kept.score, kept.id, c});
    }
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.score > b.score; });
    if (entries.size() > p.maxDetections) entries.resize(p.maxDetections);
    return entries;
}

// The anchor's foreground classes, best first (lower class first among equal scores).
std::vector<uint32_t> rankClasses(const Batch& batch, uint32_t anchor) {
    std::vector<uint32_t> classes(batch.classes - 1);
    std::iota(classes.begin(), classes.end(), 1u);
    std::stable_sort(classes.begin(), classes.end(),
                     [&](uint32_t a, uint32_t b) { return batch.score(anchor, a) > batch.score(anchor, b); });
    return classes;
}

std::vector<Entry> fastNms(const Batch& batch, const Params& p) {
    std::vector<Entry> entries;
    if (batch.classes < 2) return entries;
    auto bestScore = [&](uint32_t a) {
        float best = batch.score(a, 1);
        for (uint32_t c = 2; c < batch.classes; ++c) best = std::max(best, batch.score(a, c));
        return best;
    };
    const auto perAnchor = std::min<size_t>(p.maxClassesPerDetection, batch.classes - 1);
    for (const Candidate& kept : suppress(batch, bestScore, p, static_cast<int32_t>(p.maxDetections))) {
        const std::vector<uint32_t> classes = rankClasses(batch, kept.id);
        for (size_t j = 0; j < perAnchor && entries.size() < p.maxDetections; ++j) {
            entries.push_back({batch.score(kept.id, classes[j]), kept.id, classes[j]});
        }
    }
    return entries;
}

Params readParams(const OperationContext& context) {
    Params p;
    p.scaleY = context.scalar<float>(3);
    p.scaleX = context.scalar<float>(4);
    p.scaleH = context.scalar<float>(5);
    p.scaleW = context.scalar<float>(6);
    p.regular = context.scalar<bool>(7);
    p.maxDetections = static_cast<uint32_t>(std::max(context.scalar<int32_t>(8), 0));
    p.maxClassesPerDetection = static_cast<uint32_t>(std::max(context.scalar<int32_t>(9), 0));
    p.maxPerClass = context.scalar<int32_t>(10);
    p.scoreThreshold = context.scalar<float>(11);
    p.iouThreshold = context.scalar<float>(12);
    p.includeBackground = context.scalar<bool>(13);
    return p;
}

void writeBatch(OperationContext& context, uint32_t b, const Batch& batch, const std::vector<Entry>& entries,
                const Params& p) {
    using hal::detection::writeValue;
    for (uint32_t i = 0; i < p.maxDetections; ++i) {
        const size_t slot = static_cast<size_t>(b) * p.maxDetections + i;
        const bool found = i < entries.size();
        const Box box = found ? batch.boxes[entries[i].anchor] : Box{};
        writeValue(context.output(0), slot, found ? entries[i].score : 0.0f);
        const float corners[4] = {box.y1, box.x1, box.y2, box.x2};
        for (size_t k = 0; k < 4; ++k) writeValue(context.output(1), slot * 4 + k, corners[k]);
        const int32_t label = found ? static_cast<int32_t>(entries[i].classId) - (p.includeBackground ? 0 : 1) : 0;
        context.output(2).as<int32_t>()[slot] = label;
    }
    context.output(3).as<int32_t>()[b] = static_cast<int32_t>(entries.size());
}

}  // namespace

bool kernels::detectionPostprocessing(OperationContext& context) {
    std::vector<float> scores, deltas, anchors;
    NN_RET_CHECK(hal::detection::readValues(context.input(0), &scores));
    NN_RET_CHECK(hal::detection::readValues(context.input(1), &deltas));
    NN_RET_CHECK(hal::detection::readValues(context.input(2), &anchors));
    const auto& dims = context.input(1).dims;
    NN_RET_CHECK(context.input(0).rank() == 3 && dims.size() == 3 && dims[2] >= 4);
    const uint32_t batches = dims[0], numAnchors = dims[1], boxLength = dims[2];
    const uint32_t classes = context.input(0).dim(2);
    NN_RET_CHECK(anchors.size() == size_t{numAnchors} * 4 && scores.size() == size_t{batches} * numAnchors * classes);
    const Params p = readParams(context);
    NN_RET_CHECK(context.output(0).elements() == uint64_t{batches} * p.maxDetections);
    NN_RET_CHECK(context.output(3).elements() == batches);
    for (uint32_t b = 0; b < batches; ++b) {
        Batch batch{scores.data() + static_cast<size_t>(b) * numAnchors * classes, classes, {}};
        for (uint32_t a = 0; a < numAnchors; ++a) {
            const size_t row = static_cast<size_t>(b) * numAnchors + a;
            batch.boxes.push_back(decode(&deltas[row * boxLength], &anchors[size_t{a} * 4], p));
        }
        writeBatch(context, b, batch, p.regular ? regularNms(batch, p) : fastNms(batch, p), p);
    }
    return true;
}

}  // namespace nnemu::cpu
