// The memory a loaded core's first inference will touch, made present beforehand by a helper
// thread: on a VM whose host backs guest memory only at a process's first access of each page
// (this project's 2-core Firecracker VM), that access costs 1-10 us even after MADV_POPULATE_*,
// and two threads take such faults twice as fast as one (BENCHMARKS.md, "First inference of a
// warm process").
//
// The helper reads every page of the core's arena (readArena()), with the inferring thread's
// help once it waits for it (awaitArena(): the inference writes the arena, so it starts only
// when every page is read), then reads the program's constants a page at a time in the order the
// layers read them (readConstantsAhead()) while the first inference runs: they are only read.
// Whoever drops the core first calls stop(), after which no page of it is read.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "../core/ArenaPages.h"
#include "../core/NpuCore.h"

namespace nnemu::synap {

class FirstRunPages {
public:
    // Before the core is handed to another thread (without the constants when short of memory).
    void prepare(const NpuCore& core);
    // The helper's part of the arena.
    void readArena();
    // About how many pages the helper would read (after prepare).
    size_t pageCount();
    void awaitArena() {
        arena_.share();
        arena_.await();
    }
    void readConstantsAhead();
    void stop();

private:
    PageTouches arena_;
    std::mutex reading_;  // held while a page of constants_ is read
    std::vector<std::span<const uint8_t>> constants_;
    bool stopped_ = false;
};

}  // namespace nnemu::synap
