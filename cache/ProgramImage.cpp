#include "nnemu/cache/ProgramImage.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace nnemu::cache {

ProgramImage::~ProgramImage() { release(); }

ProgramImage::ProgramImage(ProgramImage&& other) noexcept { *this = std::move(other); }

ProgramImage& ProgramImage::operator=(ProgramImage&& other) noexcept {
    if (this != &other) {
        release();
        owned_ = std::move(other.owned_);
        mapping_ = std::exchange(other.mapping_, nullptr);
        mappedSize_ = std::exchange(other.mappedSize_, 0);
        programOffset_ = std::exchange(other.programOffset_, 0);
        programSize_ = std::exchange(other.programSize_, 0);
        heldFd_ = std::exchange(other.heldFd_, -1);
    }
    return *this;
}

void ProgramImage::release() {
    if (mapping_ != nullptr) munmap(mapping_, mappedSize_);
    if (heldFd_ >= 0) close(heldFd_);
    mapping_ = nullptr;
    mappedSize_ = 0;
    programOffset_ = 0;
    programSize_ = 0;
    heldFd_ = -1;
    owned_.clear();
}

std::span<const uint8_t> ProgramImage::head() const {
    if (mapping_ == nullptr) return {};
    return {static_cast<const uint8_t*>(mapping_), programOffset_};
}

std::span<const uint8_t> ProgramImage::tail() const {
    if (mapping_ == nullptr) return {};
    const size_t end = programOffset_ + programSize_;
    return {static_cast<const uint8_t*>(mapping_) + end, mappedSize_ - end};
}

void ProgramImage::holdWhileMapped(int fd) {
    if (heldFd_ >= 0) close(heldFd_);
    heldFd_ = fd;
}

Result<ProgramImage> ProgramImage::map(int fd, size_t fileSize, size_t programOffset, size_t programSize) {
    if (programSize == 0 || programOffset > fileSize || programSize > fileSize - programOffset) {
        return unavailable("the program file is empty");
    }
    void* mapping = mmap(nullptr, fileSize, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) return unavailable(std::string("cannot map the program file: ") + std::strerror(errno));
    // Every byte is read soon (a checksum, the verifier, the core's load and its first run): map
    // the cached pages in one call rather than fault them in 16 pages at a time, which a sealed
    // file's first run paid (a 14 MB float MobileNet: up to 167 faults, ~0.9 ms of its first
    // inference, against 0.2-0.8 ms for the call; BENCHMARKS.md, "First inference from the NNAPI cache").
    // Read, so no page is copied: the mapping shares the page cache's pages. A page not cached
    // is read here instead of in the run; a kernel without MADV_POPULATE_READ (before 5.14)
    // leaves them to fault in as read.
    madvise(mapping, fileSize, MADV_POPULATE_READ);
    ProgramImage mapped;
    mapped.mapping_ = mapping;
    mapped.mappedSize_ = fileSize;
    mapped.programOffset_ = programOffset;
    mapped.programSize_ = programSize;
    return mapped;
}

}  // namespace nnemu::cache
