#include "CpuThreads.h"

#include <pthreadpool.h>

#include <algorithm>
#include <atomic>

namespace nnemu::tflite {
namespace {

// Below kMinSharedCost multiply-adds (a few microseconds of one core) a node runs on the calling
// thread alone: waking a worker and joining it costs about as much.
std::atomic<double> minSharedCost{kMinSharedCost};

struct Call {
    const std::function<void(size_t, size_t, size_t)>* fn;
    size_t shares, items;
};

void runShare(void* context, size_t share) {
    const auto& call = *static_cast<const Call*>(context);
    const size_t begin = call.items * share / call.shares, end = call.items * (share + 1) / call.shares;
    (*call.fn)(share, begin, end);
}

}  // namespace

std::unique_ptr<CpuThreads> CpuThreads::create(int threads) {
    if (threads <= 1) return nullptr;
    pthreadpool_t pool = pthreadpool_create(static_cast<size_t>(threads));
    if (pool == nullptr) return nullptr;
    if (pthreadpool_get_threads_count(pool) <= 1) {
        pthreadpool_destroy(pool);
        return nullptr;
    }
    return std::unique_ptr<CpuThreads>(new CpuThreads(pool));
}

CpuThreads::~CpuThreads() { pthreadpool_destroy(pool_); }

size_t CpuThreads::count() const { return pthreadpool_get_threads_count(pool_); }

void CpuThreads::run(size_t shares, size_t items, const std::function<void(size_t, size_t, size_t)>& fn) const {
    Call call{&fn, shares, items};
    pthreadpool_parallelize_1d(pool_, runShare, &call, shares, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
}

size_t cpuShares(const CpuThreads* threads, size_t items, double cost) {
    if (threads == nullptr || items <= 1 || cost < minSharedCost.load(std::memory_order_relaxed)) return 1;
    return std::min(threads->count(), items);
}

void setMinSharedCost(double cost) { minSharedCost.store(cost, std::memory_order_relaxed); }

void forCpuShares(const CpuThreads* threads, size_t shares, size_t items,
                  const std::function<void(size_t, size_t, size_t)>& fn) {
    if (shares <= 1 || threads == nullptr) {
        fn(0, 0, items);
        return;
    }
    threads->run(shares, items, fn);
}

}  // namespace nnemu::tflite
