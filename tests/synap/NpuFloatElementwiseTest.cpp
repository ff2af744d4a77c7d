// Float ADD and SUB of same-shape tensors and float global average pools on synap-npu's own layers
// (core/OwnFloatElementwise.cpp): one operation compiled for synap-npu alone gives nnapi-reference's
// bytes on the same random operands (ADD and SUB round once as the reference does; the average
// sums in the reference's order and divides by the count as it does). With the own float
// convolutions this leaves a float MobileNet no XNNPACK stage.
#include <gtest/gtest.h>

#include <string>

#include "OneOperationModel.h"

namespace nnemu {
namespace {

using test::int32Scalar;
using test::OneOperationModel;

constexpr int32_t kF32 = ANEURALNETWORKS_TENSOR_FLOAT32;

void expectSameAsReference(const OneOperationModel& model) {
    ASSERT_TRUE(model.claimedBy("synap-npu"));
    for (uint32_t seed : {1u, 2u}) {
        const auto inputs = model.randomInputs(seed);
        const auto expected = model.run("nnapi-reference", inputs);
        const auto actual = model.run("synap-npu", inputs);
        ASSERT_FALSE(expected.empty());
        ASSERT_FALSE(actual.empty()) << "synap-npu failed to compile or run it";
        EXPECT_EQ(actual, expected) << "seed " << seed;
    }
}

TEST(NpuFloatElementwise, AddAndSubGiveTheReferenceBytes) {
    for (int32_t op : {ANEURALNETWORKS_ADD, ANEURALNETWORKS_SUB}) {
        for (int32_t activation : {ANEURALNETWORKS_FUSED_NONE, ANEURALNETWORKS_FUSED_RELU, ANEURALNETWORKS_FUSED_RELU6}) {
            // Large enough for several slices over the threads.
            for (std::vector<uint32_t> dims : {std::vector<uint32_t>{1, 5, 7, 3}, std::vector<uint32_t>{2, 56, 56, 24}}) {
                SCOPED_TRACE("op " + std::to_string(op) + " activation " + std::to_string(activation) + " batches " +
                             std::to_string(dims[0]));
                expectSameAsReference(OneOperationModel(op, {{kF32, dims}, {kF32, dims}, int32Scalar(activation)},
                                                        {kF32, dims}));
            }
        }
    }
}

TEST(NpuFloatElementwise, GlobalAverageGivesTheReferenceBytes) {
    for (int32_t activation : {ANEURALNETWORKS_FUSED_NONE, ANEURALNETWORKS_FUSED_RELU6}) {
        for (std::vector<uint32_t> dims : {std::vector<uint32_t>{1, 7, 7, 1280}, std::vector<uint32_t>{2, 3, 5, 17}}) {
            SCOPED_TRACE("activation " + std::to_string(activation) + " channels " + std::to_string(dims[3]));
            expectSameAsReference(OneOperationModel(
                ANEURALNETWORKS_AVERAGE_POOL_2D,
                {{kF32, dims}, int32Scalar(ANEURALNETWORKS_PADDING_VALID), int32Scalar(1), int32Scalar(1),
                 int32Scalar(static_cast<int32_t>(dims[2])), int32Scalar(static_cast<int32_t>(dims[1])),
                 int32Scalar(activation)},
                {kF32, {dims[0], 1, 1, dims[3]}}));
        }
    }
}

}  // namespace
}  // namespace nnemu
