// gtest helpers for the front end's Status and Result<T>: a value a test needs, or a failure that
// carries the message, reported at the caller's line.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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

// Float outputs against real TensorFlow Lite's. TFLite's builtin kernels and nnemu's (the CPU
// path, nnapi-reference, synap-npu's XNNPACK stages) add the same products in other orders and
// use other approximations of exp and tanh, so a result moves by a few roundings of the partial
// sums it was made of. Counted in ULP of the element itself, that is meaningless where terms
// cancel to near zero (a sum of +-1 terms that ends at 1e-6 has partial sums a million times its
// own ULP). The partial sums of one output tensor are bounded by the magnitudes its values reach,
// so the bound is `ulps` units in the last place of the largest magnitude in TFLite's output
// tensor: |got - want| <= ulps * ulp(max |want|). One bound for every test; the whole-model
// tests (RealTfliteModelsTest.cpp) use kModelFloatUlps, since a model rounds once per layer
// where a one-operator model rounds once.
constexpr int kModelFloatUlps = 8;

// Whether real TFLite's XNNPACK runs, on this CPU, the float kernels whose summation order nnemu's
// CPU path reproduces: its AVX-512 ones, taken when the CPU has AVX-512F. Without it XNNPACK runs
// its FMA3 kernels (on AMD Zen of family 17h the "s4" GEMMs, which rotate the inputs within each
// group of four; elsewhere the broadcast ones) and its AVX2 softmax sum, whose orders the CPU path
// does not reproduce (docs/tflite.md, "The CPU path's two semantics").
inline bool xnnpackFloatOrderReproduced() { return __builtin_cpu_supports("avx512f"); }

// What summing the same terms in another order can move a result by, in ULP of the output's
// largest magnitude: each of up to a thousand terms of either sign rounds once in each order
// (measured on a Zen 1 core: up to 52 on the one-operator tests).
constexpr int kReorderedFloatUlps = 128;

// The bound for a float output of the CPU path's XNNPACK forms against real TFLite's XNNPACK:
// the same bits where the order is reproduced, else kReorderedFloatUlps.
inline int xnnpackFloatUlps() { return xnnpackFloatOrderReproduced() ? 0 : kReorderedFloatUlps; }

// The distance between `magnitude` (>= 0, finite) and the next larger value of T.
template <typename T>
double ulpOf(double magnitude) {
    const T m = static_cast<T>(magnitude);
    return static_cast<double>(std::nextafter(m, std::numeric_limits<T>::infinity())) - static_cast<double>(m);
}

// True when `got` may stand for `want` in a tensor whose largest finite magnitude (TFLite's) is
// `largest`: both NaN, equal (infinities included), or within `ulps` ULP of `largest`.
template <typename T>
bool withinFloatBound(T got, T want, double largest, int ulps) {
    if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
    if (got == want) return true;
    if (!std::isfinite(got) || !std::isfinite(want)) return false;
    return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= ulps * ulpOf<T>(largest);
}

}  // namespace nnemu::tflite::test
