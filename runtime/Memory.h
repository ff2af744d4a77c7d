// ANeuralNetworksMemory: a file descriptor region, mapped on first use.
#pragma once

#include <mutex>

#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

class Memory final : public hal::MemoryPool {
public:
    // Takes ownership of `fd` (already dup'ed by the caller).
    Memory(size_t size, int protect, int fd, size_t offset);
    ~Memory() override;
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;

    uint8_t* data() const override;  // maps lazily; nullptr if the fd cannot be mapped
    size_t size() const override { return size_; }
    int fd() const override { return fd_; }

private:
    size_t size_;
    int protect_;
    int fd_;
    size_t offset_;
    mutable std::once_flag mapOnce_;
    mutable void* mapping_ = nullptr;
    mutable size_t mappingLength_ = 0;
    mutable uint8_t* base_ = nullptr;
};

}  // namespace nnemu::runtime
