#include "ArenaPlan.h"

#include <algorithm>
#include <numeric>

namespace nnemu::tflite {

ArenaPlan planArena(const std::vector<ArenaRequest>& requests, size_t alignment) {
    const auto rounded = [alignment](size_t bytes) { return (bytes + alignment - 1) / alignment * alignment; };
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return requests[a].bytes != requests[b].bytes ? requests[a].bytes > requests[b].bytes
                                                      : requests[a].first < requests[b].first;
    });
    ArenaPlan plan;
    plan.offsets.assign(requests.size(), 0);
    std::vector<size_t> placed;   // by offset
    for (const size_t r : order) {
        const ArenaRequest& request = requests[r];
        const size_t bytes = rounded(request.bytes);
        size_t offset = 0;
        for (const size_t other : placed) {
            const ArenaRequest& o = requests[other];
            if (o.last < request.first || request.last < o.first) continue;   // never alive together
            if (plan.offsets[other] >= offset + bytes) break;                    // the gap before it fits
            offset = std::max(offset, plan.offsets[other] + rounded(o.bytes));
        }
        plan.offsets[r] = offset;
        plan.bytes = std::max(plan.bytes, offset + bytes);
        placed.insert(std::upper_bound(placed.begin(), placed.end(), r,
                                       [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; }),
                      r);
    }
    return plan;
}

}  // namespace nnemu::tflite
