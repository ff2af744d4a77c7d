// The bytes of an NPU program as the core reads them: owned (just compiled, or read from the
// SQLite cache) or a private mapping of a SyNAP cache program file or an NNAPI model cache file,
// so that processes running the same cached network share its weights in the page cache instead
// of holding a copy each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::cache {

class ProgramImage {
public:
    ProgramImage() = default;
    explicit ProgramImage(std::vector<uint8_t> bytes) : owned_(std::move(bytes)) {}
    ~ProgramImage();
    ProgramImage(ProgramImage&& other) noexcept;
    ProgramImage& operator=(ProgramImage&& other) noexcept;
    ProgramImage(const ProgramImage&) = delete;
    ProgramImage& operator=(const ProgramImage&) = delete;

    // Maps the first `fileSize` bytes of the regular file `fd` (copy-on-write: a stray write stays
    // private), of which `programSize` bytes from `programOffset` are the program. The caller
    // checks the file's size first and the contents after (checksum, verifier). The cached pages
    // are mapped in one call (MADV_POPULATE_READ): the checksum or the core reads every byte soon.
    static Result<ProgramImage> map(int fd, size_t fileSize, size_t programOffset, size_t programSize);
    // The mapped bytes before the program (a header) and past it (a trailer).
    std::span<const uint8_t> head() const;
    std::span<const uint8_t> tail() const;
    // Keeps `fd` (a descriptor of the mapped file holding a lock) open while the mapping lives.
    void holdWhileMapped(int fd);

    const uint8_t* data() const {
        return mapping_ != nullptr ? static_cast<const uint8_t*>(mapping_) + programOffset_ : owned_.data();
    }
    size_t size() const { return mapping_ != nullptr ? programSize_ : owned_.size(); }
    std::span<const uint8_t> bytes() const { return {data(), size()}; }
    bool mapped() const { return mapping_ != nullptr; }

private:
    void release();

    std::vector<uint8_t> owned_;
    void* mapping_ = nullptr;
    size_t mappedSize_ = 0;
    size_t programOffset_ = 0;
    size_t programSize_ = 0;
    int heldFd_ = -1;
};

}  // namespace nnemu::cache
