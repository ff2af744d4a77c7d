// The activation arena's memory: zero until written, like ZeroedBytes. From 64 KiB on it is
// faulted in on 4 KiB pages when the program loads (one call: ~0.2 ms for an 8-bit MobileNet's
// arena, where the first inference's writes faulted it in for ~0.4 ms more); from 2 MiB on (float
// networks) it is then moved onto transparent huge pages between two later inferences.
//
// Why both: a huge page needs a whole free 2 MiB block, and on a VM that returns free blocks to
// its host (virtio-balloon free page reporting) such a block is at times no longer backed by the
// host: its first touch took 5-6 ms per 2 MiB here, against 0.2-0.5 ms for a backed one, so the
// first inference of a float network paid 10-15 ms in some processes. Small pages come from the
// blocks the system split and used recently, which the host still backs; but on them the steady
// state was 3-4 % slower (TLB misses presumably: this VM has no counters to show them). So the
// arena is populated on 4 KiB pages in one call (MADV_POPULATE_WRITE) when the program loads;
// after the second inference startHugePages() has one helper thread, at the lowest priority,
// fault in a huge-page copy (the host's slow faults land there: started with the first inference
// it slowed that inference, competing for the cores; a network run once never starts it); the
// first later call of adoptHugePagesIfReady() that finds the helper done copies the arena's bytes
// over and moves the huge pages under the same address (mremap), so every pointer into the arena
// stays valid. Nothing waits for the helper but the destructor, which stops it between 2 MiB
// blocks.
//
// NNEMU_NPU_HUGE_PAGES (read at every load): 0 keeps the arena on 4 KiB pages (no helper);
// "direct" maps it on huge pages faulted in by the first inference (before session 20).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "ZeroedBytes.h"

namespace nnemu::synap {

class ArenaPages {
public:
    ArenaPages();
    // Throws std::bad_alloc when the memory cannot be had (the core's loads are guarded).
    explicit ArenaPages(size_t size);
    ~ArenaPages();
    ArenaPages(ArenaPages&& other) noexcept;
    ArenaPages& operator=(ArenaPages&& other) noexcept;
    ArenaPages(const ArenaPages&) = delete;
    ArenaPages& operator=(const ArenaPages&) = delete;

    uint8_t* data() const { return plain_.empty() ? data_ : plain_.data(); }
    // The pages mapped for the arena when it is 64 KiB or more (none below: calloc's).
    std::span<const uint8_t> mappedPages() const { return {data_, mapped_}; }
    size_t size() const { return plain_.empty() ? size_ : plain_.size(); }

    // Once (later calls do nothing): starts the helper that faults in the huge pages, where the
    // arena is on small pages and the system has huge pages.
    void startHugePages();
    // Between inferences, never while one runs: takes the helper's huge pages once they are
    // ready (copying the arena's bytes onto them), otherwise does nothing. True when it moved them.
    bool adoptHugePagesIfReady();
    // Whether a helper is still preparing huge pages (tests).
    bool hugePagesPending() const { return helper_ != nullptr; }
    // Stops the helper, if any, and waits for it (tests: the 4 KiB pages stay).
    void stopHelper();

private:
    struct Helper;
    void release();

    ZeroedBytes plain_;  // under 2 MiB (calloc's), or NNEMU_NPU_HUGE_PAGES=direct
    uint8_t* data_ = nullptr;
    size_t size_ = 0;     // asked
    size_t mapped_ = 0;   // mapped at data_: size_ rounded up to whole 4 KiB pages
    bool hugePagesLater_ = false;  // startHugePages() has a helper to start
    std::unique_ptr<Helper> helper_;
};

// A mapping's pages made present by a read of each 4 KiB page, shared by the threads that call
// share(): each claims 16 pages at a time until none is left. await() returns once every page
// is read, so that nothing writes the memory while another thread still reads it.
//
// Why: on VMs whose host maps guest pages lazily (this project's 2-core Firecracker VM, with
// pvm_no_zero_page=1) the first access of a page by a process costs 5-10 us even after
// MADV_POPULATE_WRITE populated it on the guest's side, and two threads fault twice as fast as
// one (BENCHMARKS.md, "First inference of a warm process"). An 8-bit MobileNet v2's 0.8 MB arena
// cost its first inference 1-1.5 ms of such faults.
class PageTouches {
public:
    // Before any share() (its pages are read from then on, until await() returns).
    void reset(std::span<const uint8_t> bytes);
    void share();
    void await() const;
    uint32_t pages() const { return pages_; }

private:
    const uint8_t* base_ = nullptr;
    uint32_t pages_ = 0;
    std::atomic<uint32_t> next_{0};  // first page not claimed
    std::atomic<uint32_t> done_{0};  // pages read
};

}  // namespace nnemu::synap
