// A zero-filled byte buffer that costs nothing until it is touched (calloc): a model whose
// declared shapes are inconsistent may ask for a large tensor that NNAPI then refuses to fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <vector>

namespace nnemu::tflite {

// Frees what a TensorBuffer owns; a view's is not its own.
struct TensorBufferFree {
    bool owned = true;
    void operator()(uint8_t* p) const {
        if (owned) std::free(p);
    }
};

class TensorBuffer {
public:
    TensorBuffer() = default;
    explicit TensorBuffer(size_t size) : size_(size) {
        if (size == 0) return;
        data_.reset(static_cast<uint8_t*>(std::calloc(size, 1)));
        if (data_ == nullptr) throw std::bad_alloc();
    }
    // A view of `size` bytes of a buffer someone else owns (the interpreter's arena): never freed
    // here; reshape() to another size gives the buffer bytes of its own.
    static TensorBuffer view(uint8_t* data, size_t size) {
        TensorBuffer buffer;
        buffer.data_ = std::unique_ptr<uint8_t, Free>(data, Free{false});
        buffer.size_ = size;
        return buffer;
    }
    TensorBuffer(const TensorBuffer&) = delete;
    TensorBuffer(TensorBuffer&&) noexcept = default;
    TensorBuffer& operator=(TensorBuffer&&) noexcept = default;
    TensorBuffer& operator=(const TensorBuffer&) = delete;

    uint8_t* data() { return data_.get(); }
    const uint8_t* data() const { return data_.get(); }
    size_t size() const { return size_; }

    // An output whose shape TFLite only knows at invoke (WHERE, UNIQUE, RANGE, ...): the shape a
    // CPU kernel gave it in the last invoke; nullopt while it has the tensor's declared shape.
    const std::optional<std::vector<int32_t>>& shape() const { return shape_; }
    // Gives the buffer `shape` and exactly `size` bytes (zeroed, contents dropped when the size changes).
    void reshape(std::vector<int32_t> shape, size_t size) {
        if (size != size_) *this = TensorBuffer(size);
        shape_ = std::move(shape);
    }

private:
    using Free = TensorBufferFree;
    std::unique_ptr<uint8_t, Free> data_;
    size_t size_ = 0;
    std::optional<std::vector<int32_t>> shape_;
};

}  // namespace nnemu::tflite
