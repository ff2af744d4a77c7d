// Feature level 30 deadlines inside the runtime and the HAL: the ErrorStatus -> result code
// table, deadline arithmetic, and the HAL defaults that refuse work whose deadline has passed.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <chrono>

#include "ExecutionPlan.h"
#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/Device.h"

namespace nnemu {
namespace {

using hal::ErrorStatus;
using Clock = std::chrono::steady_clock;

TEST(DeadlineTest, FeatureLevel30StatusesMapOneToOne) {
    EXPECT_EQ(runtime::resultFromStatus(ErrorStatus::MISSED_DEADLINE_TRANSIENT), ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT);
    EXPECT_EQ(runtime::resultFromStatus(ErrorStatus::MISSED_DEADLINE_PERSISTENT),
              ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT);
    EXPECT_EQ(runtime::resultFromStatus(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT),
              ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT);
    EXPECT_EQ(runtime::resultFromStatus(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT),
              ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT);
    EXPECT_EQ(runtime::resultFromStatus(ErrorStatus::DEAD_OBJECT), ANEURALNETWORKS_DEAD_OBJECT);
    EXPECT_EQ(runtime::resultFromStatus(ErrorStatus::GENERAL_FAILURE), ANEURALNETWORKS_OP_FAILED);
}

TEST(DeadlineTest, DeadlineArithmetic) {
    const auto from = Clock::now();
    EXPECT_EQ(hal::deadlineAfter(0, from), from);
    EXPECT_EQ(hal::deadlineAfter(5, from), from + std::chrono::nanoseconds(5));
    EXPECT_FALSE(hal::deadlineAfter(UINT64_MAX, from).has_value());  // beyond the clock: none
    EXPECT_FALSE(hal::deadlinePassed(std::nullopt));
    EXPECT_TRUE(hal::deadlinePassed(Clock::time_point::min()));
    EXPECT_FALSE(hal::deadlinePassed(Clock::time_point::max()));
}

class CountingPreparedModel final : public hal::IPreparedModel {
public:
    int runs = 0;
    std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> executeSynchronously(
            const hal::Request&, hal::MeasureTiming) override {
        ++runs;
        return {ErrorStatus::NONE, {}, {}};
    }
};

TEST(DeadlineTest, DefaultExecuteRefusesAPassedDeadlineWithoutRunning) {
    CountingPreparedModel prepared;
    const hal::Request request;
    EXPECT_EQ(std::get<0>(prepared.execute(request, hal::MeasureTiming::NO, Clock::time_point::min())),
              ErrorStatus::MISSED_DEADLINE_PERSISTENT);
    EXPECT_EQ(prepared.runs, 0);
    EXPECT_EQ(std::get<0>(prepared.execute(request, hal::MeasureTiming::NO, std::nullopt)), ErrorStatus::NONE);
    EXPECT_EQ(prepared.runs, 1);
}

TEST(DeadlineTest, ReferenceExecutorRefusesAPassedDeadlineBeforeBinding) {
    const hal::Model model;
    const hal::Request request;
    EXPECT_EQ(std::get<0>(cpu::executeModel(model, request, Clock::time_point::min())),
              ErrorStatus::MISSED_DEADLINE_PERSISTENT);
    EXPECT_EQ(std::get<0>(cpu::executeModel(model, request, Clock::time_point::max())), ErrorStatus::NONE);
}

}  // namespace
}  // namespace nnemu
