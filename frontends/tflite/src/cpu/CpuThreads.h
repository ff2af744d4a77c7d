// The threads the tools' CPU kernels share a node's work with, as TFLite's interpreter gives its
// kernels --num_threads (benchmark_model) or -t (label_image): a pthreadpool, the pool TFLite's
// XNNPACK delegate runs on, with the calling thread working too. Every call runs with denormals
// flushed on every thread (XNNPACK's pthreadpool calls ask for it; the calling thread has them
// flushed by the invoke already: DenormalFlush.h), so a node's bytes do not depend on the thread
// that computed them.
//
// Kernels cut their work into shares, contiguous ranges of independent items (output pixels,
// rows, tiles) with per-share scratch, and compute each item exactly as alone: the outputs are
// the same bytes on any number of threads.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

struct pthreadpool;

namespace nnemu::tflite {

class CpuThreads {
public:
    // A pool of `threads` threads, the caller's included; nullptr for threads <= 1 (TFLite's -1,
    // the default, is one thread) or when no worker can be started.
    static std::unique_ptr<CpuThreads> create(int threads);
    ~CpuThreads();
    CpuThreads(const CpuThreads&) = delete;
    CpuThreads& operator=(const CpuThreads&) = delete;

    size_t count() const;
    // fn(share, begin, end) for `shares` contiguous ranges that cover [0, items) in order, as
    // equal as they can be; returns when all have run.
    void run(size_t shares, size_t items, const std::function<void(size_t share, size_t begin, size_t end)>& fn) const;

private:
    explicit CpuThreads(pthreadpool* pool) : pool_(pool) {}
    pthreadpool* pool_;
};

// How many shares a kernel cuts `items` into on `threads` (nullptr: one): one per thread, none
// empty, and one alone when the work, about `cost` multiply-adds in all, is too small for a
// thread's wake-up to pay back.
size_t cpuShares(const CpuThreads* threads, size_t items, double cost);
// Tests: the least work a node is shared for (multiply-adds; 0: every node with two items);
// restore with the default, kMinSharedCost.
constexpr double kMinSharedCost = 65536.0;
void setMinSharedCost(double cost);
// fn(share, begin, end) over `shares` ranges of [0, items) (cpuShares): on the pool, or in this
// thread when there is one share.
void forCpuShares(const CpuThreads* threads, size_t shares, size_t items,
                  const std::function<void(size_t share, size_t begin, size_t end)>& fn);

}  // namespace nnemu::tflite
