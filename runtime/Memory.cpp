#include "Memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include "nnemu/hal/Log.h"

namespace nnemu::runtime {

Memory::Memory(size_t size, int protect, int fd, size_t offset)
    : size_(size), protect_(protect), fd_(fd), offset_(offset) {}

Memory::~Memory() {
    if (mapping_ != nullptr) munmap(mapping_, mappingLength_);
    if (fd_ >= 0) close(fd_);
}

uint8_t* Memory::data() const {
    std::call_once(mapOnce_, [this] {
        // mmap needs a page-aligned offset; map from the page start and step in.
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t aligned = offset_ / page * page;
        const size_t skew = offset_ - aligned;
        void* mapping = mmap(nullptr, size_ + skew, protect_, MAP_SHARED, fd_, static_cast<off_t>(aligned));
        if (mapping == MAP_FAILED) {
            NN_LOG(ERROR) << "cannot map memory fd " << fd_ << " (" << size_ << " bytes at offset " << offset_ << ")";
            return;
        }
        mapping_ = mapping;
        mappingLength_ = size_ + skew;
        base_ = static_cast<uint8_t*>(mapping) + skew;
    });
    return base_;
}

}  // namespace nnemu::runtime
