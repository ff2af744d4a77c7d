// Status and Result<T>: codes, messages kept byte for byte, the propagation macros.
#include "nnemu/base/Status.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

namespace nnemu {
namespace {

Status failWith(StatusCode code, const std::string& message) { return {code, message}; }

Result<int> half(int n) {
    if (n % 2 != 0) return badData("odd: " + std::to_string(n));
    return n / 2;
}

Result<int> quarter(int n) {
    NNEMU_ASSIGN_OR_RETURN(const int h, half(n));
    NNEMU_ASSIGN_OR_RETURN(const int q, half(h));
    return q;
}

Status checkEven(int n) {
    NNEMU_RETURN_IF_ERROR(half(n));
    return {};
}

Status chain(const Status& first) {
    NNEMU_RETURN_IF_ERROR(first);
    return failWith(StatusCode::BUSY, "second");
}

TEST(StatusTest, DefaultIsOkWithoutMessage) {
    const Status status;
    EXPECT_TRUE(status.isOk());
    EXPECT_TRUE(static_cast<bool>(status));
    EXPECT_EQ(status, StatusCode::OK);
    EXPECT_TRUE(status.message().empty());
    EXPECT_TRUE(Status::ok().isOk());
}

TEST(StatusTest, KeepsCodeAndMessageByteForByte) {
    const std::string message = "line one\n\ttwo: \xff \"quoted\"";
    const Status status = failWith(StatusCode::DAMAGED, message);
    EXPECT_FALSE(status.isOk());
    EXPECT_EQ(status.code(), StatusCode::DAMAGED);
    EXPECT_EQ(status.message(), message);
    const Status copy = status;
    EXPECT_EQ(copy.message(), message);
}

TEST(StatusTest, Prints) {
    std::ostringstream out;
    out << Status(StatusCode::NOT_FOUND, "no entry") << "|" << Status() << "|" << StatusCode::OUT_OF_MEMORY;
    EXPECT_EQ(out.str(), "not found: no entry|ok|out of memory");
}

TEST(StatusTest, EveryCodeHasAName) {
    for (int code = 0; code <= static_cast<int>(StatusCode::BUSY); ++code) {
        EXPECT_STRNE(toString(static_cast<StatusCode>(code)), "unknown") << code;
    }
}

TEST(StatusTest, ReturnIfErrorPassesTheFirstFailureOn) {
    EXPECT_EQ(chain(failWith(StatusCode::BAD_STATE, "first")).message(), "first");
    EXPECT_EQ(chain(Status()).message(), "second");
    EXPECT_TRUE(checkEven(4).isOk());
    EXPECT_EQ(checkEven(3).message(), "odd: 3");
}

TEST(ResultTest, HoldsAValueOrAFailure) {
    const Result<int> good = half(8);
    ASSERT_TRUE(good.isOk());
    EXPECT_EQ(*good, 4);
    EXPECT_TRUE(good.status().isOk());
    EXPECT_TRUE(good.message().empty());

    const Result<int> bad = half(7);
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.code(), StatusCode::BAD_DATA);
    EXPECT_EQ(bad.message(), "odd: 7");
}

TEST(ResultTest, AssignOrReturnStopsAtTheFirstFailure) {
    EXPECT_EQ(*quarter(12), 3);
    EXPECT_EQ(quarter(6).message(), "odd: 3");
    EXPECT_EQ(quarter(5).message(), "odd: 5");
}

TEST(ResultTest, AnOkStatusIsNotAValue) {
    const Result<int> none = Status();
    EXPECT_FALSE(none.isOk());
    EXPECT_EQ(none.code(), StatusCode::OP_FAILED);
}

TEST(ResultTest, MovesOnlyValuesOut) {
    Result<std::unique_ptr<int>> owned = std::make_unique<int>(5);
    ASSERT_TRUE(owned.isOk());
    EXPECT_EQ(*owned->get(), 5);
    std::unique_ptr<int> taken = std::move(owned).value();
    EXPECT_EQ(*taken, 5);
    Result<std::string> text = "converted";
    EXPECT_EQ(*text, "converted");
}

}  // namespace
}  // namespace nnemu
