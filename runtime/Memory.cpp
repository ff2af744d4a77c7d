#include "Memory.h"

#include <android/NeuralNetworks.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits>
#include <new>

#include "nnemu/base/Log.h"

namespace nnemu::runtime {
namespace {

size_t pageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// The region, mapped from its page start, must be addressable and describable as a file offset.
bool regionRepresentable(size_t size, size_t offset) {
    constexpr auto kMaxOffset = static_cast<uint64_t>(std::numeric_limits<off_t>::max());
    const size_t page = pageSize();
    return offset <= kMaxOffset && size <= kMaxOffset - offset && size <= SIZE_MAX - page;
}

// mmap with MAP_SHARED needs a readable descriptor, and a writable one for PROT_WRITE.
bool accessModeAllows(int fd, int protect) {
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return false;
    const int mode = flags & O_ACCMODE;
    if (mode == O_WRONLY) return false;
    return (protect & PROT_WRITE) == 0 || mode == O_RDWR;
}

// Scopes are numbered from 1 across the process; 0 is none.
std::atomic<uint64_t> lastScope{0};
thread_local uint64_t currentScope = 0;

}  // namespace

Memory::CheckScope::CheckScope() : outer_(currentScope) {
    // A nested scope keeps the outer one: the outer operation checked what it reads already.
    if (outer_ == 0) currentScope = lastScope.fetch_add(1, std::memory_order_relaxed) + 1;
}

Memory::CheckScope::~CheckScope() { currentScope = outer_; }

int Memory::create(size_t size, int protect, int fd, size_t offset, std::shared_ptr<Memory>* memory) {
    const char* function = "ANeuralNetworksMemory_createFromFd";
    if (protect != PROT_READ && protect != (PROT_READ | PROT_WRITE)) {
        NN_LOG(ERROR) << function << ": protection " << protect << " is not PROT_READ or PROT_READ | PROT_WRITE";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (!regionRepresentable(size, offset)) {
        NN_LOG(ERROR) << function << ": region of " << size << " bytes at offset " << offset << " overflows";
        return ANEURALNETWORKS_BAD_DATA;
    }
    const int duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (duplicate < 0) return ANEURALNETWORKS_UNEXPECTED_NULL;
    struct stat info {};
    const bool regular = fstat(duplicate, &info) == 0 && S_ISREG(info.st_mode);
    int status = ANEURALNETWORKS_NO_ERROR;
    if (!accessModeAllows(duplicate, protect)) {
        NN_LOG(ERROR) << function << ": the descriptor's access mode does not allow protection " << protect;
        status = ANEURALNETWORKS_BAD_DATA;
    } else if (regular && offset + size > static_cast<uint64_t>(info.st_size)) {
        NN_LOG(ERROR) << function << ": region [" << offset << ", +" << size << ") lies past the end of a file of "
                      << info.st_size << " bytes";
        status = ANEURALNETWORKS_BAD_DATA;
    }
    if (status == ANEURALNETWORKS_NO_ERROR) {
        memory->reset(new (std::nothrow) Memory(size, protect, duplicate, offset, regular));
        if (*memory == nullptr) status = ANEURALNETWORKS_OUT_OF_MEMORY;
    }
    if (status != ANEURALNETWORKS_NO_ERROR) close(duplicate);
    return status;
}

Memory::Memory(size_t size, int protect, int fd, size_t offset, bool regularFile)
    : size_(size), protect_(protect), fd_(fd), offset_(offset), regularFile_(regularFile) {}

Memory::~Memory() {
    if (mapping_ != nullptr) munmap(mapping_, mappingLength_);
    if (fd_ >= 0) close(fd_);
}

bool Memory::writable() const { return (protect_ & PROT_WRITE) != 0; }

bool Memory::fileHoldsRegion() const {
    if (!regularFile_) return true;
    const uint64_t scope = currentScope;
    if (scope != 0) {
        const uint64_t checked = checkedIn_.load(std::memory_order_relaxed);
        if (checked >> 1 == scope) return (checked & 1) != 0;
    }
    struct stat info {};
    const bool held = fstat(fd_, &info) == 0 && offset_ + size_ <= static_cast<uint64_t>(info.st_size);
    if (scope != 0) checkedIn_.store(scope << 1 | (held ? 1 : 0), std::memory_order_relaxed);
    if (held) return true;
    if (!truncationReported_.exchange(true)) {
        NN_LOG(ERROR) << "the file of memory fd " << fd_ << " no longer holds its region [" << offset_ << ", +"
                      << size_ << "): it was truncated";
    }
    return false;
}

uint8_t* Memory::data() const {
    if (!fileHoldsRegion()) return nullptr;
    std::call_once(mapOnce_, [this] {
        // mmap needs a page-aligned offset; map from the page start and step in.
        const size_t page = pageSize();
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
