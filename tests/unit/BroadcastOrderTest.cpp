// hal::forEachBroadcast merges axes to make long rows: it must still visit every output element
// once, in row-major order, with the input indices of numpy broadcasting. Checked against a plain
// odometer over random shapes (ranks 0-4, broadcast and missing axes on either side).
#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "nnemu/hal/Broadcast.h"

namespace nnemu {
namespace {

using Visit = std::tuple<uint64_t, uint64_t, uint64_t>;

std::vector<Visit> plainOdometer(const std::vector<uint32_t>& out, const std::vector<uint32_t>& a,
                                 const std::vector<uint32_t>& b) {
    uint64_t total = 1;
    for (uint32_t d : out) total *= d;
    std::vector<Visit> visits;
    for (uint64_t o = 0; o < total; ++o) {
        std::vector<uint64_t> index(out.size());
        uint64_t rest = o;
        for (size_t k = out.size(); k-- > 0;) {
            index[k] = rest % out[k];
            rest /= out[k];
        }
        const auto flat = [&](const std::vector<uint32_t>& dims) {
            uint64_t at = 0, step = 1;
            for (size_t i = 1; i <= dims.size(); ++i) {
                const uint32_t d = dims[dims.size() - i];
                at += (d == 1 ? 0 : index[out.size() - i]) * step;
                step *= d;
            }
            return at;
        };
        visits.emplace_back(o, flat(a), flat(b));
    }
    return visits;
}

TEST(BroadcastOrder, MergedRowsVisitAsThePlainOdometer) {
    std::mt19937 random(24);
    int checked = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::vector<uint32_t> dims(random() % 5);
        for (uint32_t& d : dims) d = 1 + random() % 4;
        const auto sideOf = [&] {
            std::vector<uint32_t> side(dims.end() - static_cast<long>(random() % (dims.size() + 1)), dims.end());
            for (uint32_t& d : side) d = random() % 3 == 0 ? 1 : d;
            return side;
        };
        const std::vector<uint32_t> a = sideOf(), b = sideOf();
        std::vector<uint32_t> out;
        ASSERT_TRUE(hal::broadcastShape(a, b, &out));
        std::vector<Visit> visits;
        hal::forEachBroadcast(out, a, b, [&](uint64_t o, uint64_t i, uint64_t j) { visits.emplace_back(o, i, j); });
        ASSERT_EQ(visits, plainOdometer(out, a, b)) << "trial " << trial;
        ++checked;
    }
    EXPECT_EQ(checked, 3000);
}

}  // namespace
}  // namespace nnemu
