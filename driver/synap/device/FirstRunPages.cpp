#include "FirstRunPages.h"

#include <algorithm>
#include <new>

#include "nnemu/base/Trace.h"

namespace nnemu::synap {

void FirstRunPages::prepare(const NpuCore& core) {
    arena_.reset(core.arenaPages());
    std::lock_guard lock(reading_);
    if (stopped_) return;
    try {
        constants_ = core.constantsInRunOrder();
    } catch (const std::bad_alloc&) {
        constants_.clear();
    }
}

void FirstRunPages::readArena() {
    trace::Span span("arena faulted in", "jit");
    arena_.share();
}

size_t FirstRunPages::pageCount() {
    std::lock_guard lock(reading_);
    size_t bytes = 0;
    for (const auto& constant : constants_) bytes += constant.size();
    return arena_.pages() + bytes / 4096;
}

void FirstRunPages::stop() {
    std::lock_guard lock(reading_);
    constants_.clear();
    stopped_ = true;
}

void FirstRunPages::readConstantsAhead() {
    trace::Span span("constants read ahead", "jit");
    constexpr uintptr_t kPage = 4096;
    constexpr size_t kPagesAtOnce = 32;  // between looks at a stop
    uintptr_t lastPage = 1;              // none yet (constants often end and begin on one)
    uintptr_t resume = 0;                // the page of constants_[c] to go on from (0: its first)
    uint8_t sum = 0;
    for (size_t c = 0;;) {
        std::lock_guard lock(reading_);
        if (c >= constants_.size()) break;
        const auto start = reinterpret_cast<uintptr_t>(constants_[c].data());
        const uintptr_t end = start + constants_[c].size();
        uintptr_t page = std::max(resume, start & ~(kPage - 1));
        for (size_t read = 0; page < end && read < kPagesAtOnce; page += kPage) {
            if (page == lastPage) continue;
            sum += *reinterpret_cast<const volatile uint8_t*>(std::max(page, start));  // its first byte there
            lastPage = page;
            ++read;
        }
        resume = page < end ? page : 0;
        if (page >= end) ++c;
    }
    asm volatile("" : : "r"(sum));
}

}  // namespace nnemu::synap
