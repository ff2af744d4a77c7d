// The two conversions of a Status: to NNAPI result codes (runtime/ResultCode.h) and to HAL
// ErrorStatus (nnemu/hal/StatusConversion.h), and their agreement through resultFromStatus.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include "ResultCode.h"
#include "nnemu/hal/StatusConversion.h"

namespace nnemu::runtime {
namespace {

constexpr int kLastCode = static_cast<int>(StatusCode::BUSY);

TEST(ResultCodeTest, EveryNnapiCodeHasItsStatusCode) {
    // The Status codes before NOT_FOUND are the NNAPI result codes, in their order.
    for (int code = 0; code < static_cast<int>(StatusCode::NOT_FOUND); ++code) {
        EXPECT_EQ(toResultCode(static_cast<StatusCode>(code)), code) << toString(static_cast<StatusCode>(code));
    }
    EXPECT_EQ(toResultCode(StatusCode::UNAVAILABLE), ANEURALNETWORKS_UNAVAILABLE_DEVICE);
    EXPECT_EQ(toResultCode(StatusCode::DEAD_OBJECT), ANEURALNETWORKS_DEAD_OBJECT);
    EXPECT_EQ(toResultCode(Status()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(toResultCode(Status(StatusCode::OUT_OF_MEMORY, "x")), ANEURALNETWORKS_OUT_OF_MEMORY);
}

TEST(ResultCodeTest, CacheCodesAreOpFailed) {
    for (StatusCode code : {StatusCode::NOT_FOUND, StatusCode::DAMAGED, StatusCode::BUSY}) {
        EXPECT_EQ(toResultCode(code), ANEURALNETWORKS_OP_FAILED) << toString(code);
    }
}

// A driver's Status reaches the application as the same result code whichever way it goes: as a
// result code directly, or as a HAL ErrorStatus the runtime converts (where the HAL has the code).
TEST(ResultCodeTest, HalRoundTripAgrees) {
    for (int i = 0; i <= kLastCode; ++i) {
        const auto code = static_cast<StatusCode>(i);
        const int direct = toResultCode(code);
        const int throughHal = resultFromStatus(hal::toErrorStatus(code));
        if (direct == ANEURALNETWORKS_NO_ERROR || direct == ANEURALNETWORKS_BAD_DATA ||
            direct == ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE || direct == ANEURALNETWORKS_UNAVAILABLE_DEVICE ||
            direct == ANEURALNETWORKS_DEAD_OBJECT || isMissedDeadline(direct) ||
            direct == ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT ||
            direct == ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT) {
            EXPECT_EQ(throughHal, direct) << toString(code);
        } else {
            // UNEXPECTED_NULL is an invalid argument to a driver; the rest a general failure.
            EXPECT_TRUE(throughHal == ANEURALNETWORKS_OP_FAILED || throughHal == ANEURALNETWORKS_BAD_DATA)
                    << toString(code);
        }
    }
}

}  // namespace
}  // namespace nnemu::runtime
