#include "nnemu/hal/Detection.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "nnemu/base/Half.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/ShapeUtils.h"

namespace nnemu::hal::detection {
namespace {

template <typename T>
T load(const uint8_t* data, size_t i) {
    T value;
    std::memcpy(&value, data + i * sizeof(T), sizeof(T));
    return value;
}

template <typename T>
void store(uint8_t* data, size_t i, T value) {
    std::memcpy(data + i * sizeof(T), &value, sizeof(T));
}

template <typename T>
T quantize(float value, const OperandView& operand, float low, float high) {
    const float q = static_cast<float>(operand.zeroPoint) + std::round(value / operand.scale);
    if (!(q >= low)) return static_cast<T>(low);  // also NaN, whose conversion is undefined
    return static_cast<T>(std::min(q, high));
}

float area(const Box& box) { return std::max(box.width(), 0.0f) * std::max(box.height(), 0.0f); }

void sortByDecreasingScore(std::vector<Candidate>* candidates) {
    std::stable_sort(candidates->begin(), candidates->end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
}

std::vector<Candidate> hardSuppression(const std::vector<Candidate>& sorted, const NmsParams& params) {
    std::vector<Candidate> kept;
    std::vector<bool> removed(sorted.size(), false);
    for (size_t i = 0; i < sorted.size(); ++i) {
        if (removed[i]) continue;
        if (params.maxKept >= 0 && kept.size() >= static_cast<size_t>(params.maxKept)) break;
        kept.push_back(sorted[i]);
        for (size_t j = i + 1; j < sorted.size(); ++j) {
            if (!removed[j] && intersectionOverUnion(sorted[i].box, sorted[j].box) >= params.iouThreshold) {
                removed[j] = true;
            }
        }
    }
    return kept;
}

float softDecay(float iou, const NmsParams& params) {
    if (params.kernel == NmsKernel::LINEAR) return iou < params.iouThreshold ? 1.0f : 1.0f - iou;
    return std::exp(-iou * iou / params.sigma);
}

std::vector<Candidate> softSuppression(std::vector<Candidate> remaining, const NmsParams& params) {
    std::vector<Candidate> kept;
    while (!remaining.empty() && (params.maxKept < 0 || kept.size() < static_cast<size_t>(params.maxKept))) {
        // The first of the highest scores, so that equal scores keep their input order.
        const auto best = std::max_element(remaining.begin(), remaining.end(),
                                           [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
        kept.push_back(*best);
        remaining.erase(best);
        for (Candidate& other : remaining) other.score *= softDecay(intersectionOverUnion(kept.back().box, other.box), params);
        std::erase_if(remaining, [&](const Candidate& c) { return !(c.score >= params.scoreThreshold); });
    }
    return kept;
}

struct ProposalInputs {
    Image4 scores, deltas;
    uint32_t anchors = 0;
    std::vector<float> scoreValues, deltaValues, anchorValues, imageInfo;
};

bool readProposalInputs(const OperationContext& context, ProposalInputs* in) {
    const bool nchw = layoutIsNchw(context, 10);
    const OperandView& anchors = context.input(2);
    const OperandView& imageInfo = context.input(3);
    NN_RET_CHECK(context.input(0).rank() == 4 && context.input(1).rank() == 4);
    NN_RET_CHECK(anchors.rank() == 2 && anchors.dim(1) == 4 && imageInfo.rank() == 2 && imageInfo.dim(1) == 2);
    in->scores = makeImage4(context.input(0).dims, nchw);
    in->deltas = makeImage4(context.input(1).dims, nchw);
    in->anchors = anchors.dim(0);
    NN_RET_CHECK(in->scores.channels == in->anchors && uint64_t{in->deltas.channels} == uint64_t{in->anchors} * 4);
    NN_RET_CHECK(in->deltas.batches == in->scores.batches && in->deltas.height == in->scores.height &&
                 in->deltas.width == in->scores.width && imageInfo.dim(0) == in->scores.batches);
    NN_RET_CHECK(readValues(context.input(0), &in->scoreValues));
    NN_RET_CHECK(readValues(context.input(1), &in->deltaValues));
    NN_RET_CHECK(readValues(anchors, &in->anchorValues));
    NN_RET_CHECK(readValues(imageInfo, &in->imageInfo));
    return true;
}

// Every anchor at every position of batch b, decoded and clipped to the image.
std::vector<Candidate> decodeProposals(const ProposalInputs& in, uint32_t b, float heightStride, float widthStride) {
    const float imageHeight = in.imageInfo[b * 2];
    const float imageWidth = in.imageInfo[b * 2 + 1];
    std::vector<Candidate> candidates;
    candidates.reserve(static_cast<size_t>(in.scores.height) * in.scores.width * in.anchors);
    for (uint32_t h = 0; h < in.scores.height; ++h) {
        for (uint32_t w = 0; w < in.scores.width; ++w) {
            for (uint32_t a = 0; a < in.anchors; ++a) {
                Box anchor = boxAt(in.anchorValues, a);
                const float dx = static_cast<float>(w) * widthStride;
                const float dy = static_cast<float>(h) * heightStride;
                anchor = {anchor.x1 + dx, anchor.y1 + dy, anchor.x2 + dx, anchor.y2 + dy};
                float delta[4];
                for (uint32_t k = 0; k < 4; ++k) delta[k] = in.deltaValues[in.deltas.at(b, h, w, a * 4 + k)];
                Candidate candidate;
                candidate.box = transformBox(anchor, delta, imageHeight, imageWidth);
                candidate.score = in.scoreValues[in.scores.at(b, h, w, a)];
                candidate.id = static_cast<uint32_t>(candidates.size());
                candidates.push_back(candidate);
            }
        }
    }
    return candidates;
}

}  // namespace

bool hasBoxQuantization(const OperandView& operand, OperandType type) {
    return operand.type == type && operand.scale == 0.125f && operand.zeroPoint == 0;
}

bool batchIndexesInRange(const OperandView& batchIndex, uint32_t batches) {
    if (batchIndex.data == nullptr) return true;
    NN_RET_CHECK(batchIndex.type == OperandType::TENSOR_INT32);
    for (uint64_t i = 0; i < batchIndex.elements(); ++i) {
        const int32_t b = load<int32_t>(batchIndex.data, i);
        NN_RET_CHECK(b >= 0 && static_cast<uint32_t>(b) < batches);
    }
    return true;
}

bool roisWellFormed(const OperandView& rois) {
    if (rois.data == nullptr) return true;
    std::vector<float> values;
    NN_RET_CHECK(readValues(rois, &values) && values.size() % 4 == 0);
    for (size_t i = 0; i < values.size() / 4; ++i) {
        const Box box = boxAt(values, i);
        NN_RET_CHECK(std::isfinite(box.x1) && std::isfinite(box.y1) && std::isfinite(box.x2) && std::isfinite(box.y2));
        NN_RET_CHECK(box.x1 <= box.x2 && box.y1 <= box.y2);
    }
    return true;
}

bool readValues(const OperandView& operand, std::vector<float>* values) {
    const uint64_t n = operand.elements();
    values->assign(n, 0.0f);
    if (n == 0) return true;
    NN_RET_CHECK(operand.data != nullptr && operand.length >= n * elementSize(operand.type));
    const uint8_t* data = operand.data;
    const auto zeroPoint = static_cast<float>(operand.zeroPoint);
    for (uint64_t i = 0; i < n; ++i) {
        float& v = (*values)[i];
        switch (operand.type) {
            case OperandType::TENSOR_FLOAT32: v = load<float>(data, i); break;
            case OperandType::TENSOR_FLOAT16: v = base::halfToFloat(load<uint16_t>(data, i)); break;
            case OperandType::TENSOR_INT32: v = static_cast<float>(load<int32_t>(data, i)); break;
            case OperandType::TENSOR_QUANT8_ASYMM: v = (data[i] - zeroPoint) * operand.scale; break;
            case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: v = (load<int8_t>(data, i) - zeroPoint) * operand.scale; break;
            case OperandType::TENSOR_QUANT16_ASYMM: v = (load<uint16_t>(data, i) - zeroPoint) * operand.scale; break;
            case OperandType::TENSOR_QUANT16_SYMM: v = load<int16_t>(data, i) * operand.scale; break;
            default: return false;
        }
    }
    return true;
}

void writeValue(OperandView& operand, size_t i, float value) {
    switch (operand.type) {
        case OperandType::TENSOR_FLOAT32: store(operand.data, i, value); break;
        case OperandType::TENSOR_FLOAT16: store(operand.data, i, base::floatToHalf(value)); break;
        case OperandType::TENSOR_QUANT8_ASYMM: operand.data[i] = quantize<uint8_t>(value, operand, 0.0f, 255.0f); break;
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: store(operand.data, i, quantize<int8_t>(value, operand, -128.0f, 127.0f)); break;
        case OperandType::TENSOR_QUANT16_ASYMM: store(operand.data, i, quantize<uint16_t>(value, operand, 0.0f, 65535.0f)); break;
        case OperandType::TENSOR_QUANT16_SYMM: store(operand.data, i, quantize<int16_t>(value, operand, -32768.0f, 32767.0f)); break;
        default: break;
    }
}

Box boxAt(const std::vector<float>& values, size_t index) {
    const float* v = values.data() + index * 4;
    return {v[0], v[1], v[2], v[3]};
}

float intersectionOverUnion(const Box& a, const Box& b) {
    const Box overlap{std::max(a.x1, b.x1), std::max(a.y1, b.y1), std::min(a.x2, b.x2), std::min(a.y2, b.y2)};
    const float intersection = area(overlap);
    const float united = area(a) + area(b) - intersection;
    return united > 0.0f ? intersection / united : 0.0f;
}

Box transformBox(const Box& roi, const float* delta, float imageHeight, float imageWidth) {
    const float width = roi.width();
    const float height = roi.height();
    const float centerX = roi.x1 + width / 2 + delta[0] * width;
    const float centerY = roi.y1 + height / 2 + delta[1] * height;
    const float halfWidth = width * std::exp(delta[2]) / 2;
    const float halfHeight = height * std::exp(delta[3]) / 2;
    auto clipX = [&](float x) { return std::clamp(x, 0.0f, imageWidth); };
    auto clipY = [&](float y) { return std::clamp(y, 0.0f, imageHeight); };
    return {clipX(centerX - halfWidth), clipY(centerY - halfHeight), clipX(centerX + halfWidth),
            clipY(centerY + halfHeight)};
}

std::vector<Candidate> nonMaxSuppression(std::vector<Candidate> candidates, const NmsParams& params) {
    sortByDecreasingScore(&candidates);
    if (params.kernel == NmsKernel::HARD) return hardSuppression(candidates, params);
    return softSuppression(std::move(candidates), params);
}

bool selectBoxesWithNmsLimit(const OperationContext& context, std::vector<Detection>* detections) {
    const OperandView& scores = context.input(0);
    const OperandView& rois = context.input(1);
    const OperandView& batches = context.input(2);
    NN_RET_CHECK(scores.rank() == 2 && rois.rank() == 2 && batches.rank() == 1);
    const uint32_t numRois = scores.dim(0);
    const uint32_t numClasses = scores.dim(1);
    NN_RET_CHECK(rois.dim(0) == numRois && uint64_t{rois.dim(1)} == uint64_t{numClasses} * 4 &&
                 batches.dim(0) == numRois);
    NmsParams nms;
    const auto kernel = context.scalar<int32_t>(5);
    NN_RET_CHECK(kernel >= 0 && kernel <= 2);
    nms.kernel = static_cast<NmsKernel>(kernel);
    nms.iouThreshold = context.scalar<float>(6);
    nms.sigma = context.scalar<float>(7);
    nms.scoreThreshold = context.scalar<float>(8);
    nms.maxKept = context.scalar<int32_t>(4);
    NN_RET_CHECK(nms.kernel != NmsKernel::GAUSSIAN || nms.sigma > 0.0f);
    const float scoreThreshold = context.scalar<float>(3);
    std::vector<float> scoreValues, roiValues;
    NN_RET_CHECK(readValues(scores, &scoreValues) && readValues(rois, &roiValues));
    NN_RET_CHECK(numRois == 0 || batches.data != nullptr);
    const int32_t* batchIndex = batches.as<int32_t>();
    detections->clear();
    for (uint32_t begin = 0, end = 0; begin < numRois; begin = end) {
        NN_RET_CHECK(batchIndex[begin] >= 0);
        while (end < numRois && batchIndex[end] == batchIndex[begin]) ++end;
        std::vector<Detection> batch;
        for (uint32_t c = 1; c < numClasses; ++c) {
            std::vector<Candidate> candidates;
            for (uint32_t i = begin; i < end; ++i) {
                const size_t at = static_cast<size_t>(i) * numClasses + c;
                if (scoreValues[at] >= scoreThreshold) candidates.push_back({boxAt(roiValues, at), scoreValues[at], i});
            }
            for (const Candidate& kept : nonMaxSuppression(std::move(candidates), nms)) {
                batch.push_back({kept.box, kept.score, static_cast<int32_t>(c), batchIndex[begin]});
            }
        }
        if (nms.maxKept >= 0 && batch.size() > static_cast<size_t>(nms.maxKept)) {
            std::stable_sort(batch.begin(), batch.end(),
                             [](const Detection& a, const Detection& b) { return a.score > b.score; });
            batch.resize(static_cast<size_t>(nms.maxKept));
        }
        std::stable_sort(batch.begin(), batch.end(), [](const Detection& a, const Detection& b) {
            return a.classId != b.classId ? a.classId < b.classId : a.score > b.score;
        });
        detections->insert(detections->end(), batch.begin(), batch.end());
    }
    return true;
}

bool selectProposals(const OperationContext& context, std::vector<Detection>* proposals) {
    ProposalInputs in;
    NN_RET_CHECK(readProposalInputs(context, &in));
    const float heightStride = context.scalar<float>(4);
    const float widthStride = context.scalar<float>(5);
    const auto preNms = context.scalar<int32_t>(6);
    const auto postNms = context.scalar<int32_t>(7);
    const float minSize = context.scalar<float>(9);
    NN_RET_CHECK(heightStride > 0.0f && widthStride > 0.0f);
    NmsParams nms;
    nms.iouThreshold = context.scalar<float>(8);
    nms.maxKept = postNms > 0 ? postNms : -1;
    proposals->clear();
    for (uint32_t b = 0; b < in.scores.batches; ++b) {
        std::vector<Candidate> candidates = decodeProposals(in, b, heightStride, widthStride);
        sortByDecreasingScore(&candidates);
        if (preNms > 0 && candidates.size() > static_cast<size_t>(preNms)) candidates.resize(static_cast<size_t>(preNms));
        // Too small, or (only possible when minSize <= 0) an empty box on the image's far edge.
        const float imageHeight = in.imageInfo[b * 2];
        const float imageWidth = in.imageInfo[b * 2 + 1];
        std::erase_if(candidates, [&](const Candidate& c) {
            return !(c.box.width() >= minSize && c.box.height() >= minSize &&
                     c.box.x1 + c.box.width() / 2 < imageWidth && c.box.y1 + c.box.height() / 2 < imageHeight);
        });
        for (const Candidate& kept : nonMaxSuppression(std::move(candidates), nms)) {
            proposals->push_back({kept.box, kept.score, 0, static_cast<int32_t>(b)});
        }
    }
    return true;
}

}  // namespace nnemu::hal::detection
