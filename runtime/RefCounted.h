// Runtime objects whose life an in-flight computation may outlast the application's handle:
// compilations (their executions and bursts use them), executions (their asynchronous and fenced
// computations use them) and bursts (a burstCompute on another thread uses it). The handle the
// C API gives out is one reference; the application's *_free drops it, and each user holds a
// reference of its own, so the object is deleted when the last of them lets go: freeing early
// never leaves a computation with a dangling object, and nothing is left behind once it ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace nnemu::runtime {

class RefCounted {
public:
    RefCounted() = default;
    RefCounted(const RefCounted&) = delete;
    RefCounted& operator=(const RefCounted&) = delete;

    void retain() const { references_.fetch_add(1, std::memory_order_relaxed); }
    // Deletes the object with its last reference (acq_rel: every user's writes happen before).
    void release() const {
        if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

protected:
    virtual ~RefCounted() = default;

private:
    mutable std::atomic<uint32_t> references_{1};  // the creator's (the application's handle)
};

// One reference held for the holder's life; null holds nothing.
template <typename T>
class Ref {
public:
    Ref() = default;
    explicit Ref(T* object) : object_(object) {
        if (object_ != nullptr) object_->retain();
    }
    Ref(const Ref& other) : Ref(other.object_) {}
    Ref(Ref&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
    Ref& operator=(Ref other) noexcept {
        std::swap(object_, other.object_);
        return *this;
    }
    ~Ref() {
        if (object_ != nullptr) object_->release();
    }

    T* get() const { return object_; }
    T* operator->() const { return object_; }
    T& operator*() const { return *object_; }

private:
    T* object_ = nullptr;
};

}  // namespace nnemu::runtime
