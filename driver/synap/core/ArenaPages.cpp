#include "ArenaPages.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "ParentThread.h"
#include "nnemu/base/Trace.h"
#include "SynapLog.h"

namespace nnemu::synap {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kPage = 4096;
constexpr size_t kPopulatedFrom = size_t{64} << 10;

enum class Pages { kAdopted, kSmallOnly, kDirect };

Pages pagesFromEnvironment() {
    const char* choice = std::getenv("NNEMU_NPU_HUGE_PAGES");
    if (choice == nullptr) return Pages::kAdopted;
    if (std::string_view(choice) == "0") return Pages::kSmallOnly;
    if (std::string_view(choice) == "direct") return Pages::kDirect;
    return Pages::kAdopted;
}

// Whether madvise(MADV_HUGEPAGE) can give huge pages at all (read once per process).
bool hugePagesEnabled() {
    static const bool enabled = [] {
        std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
        std::string line;
        return std::getline(file, line) && line.find("[never]") == std::string::npos;
    }();
    return enabled;
}

// `length` bytes of fresh anonymous memory starting at a 2 MiB boundary (huge pages move with
// mremap only between such addresses), or nullptr.
uint8_t* mapAligned(size_t length) {
    const size_t span = length + kHugePage;
    void* pages = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(pages);
    const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(pages, aligned - start);
    if (start + span > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), start + span - aligned - length);
    return reinterpret_cast<uint8_t*>(aligned);
}

}  // namespace

// The huge-page copy being faulted in, and the thread doing it.
struct ArenaPages::Helper {
    uint8_t* pages = nullptr;
    size_t length = 0;
    std::atomic<bool> stop{false};
    std::atomic<bool> done{false};  // pages faulted in (or stopped); `faulted` says which
    bool faulted = false;           // written by the thread before `done`
    ParentThread thread;

    bool forked() const { return thread.forked(); }
    void join() { thread.join(); }
    ~Helper() {
        stop.store(true, std::memory_order_relaxed);
        join();
        if (pages != nullptr) munmap(pages, length);
    }

    // A write per 4 KiB page: one fault per huge page (a page fault takes no process-wide lock,
    // where MADV_POPULATE_WRITE would hold mmap_lock against the loading thread's mappings).
    void faultIn() {
        // Behind every other thread: SCHED_BATCH (no preemption of a thread it wakes beside)
        // and the lowest priority, so that it takes only cores nothing else wants.
        const sched_param batch{};
        sched_setscheduler(0, SCHED_BATCH, &batch);
        setpriority(PRIO_PROCESS, 0, 19);
        for (size_t block = 0; block < length; block += kHugePage) {
            if (stop.load(std::memory_order_relaxed)) break;
            const size_t end = std::min(length, block + kHugePage);
            for (size_t page = block; page < end; page += kPage) static_cast<volatile uint8_t*>(pages)[page] = 0;
        }
        faulted = !stop.load(std::memory_order_relaxed);
        done.store(true, std::memory_order_release);
    }
};

ArenaPages::ArenaPages(size_t size) {
    if (size == 0) return;
    const Pages pages = pagesFromEnvironment();
    if (size < kPopulatedFrom || pages == Pages::kDirect) {
        plain_ = ZeroedBytes(size);
        return;
    }
    mapped_ = (size + kPage - 1) / kPage * kPage;
    data_ = mapAligned(mapped_);
    if (data_ == nullptr) throw std::bad_alloc();
    size_ = size;
    // Small pages, all faulted in by one call (Linux 5.14 on; before, by the first writes).
    trace::Span span("arena pages", "npu");
    madvise(data_, mapped_, MADV_NOHUGEPAGE);
    madvise(data_, mapped_, MADV_POPULATE_WRITE);
    span.arg("bytes", mapped_);
    hugePagesLater_ = size >= kHugePage && pages == Pages::kAdopted && hugePagesEnabled();
}

void ArenaPages::startHugePages() {
    if (!hugePagesLater_) return;
    hugePagesLater_ = false;
    auto helper = std::make_unique<Helper>();
    helper->length = mapped_;
    helper->pages = mapAligned(mapped_);
    if (helper->pages == nullptr) return;  // the arena works on small pages
    madvise(helper->pages, mapped_, MADV_HUGEPAGE);
    if (!helper->thread.start([h = helper.get()] { h->faultIn(); })) return;  // no thread to spare: small pages
    pthread_setname_np(helper->thread.handle(), "nnemu-arena");
    helper_ = std::move(helper);
}

ArenaPages::ArenaPages() = default;

ArenaPages::~ArenaPages() { release(); }

ArenaPages::ArenaPages(ArenaPages&& other) noexcept
    : plain_(std::move(other.plain_)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)), hugePagesLater_(std::exchange(other.hugePagesLater_, false)),
      helper_(std::move(other.helper_)) {}

ArenaPages& ArenaPages::operator=(ArenaPages&& other) noexcept {
    if (this != &other) {
        release();
        plain_ = std::move(other.plain_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        mapped_ = std::exchange(other.mapped_, 0);
        hugePagesLater_ = std::exchange(other.hugePagesLater_, false);
        helper_ = std::move(other.helper_);
    }
    return *this;
}

void ArenaPages::release() {
    helper_.reset();
    if (data_ != nullptr) munmap(data_, mapped_);
    data_ = nullptr;
    size_ = 0;
    mapped_ = 0;
    hugePagesLater_ = false;
}

void ArenaPages::stopHelper() {
    helper_.reset();
    hugePagesLater_ = false;
}

bool ArenaPages::adoptHugePagesIfReady() {
    if (helper_ == nullptr) return false;
    if (helper_->forked()) {  // a child: the small pages stay (its copy of the helper's is dropped)
        helper_.reset();
        return false;
    }
    if (!helper_->done.load(std::memory_order_acquire)) return false;
    helper_->join();
    bool moved = false;
    if (helper_->faulted) {
        trace::Span span("arena onto huge pages", "npu");
        std::memcpy(helper_->pages, data_, mapped_);
        if (mremap(helper_->pages, mapped_, mapped_, MREMAP_MAYMOVE | MREMAP_FIXED, data_) != MAP_FAILED) {
            helper_->pages = nullptr;  // now at data_; the small pages are gone
            moved = true;
        } else if (mmap(data_, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
                   MAP_FAILED) {
            // mremap may have unmapped the target before failing: the arena again, as it was.
            std::memcpy(data_, helper_->pages, mapped_);
        } else {
            SYNAP_LOG(ERROR) << "the activation arena lost its pages (out of memory moving them)";
            std::abort();
        }
    }
    helper_.reset();
    return moved;
}

void PageTouches::reset(std::span<const uint8_t> bytes) {
    base_ = bytes.data();
    pages_ = static_cast<uint32_t>(std::min<size_t>((bytes.size() + kPage - 1) / kPage, UINT32_MAX));
    next_.store(0, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
}

void PageTouches::share() {
    constexpr uint32_t kChunk = 16;
    for (;;) {
        const uint32_t first = next_.fetch_add(kChunk, std::memory_order_relaxed);
        if (first >= pages_) return;
        const uint32_t end = std::min(pages_, first + kChunk);
        uint8_t sum = 0;
        for (uint32_t page = first; page < end; ++page) sum += static_cast<const volatile uint8_t*>(base_)[size_t{page} * kPage];
        asm volatile("" : : "r"(sum));
        // Once they are all read, an awaiting thread may write or free the pages (not this
        // object: its owner outlives every sharer).
        if (done_.fetch_add(end - first, std::memory_order_release) + (end - first) == pages_) done_.notify_all();
    }
}

void PageTouches::await() const {
    for (uint32_t done = done_.load(std::memory_order_acquire); done < pages_; done = done_.load(std::memory_order_acquire)) {
        done_.wait(done, std::memory_order_acquire);
    }
}

}  // namespace nnemu::synap
