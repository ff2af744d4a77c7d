// quant::quantizeSaturatedFloat (the quantized SOFTMAX's output step) against quantizeSaturated,
// the C library's round in double: equal over a dense sweep of float bit patterns of both signs
// (every 61st), at the halves and their neighbours, the clamp limit, infinities and NaN, for
// the 8-bit types' ranges and zero points and for a range wide enough that nothing clamps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "nnemu/kernels/QuantMath.h"

namespace nnemu::quant {
namespace {

struct Range {
    int32_t zeroPoint, qmin, qmax;
};

TEST(QuantizeFloat, EqualsRoundInDouble) {
    constexpr int32_t kWide = 1 << 29;
    const Range ranges[] = {{0, 0, 255}, {-128, -128, 127}, {37, 0, 255}, {0, -kWide, kWide}, {-1000, -kWide, kWide}};
    std::vector<float> values;
    for (float half : {0.5f, 1.5f, 2.5f, 127.5f, 255.5f, 4194304.5f, 8388607.5f, 8388608.0f, 1073741824.0f}) {
        for (float v : {half, std::nextafter(half, 0.0f), std::nextafter(half, 1e30f)}) {
            values.push_back(v);
            values.push_back(-v);
        }
    }
    values.insert(values.end(), {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()});
    for (const Range& r : ranges) {
        size_t mismatches = 0;
        const auto check = [&](float v) {
            const int32_t want = quantizeSaturated(v, r.zeroPoint, r.qmin, r.qmax);
            const int32_t got = quantizeSaturatedFloat(v, r.zeroPoint, r.qmin, r.qmax);
            if (got != want && ++mismatches <= 5) {
                ADD_FAILURE() << "v=" << v << " zero point " << r.zeroPoint << ": " << got << " != " << want;
            }
        };
        for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 61) {
            const uint32_t b = static_cast<uint32_t>(bits);
            float v;
            std::memcpy(&v, &b, sizeof v);
            check(v);
        }
        for (float v : values) check(v);
        EXPECT_EQ(mismatches, 0u);
    }
}

}  // namespace
}  // namespace nnemu::quant
