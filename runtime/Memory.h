// ANeuralNetworksMemory: a file descriptor region, mapped on first use.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

class Memory final : public hal::MemoryPool {
public:
    // The region [offset, offset + size) of `fd`, which it duplicates. BAD_DATA (logged) when the
    // protection is not PROT_READ or PROT_READ | PROT_WRITE, the region overflows, the descriptor's
    // access mode cannot give that protection or a regular file does not hold the region;
    // UNEXPECTED_NULL when the descriptor cannot be duplicated (as Android answers).
    static int create(size_t size, int protect, int fd, size_t offset, std::shared_ptr<Memory>* memory);
    ~Memory() override;
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;

    // Maps lazily. nullptr if the fd cannot be mapped, or if its file no longer holds the region
    // (a file truncated under a mapping would fault on access). Checked at every call, except
    // within a CheckScope on the calling thread: there once per memory and scope.
    uint8_t* data() const override;

    // A model's finish, a compilation, an execution: each reads a memory's bytes many times (every
    // constant of a model file), and checks its file's size once, at the first access.
    class CheckScope {
    public:
        CheckScope();
        ~CheckScope();
        CheckScope(const CheckScope&) = delete;
        CheckScope& operator=(const CheckScope&) = delete;

    private:
        uint64_t outer_;
    };
    size_t size() const override { return size_; }
    int fd() const override { return fd_; }
    uint64_t fileOffset() const override { return offset_; }
    bool writable() const override;

private:
    Memory(size_t size, int protect, int fd, size_t offset, bool regularFile);
    bool fileHoldsRegion() const;

    size_t size_;
    int protect_;
    int fd_;
    size_t offset_;
    bool regularFile_;
    mutable std::once_flag mapOnce_;
    mutable void* mapping_ = nullptr;
    mutable size_t mappingLength_ = 0;
    mutable uint8_t* base_ = nullptr;
    mutable std::atomic<bool> truncationReported_{false};
    // The last scope that checked the file: its number times two, plus one if the region was held.
    mutable std::atomic<uint64_t> checkedIn_{0};
};

}  // namespace nnemu::runtime
