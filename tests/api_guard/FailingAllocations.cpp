#include "FailingAllocations.h"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

thread_local int64_t remaining = -1;  // allocations before the failing one; -1 when disarmed
thread_local bool failed = false;

void* allocate(std::size_t size, std::size_t alignment) {
    if (remaining == 0) {
        remaining = -1;
        failed = true;
        throw std::bad_alloc();
    }
    if (remaining > 0) --remaining;
    if (size == 0) size = 1;
    void* p = alignment <= alignof(std::max_align_t)
                      ? std::malloc(size)
                      : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

}  // namespace

namespace nnemu::apitest {

void failAllocation(int64_t n) {
    remaining = n;
    failed = false;
}

bool disarmAllocationFailure(int64_t* left) {
    if (left != nullptr) *left = remaining;
    remaining = -1;
    return failed;
}

}  // namespace nnemu::apitest

// operator new[] and the nothrow forms reach these through the standard library's definitions.
void* operator new(std::size_t size) { return allocate(size, 0); }
void* operator new(std::size_t size, std::align_val_t alignment) {
    return allocate(size, static_cast<std::size_t>(alignment));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
