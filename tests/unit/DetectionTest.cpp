// Detection and region-of-interest operations on the reference executor: malformed inputs
// (region counts, batch indexes, parameters) fail the execution cleanly, data-dependent output
// sizes come out right, and the shared NMS behaves as documented.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "SingleOperation.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Detection.h"
#include "nnemu/hal/OperandTypes.h"

namespace nnemu {
namespace {

using hal::ErrorStatus;
using hal::OperandType;
using hal::OperationType;

// One operation whose tensors are model inputs (so prepare sees their data only at execution)
// and whose scalars are constants, run on the reference executor by runSingleOperation.
class OneOperation {
public:
    explicit OneOperation(OperationType type) : operation_{type, {}, {}} {}

    template <typename T>
    OneOperation& input(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                        float scale = 0.0f, int32_t zeroPoint = 0) {
        operation_.inputs.push_back(testing::tensor(type, std::move(dims), values, true, scale, zeroPoint));
        return *this;
    }

    template <typename T>
    OneOperation& scalar(OperandType type, T value) {
        operation_.inputs.push_back(testing::scalar(type, value));
        return *this;
    }

    // An output of unknown rank.
    OneOperation& output(OperandType type, float scale = 0.0f, int32_t zeroPoint = 0) {
        operation_.outputs.push_back(testing::output(type, {}, 0, scale, zeroPoint));
        return *this;
    }

    // Validates the model, then runs it with every output given `outputBytes` bytes.
    ErrorStatus run(size_t outputBytes = 4096) {
        for (auto& out : operation_.outputs) out.bytes.assign(outputBytes, 0);
        result_ = operation_.run();
        return result_.valid ? result_.status : ErrorStatus::INVALID_ARGUMENT;
    }

    std::vector<uint32_t> dims(size_t output) const { return result_.dims.at(output); }
    template <typename T>
    T value(size_t output, size_t i) const {
        return result_.values<T>(output).at(i);
    }

private:
    testing::SingleOperation operation_;
    testing::RunResult result_;
};

constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;

// ROI_ALIGN or ROI_POOLING over a [1, 4, 4, 1] map of ones with the given regions and batch
// indexes, a 2x2 output and unit scales; the caller adds the remaining inputs.
OneOperation roiOverMap(OperationType type, const std::vector<float>& rois, const std::vector<int32_t>& batches) {
    OneOperation op(type);
    op.input(kF32, {1, 4, 4, 1}, std::vector<float>(16, 1.0f))
            .input(kF32, {static_cast<uint32_t>(rois.size() / 4), 4}, rois)
            .input(kI32, {static_cast<uint32_t>(batches.size())}, batches)
            .scalar(OperandType::INT32, int32_t{2})
            .scalar(OperandType::INT32, int32_t{2})
            .scalar(OperandType::FLOAT32, 1.0f)
            .scalar(OperandType::FLOAT32, 1.0f);
    return op;
}

// ROI_ALIGN over a [1, 4, 4, 1] map with the given regions and batch indexes.
OneOperation roiAlign(const std::vector<float>& rois, const std::vector<int32_t>& batches, int32_t sampling = 2) {
    OneOperation op = roiOverMap(OperationType::ROI_ALIGN, rois, batches);
    op.scalar(OperandType::INT32, sampling)
            .scalar(OperandType::INT32, sampling)
            .scalar(OperandType::BOOL, uint8_t{0})
            .output(kF32);
    return op;
}

TEST(RoiAlign, AveragesInsideTheMap) {
    OneOperation op = roiAlign({0, 0, 2, 2}, {0});
    ASSERT_EQ(op.run(), ErrorStatus::NONE);
    EXPECT_EQ(op.dims(0), (std::vector<uint32_t>{1, 2, 2, 1}));
    for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(op.value<float>(0, i), 1.0f);
}

TEST(RoiAlign, RejectsABatchIndexOutOfRange) {
    EXPECT_EQ(roiAlign({0, 0, 2, 2}, {1}).run(), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(roiAlign({0, 0, 2, 2}, {-1}).run(), ErrorStatus::GENERAL_FAILURE);
}

TEST(RoiAlign, RejectsRegionAndBatchIndexCountsThatDiffer) {
    EXPECT_EQ(roiAlign({0, 0, 2, 2, 1, 1, 3, 3}, {0}).run(), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(roiAlign({0, 0, 2, 2}, {0, 0}).run(), ErrorStatus::GENERAL_FAILURE);
}

TEST(RoiAlign, RejectsInvertedOrNonFiniteRegions) {
    EXPECT_EQ(roiAlign({2, 0, 1, 2}, {0}).run(), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(roiAlign({0, 0, 2, std::numeric_limits<float>::infinity()}, {0}).run(), ErrorStatus::GENERAL_FAILURE);
}

TEST(RoiAlign, AdaptiveSamplingOfAHugeRegionStaysCheap) {
    const auto start = std::chrono::steady_clock::now();
    OneOperation op = roiAlign({-1e30f, -1e30f, 1e30f, 1e30f}, {0}, 0);
    ASSERT_EQ(op.run(), ErrorStatus::NONE);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_NEAR(op.value<float>(0, 0), 0.0f, 1e-6f);  // the map is a vanishing part of each bin
}

TEST(RoiPooling, RejectsANegativeBatchIndexAndAMissingRegion) {
    auto pooling = [](const std::vector<float>& rois, const std::vector<int32_t>& batches) {
        OneOperation op = roiOverMap(OperationType::ROI_POOLING, rois, batches);
        op.scalar(OperandType::BOOL, uint8_t{0}).output(kF32);
        return op.run();
    };
    EXPECT_EQ(pooling({0, 0, 3, 3}, {0}), ErrorStatus::NONE);
    EXPECT_EQ(pooling({0, 0, 3, 3}, {-2}), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(pooling({0, 0, 3, 3}, {0, 0}), ErrorStatus::GENERAL_FAILURE);
}

OneOperation bboxTransform(const std::vector<float>& deltas, uint32_t deltaRows, const std::vector<int32_t>& batches) {
    OneOperation op(OperationType::AXIS_ALIGNED_BBOX_TRANSFORM);
    op.input(kF32, {2, 4}, std::vector<float>{0, 0, 10, 10, 5, 5, 20, 20})
            .input(kF32, {deltaRows, static_cast<uint32_t>(deltas.size() / deltaRows)}, deltas)
            .input(kI32, {static_cast<uint32_t>(batches.size())}, batches)
            .input(kF32, {1, 2}, std::vector<float>{32, 32})
            .output(kF32);
    return op;
}

TEST(AxisAlignedBboxTransform, DecodesAndClipsToTheImage) {
    OneOperation op = bboxTransform({0, 0, 0, 0, 1, 1, 0, 0}, 2, {0, 0});
    ASSERT_EQ(op.run(), ErrorStatus::NONE);
    EXPECT_EQ(op.dims(0), (std::vector<uint32_t>{2, 4}));
    const float expected[8] = {0, 0, 10, 10, 20, 20, 32, 32};  // the second moved by its size, clipped
    for (size_t i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(op.value<float>(0, i), expected[i]) << i;
}

TEST(AxisAlignedBboxTransform, RejectsBadBatchIndexesAndRowCounts) {
    EXPECT_EQ(bboxTransform(std::vector<float>(8, 0.0f), 2, {0, 1}).run(), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(bboxTransform(std::vector<float>(12, 0.0f), 3, {0, 0}).run(), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(bboxTransform(std::vector<float>(6, 0.0f), 2, {0, 0}).run(), ErrorStatus::GENERAL_FAILURE);
}

// Two classes (background and one) over the given boxes, all in batch 0 unless given.
OneOperation boxWithNmsLimit(const std::vector<float>& scores, const std::vector<float>& boxes, int32_t maxDetections,
                             int32_t kernel = 0, std::vector<int32_t> batches = {}, uint32_t boxColumns = 8) {
    const auto n = static_cast<uint32_t>(scores.size() / 2);
    if (batches.empty()) batches.assign(n, 0);
    OneOperation op(OperationType::BOX_WITH_NMS_LIMIT);
    op.input(kF32, {n, 2}, scores)
            .input(kF32, {static_cast<uint32_t>(boxes.size() / boxColumns), boxColumns}, boxes)
            .input(kI32, {static_cast<uint32_t>(batches.size())}, batches)
            .scalar(OperandType::FLOAT32, 0.3f)
            .scalar(OperandType::INT32, maxDetections)
            .scalar(OperandType::INT32, kernel)
            .scalar(OperandType::FLOAT32, 0.5f)
            .scalar(OperandType::FLOAT32, 1.0f)
            .scalar(OperandType::FLOAT32, 0.3f)
            .output(kF32)
            .output(kF32)
            .output(kI32)
            .output(kI32);
    return op;
}

// Box i of class 1 is [x, 0, x + 10, 10]; class 0's box is unused.
std::vector<float> rowBoxes(const std::vector<float>& xs) {
    std::vector<float> boxes;
    for (float x : xs) boxes.insert(boxes.end(), {0, 0, 0, 0, x, 0, x + 10, 10});
    return boxes;
}

TEST(BoxWithNmsLimit, OutputLengthFollowsTheData) {
    // Boxes 0 and 1 overlap (IoU 9/11), box 2 stands apart, box 3 scores under the threshold.
    OneOperation op = boxWithNmsLimit({0, 0.9f, 0, 0.8f, 0, 0.7f, 0, 0.1f}, rowBoxes({0, 1, 50, 80}), -1);
    ASSERT_EQ(op.run(), ErrorStatus::NONE);
    EXPECT_EQ(op.dims(0), std::vector<uint32_t>{2});
    EXPECT_EQ(op.dims(1), (std::vector<uint32_t>{2, 4}));
    EXPECT_FLOAT_EQ(op.value<float>(0, 0), 0.9f);
    EXPECT_FLOAT_EQ(op.value<float>(0, 1), 0.7f);
    EXPECT_FLOAT_EQ(op.value<float>(1, 4), 50.0f);
    EXPECT_EQ(op.value<int32_t>(2, 0), 1);
}

TEST(BoxWithNmsLimit, MaxDetectionsLimitsEachBatchAndZeroGivesZeroSizedOutputs) {
    OneOperation limited = boxWithNmsLimit({0, 0.9f, 0, 0.8f, 0, 0.7f}, rowBoxes({0, 50, 100}), 2);
    ASSERT_EQ(limited.run(), ErrorStatus::NONE);
    EXPECT_EQ(limited.dims(0), std::vector<uint32_t>{2});
    OneOperation perBatch = boxWithNmsLimit({0, 0.9f, 0, 0.8f, 0, 0.7f}, rowBoxes({0, 50, 100}), 1, 0, {0, 0, 3});
    ASSERT_EQ(perBatch.run(), ErrorStatus::NONE);
    EXPECT_EQ(perBatch.dims(0), std::vector<uint32_t>{2});
    EXPECT_EQ(perBatch.value<int32_t>(3, 1), 3);
    OneOperation none = boxWithNmsLimit({0, 0.9f}, rowBoxes({0}), 0);
    ASSERT_EQ(none.run(), ErrorStatus::NONE);
    EXPECT_EQ(none.dims(0), std::vector<uint32_t>{0});
    EXPECT_EQ(none.dims(1), (std::vector<uint32_t>{0, 4}));
}

TEST(BoxWithNmsLimit, ReportsTheOutputSizeItNeeds) {
    OneOperation op = boxWithNmsLimit({0, 0.9f, 0, 0.8f}, rowBoxes({0, 50}), -1);
    ASSERT_EQ(op.run(4), ErrorStatus::OUTPUT_INSUFFICIENT_SIZE);
    EXPECT_EQ(op.dims(0), std::vector<uint32_t>{2});
}

TEST(BoxWithNmsLimit, RejectsMalformedInputs) {
    // Box columns are not 4 per class.
    EXPECT_EQ(boxWithNmsLimit({0, 0.9f}, {0, 0, 1, 1}, -1, 0, {}, 4).run(), ErrorStatus::GENERAL_FAILURE);
    // Fewer batch indexes than boxes, a negative batch index, an unknown NMS kernel (a value:
    // the execution refuses it, not the model).
    EXPECT_EQ(boxWithNmsLimit({0, 0.9f, 0, 0.8f}, rowBoxes({0, 50}), -1, 0, {0}).run(), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(boxWithNmsLimit({0, 0.9f}, rowBoxes({0}), -1, 0, {-1}).run(), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(boxWithNmsLimit({0, 0.9f}, rowBoxes({0}), -1, 3).run(), ErrorStatus::GENERAL_FAILURE);
}

// The kernel run on a context that prepare() did not fill selects the same boxes.
TEST(BoxWithNmsLimit, KernelWithoutPrepareRecomputesTheSelection) {
    const std::vector<float> scores = {0, 0.9f, 0, 0.8f, 0, 0.7f};
    std::vector<float> boxes = rowBoxes({0, 1, 50});
    std::vector<int32_t> batches = {0, 0, 0};
    hal::OperationContext context;
    context.type = OperationType::BOX_WITH_NMS_LIMIT;
    auto tensor = [](OperandType type, std::vector<uint32_t> dims, const void* data, size_t length) {
        hal::OperandView view;
        view.type = type;
        view.dims = std::move(dims);
        view.data = static_cast<uint8_t*>(const_cast<void*>(data));
        view.length = length;
        return view;
    };
    context.inputs.push_back(tensor(kF32, {3, 2}, scores.data(), 24));
    context.inputs.push_back(tensor(kF32, {3, 8}, boxes.data(), 96));
    context.inputs.push_back(tensor(kI32, {3}, batches.data(), 12));
    const float scoreThreshold = 0.3f, iouThreshold = 0.5f, sigma = 1.0f, nmsScoreThreshold = 0.3f;
    const int32_t maxDetections = -1, hardKernel = 0;
    const std::pair<OperandType, const void*> scalars[] = {
            {OperandType::FLOAT32, &scoreThreshold}, {OperandType::INT32, &maxDetections},
            {OperandType::INT32, &hardKernel},       {OperandType::FLOAT32, &iouThreshold},
            {OperandType::FLOAT32, &sigma},          {OperandType::FLOAT32, &nmsScoreThreshold}};
    for (const auto& [type, value] : scalars) context.inputs.push_back(tensor(type, {}, value, 4));
    for (OperandType type : {kF32, kF32, kI32, kI32}) context.outputs.push_back(tensor(type, {}, nullptr, 0));
    const hal::OperationSignature* signature = hal::findSignature(OperationType::BOX_WITH_NMS_LIMIT);
    ASSERT_TRUE(hal::prepareOperation(*signature, context));
    ASSERT_EQ(context.output(0).dims, std::vector<uint32_t>{2});
    context.prepared.reset();
    std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(8), std::vector<uint8_t>(32),
                                                 std::vector<uint8_t>(8), std::vector<uint8_t>(8)};
    for (size_t i = 0; i < 4; ++i) {
        context.outputs[i].data = buffers[i].data();
        context.outputs[i].length = buffers[i].size();
    }
    ASSERT_TRUE(cpu::findKernel(OperationType::BOX_WITH_NMS_LIMIT)(context));
    float kept[2];
    std::memcpy(kept, buffers[0].data(), sizeof kept);
    EXPECT_FLOAT_EQ(kept[0], 0.9f);
    EXPECT_FLOAT_EQ(kept[1], 0.7f);
}

OneOperation generateProposals(uint32_t anchorRows) {
    OneOperation op(OperationType::GENERATE_PROPOSALS);
    op.input(kF32, {1, 2, 2, 1}, std::vector<float>{0.9f, 0.8f, 0.7f, 0.6f})
            .input(kF32, {1, 2, 2, 4}, std::vector<float>(16, 0.0f))
            .input(kF32, {anchorRows, 4}, std::vector<float>(anchorRows * 4, 0.0f))
            .input(kF32, {1, 2}, std::vector<float>{64, 64})
            .scalar(OperandType::FLOAT32, 16.0f)
            .scalar(OperandType::FLOAT32, 16.0f)
            .scalar(OperandType::INT32, int32_t{-1})
            .scalar(OperandType::INT32, int32_t{-1})
            .scalar(OperandType::FLOAT32, 0.5f)
            .scalar(OperandType::FLOAT32, 0.0f)
            .scalar(OperandType::BOOL, uint8_t{0})
            .output(kF32)
            .output(kF32)
            .output(kI32);
    return op;
}

TEST(GenerateProposals, RejectsAnAnchorCountThatDiffersFromTheScores) {
    EXPECT_EQ(generateProposals(2).run(), ErrorStatus::GENERAL_FAILURE);
}

TEST(HeatmapMaxKeypoint, RejectsNonSquareHeatmapsAndMissingBoxes) {
    auto heatmap = [](std::vector<uint32_t> dims, uint32_t boxes) {
        OneOperation op(OperationType::HEATMAP_MAX_KEYPOINT);
        op.input(kF32, dims, std::vector<float>(hal::elementCount(dims), 1.0f))
                .input(kF32, {boxes, 4}, std::vector<float>(boxes * 4, 1.0f))
                .scalar(OperandType::BOOL, uint8_t{0})
                .output(kF32)
                .output(kF32);
        return op.run();
    };
    EXPECT_EQ(heatmap({1, 3, 3, 2}, 1), ErrorStatus::NONE);
    EXPECT_EQ(heatmap({1, 3, 4, 2}, 1), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(heatmap({1, 1, 1, 2}, 1), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(heatmap({2, 3, 3, 2}, 1), ErrorStatus::GENERAL_FAILURE);
}

TEST(DetectionPostprocessing, RejectsNoDetectionsAndMismatchedAnchors) {
    auto postprocess = [](int32_t maxDetections, uint32_t anchors) {
        OneOperation op(OperationType::DETECTION_POSTPROCESSING);
        op.input(kF32, {1, 2, 3}, std::vector<float>(6, 0.5f))
                .input(kF32, {1, 2, 4}, std::vector<float>(8, 0.0f))
                .input(kF32, {anchors, 4}, std::vector<float>(anchors * 4, 1.0f));
        for (int i = 0; i < 4; ++i) op.scalar(OperandType::FLOAT32, 10.0f);
        op.scalar(OperandType::BOOL, uint8_t{1})
                .scalar(OperandType::INT32, maxDetections)
                .scalar(OperandType::INT32, int32_t{1})
                .scalar(OperandType::INT32, int32_t{1})
                .scalar(OperandType::FLOAT32, 0.0f)
                .scalar(OperandType::FLOAT32, 0.5f)
                .scalar(OperandType::BOOL, uint8_t{0})
                .output(kF32)
                .output(kF32)
                .output(kI32)
                .output(kI32);
        return op.run();
    };
    EXPECT_EQ(postprocess(3, 2), ErrorStatus::NONE);
    EXPECT_EQ(postprocess(0, 2), ErrorStatus::GENERAL_FAILURE);
    EXPECT_EQ(postprocess(3, 3), ErrorStatus::GENERAL_FAILURE);
}

TEST(NonMaxSuppression, HardKeepsEqualScoresInInputOrderAndSoftDecays) {
    using hal::detection::Candidate;
    const std::vector<Candidate> candidates = {
            {{0, 0, 10, 10}, 0.5f, 0}, {{20, 0, 30, 10}, 0.9f, 1}, {{0, 0, 10, 10}, 0.5f, 2}};
    hal::detection::NmsParams hard;
    hard.iouThreshold = 0.5f;
    auto kept = hal::detection::nonMaxSuppression(candidates, hard);
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept[0].id, 1u);
    EXPECT_EQ(kept[1].id, 0u);  // the identical box 2 is suppressed by box 0
    hal::detection::NmsParams linear = hard;
    linear.kernel = hal::detection::NmsKernel::LINEAR;
    linear.scoreThreshold = 0.1f;
    kept = hal::detection::nonMaxSuppression(candidates, linear);
    ASSERT_EQ(kept.size(), 2u);  // box 2's score decays by 1 - IoU = 0, under the threshold
    linear.scoreThreshold = 0.0f;
    kept = hal::detection::nonMaxSuppression(candidates, linear);
    ASSERT_EQ(kept.size(), 3u);
    EXPECT_FLOAT_EQ(kept[2].score, 0.0f);
}

}  // namespace
}  // namespace nnemu
