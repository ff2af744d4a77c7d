// The one place below the C API guard (runtime/ApiGuard.h) where an allocation failure is caught:
// for the few callers that turn it into a behaviour of their own (a driver's compilation that
// fails and falls back, an execution that fails with a message naming what could not be
// allocated) instead of letting it unwind to the entry point.
#pragma once

#include <new>
#include <type_traits>

#include "nnemu/base/Status.h"

namespace nnemu {

// Runs `allocate` (returning nothing, a Status or a Result<T>) and answers what it answers (OK
// for nothing), or OUT_OF_MEMORY with `message` when an allocation inside it failed.
template <typename F>
auto guardAllocation(F&& allocate, const char* message = "out of memory") {
    using Answer = std::invoke_result_t<F&>;
    using Guarded = std::conditional_t<std::is_void_v<Answer>, Status, Answer>;
    try {
        if constexpr (std::is_void_v<Answer>) {
            allocate();
            return Guarded();
        } else {
            return Guarded(allocate());
        }
    } catch (const std::bad_alloc&) {
        return Guarded(Status(StatusCode::OUT_OF_MEMORY, message));
    }
}

}  // namespace nnemu
