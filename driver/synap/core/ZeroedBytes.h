// Bytes that read as zero until written, without being written at allocation: blocks from 2 MiB
// on are fresh anonymous pages on transparent huge pages where the system allows them (the kernel
// zeroes a page when it is first touched, so a warm start does not fault in and clear the whole
// activation arena before the first inference writes it), smaller ones come from calloc. No
// byte can be read uninitialised, padding and halos included.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnemu::synap {

class ZeroedBytes {
public:
    ZeroedBytes() = default;
    // Throws std::bad_alloc when the memory cannot be had (the core's loads are guarded).
    explicit ZeroedBytes(size_t size);
    ~ZeroedBytes();
    ZeroedBytes(ZeroedBytes&& other) noexcept;
    ZeroedBytes& operator=(ZeroedBytes&& other) noexcept;
    ZeroedBytes(const ZeroedBytes&) = delete;
    ZeroedBytes& operator=(const ZeroedBytes&) = delete;

    uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

private:
    void release();

    uint8_t* data_ = nullptr;
    size_t size_ = 0;
    bool mapped_ = false;
};

}  // namespace nnemu::synap
