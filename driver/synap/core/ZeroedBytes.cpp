#include "ZeroedBytes.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <utility>

namespace nnemu::synap {
namespace {

// From this size on a block is mapped on its own, on huge pages where the system allows them;
// below it calloc serves it (clearing only memory it reuses, which is already mapped in).
constexpr size_t kMappedFrom = size_t{2} << 20;

}  // namespace

ZeroedBytes::ZeroedBytes(size_t size) : size_(size) {
    if (size == 0) return;
    if (size >= kMappedFrom) {
        void* pages = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (pages == MAP_FAILED) throw std::bad_alloc();
        // One fault per 2 MiB instead of one per 4 KiB page: most of a float network's warm
        // start page faults.
        madvise(pages, size, MADV_HUGEPAGE);
        data_ = static_cast<uint8_t*>(pages);
        mapped_ = true;
        return;
    }
    data_ = static_cast<uint8_t*>(std::calloc(size, 1));
    if (data_ == nullptr) throw std::bad_alloc();
}

ZeroedBytes::~ZeroedBytes() { release(); }

ZeroedBytes::ZeroedBytes(ZeroedBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

ZeroedBytes& ZeroedBytes::operator=(ZeroedBytes&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        mapped_ = std::exchange(other.mapped_, false);
    }
    return *this;
}

void ZeroedBytes::release() {
    if (data_ == nullptr) return;
    if (mapped_) {
        munmap(data_, size_);
    } else {
        std::free(data_);
    }
    data_ = nullptr;
    size_ = 0;
}

}  // namespace nnemu::synap
