// gtest helpers for the front end's Status and Result<T>: a value a test needs, or a failure that
// carries the message, reported at the caller's line.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "nnemu/base/Status.h"

namespace nnemu::tflite::test {

// The caller's place, taken by default arguments (std::source_location needs clang 15; GCC and
// clang both give __builtin_FILE and __builtin_LINE the call's place there).
struct CallSite {
    const char* file = __builtin_FILE();
    int line = __builtin_LINE();
};

// The value, or a non-fatal failure with the message and T{} (a null pointer for the front end's
// factories): `auto model = expectValue(Model::load(path)); ASSERT_NE(model, nullptr);`.
template <typename T>
T expectValue(Result<T> result, CallSite where = {}) {
    if (result.isOk()) return std::move(result).value();
    ADD_FAILURE_AT(where.file, where.line) << result.message();
    return T{};
}

// The message of a failure the test expects; a non-fatal failure when there is none.
template <typename T>
std::string failureOf(const Result<T>& result, CallSite where = {}) {
    if (result.isOk()) ADD_FAILURE_AT(where.file, where.line) << "expected a failure";
    return result.message();
}
inline std::string failureOf(const Status& status, CallSite where = {}) {
    if (status.isOk()) ADD_FAILURE_AT(where.file, where.line) << "expected a failure";
    return status.message();
}

// For ASSERT_TRUE / EXPECT_TRUE: success, or a failure that prints the message.
inline ::testing::AssertionResult isOk(const Status& status) {
    if (status.isOk()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << status.message();
}

}  // namespace nnemu::tflite::test
