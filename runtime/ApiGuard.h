// The one guard of the C API. Every ANeuralNetworks* entry point is a function-try-block ending in
// NNEMU_API_GUARD (functions returning a result code: OUT_OF_MEMORY) or
// NNEMU_API_GUARD_RETURNING(value) (the failure value of a function that returns something else,
// nothing for void): an allocation that fails anywhere below the entry point, on the caller's
// thread, unwinds to it and becomes that failure, never a crash. A size no allocation could satisfy
// (std::length_error from a container) counts as an allocation failure. Nothing below the C API
// catches std::bad_alloc to turn it into OUT_OF_MEMORY itself; the few catches left name what
// could not be allocated or keep a driver's fallback (see docs/architecture.md, "Errors").
#pragma once

#include <android/NeuralNetworks.h>

#include <new>
#include <stdexcept>

namespace nnemu::runtime {

// Logs "<function>: out of memory" when the log level lets errors through; never throws, so a
// handler may call it while memory is still short.
void reportOutOfMemory(const char* function) noexcept;

}  // namespace nnemu::runtime

#define NNEMU_API_GUARD_RETURNING(...)                   \
    catch (const std::bad_alloc&) {                      \
        ::nnemu::runtime::reportOutOfMemory(__func__);   \
        return __VA_ARGS__;                              \
    }                                                    \
    catch (const std::length_error&) {                   \
        ::nnemu::runtime::reportOutOfMemory(__func__);   \
        return __VA_ARGS__;                              \
    }

#define NNEMU_API_GUARD NNEMU_API_GUARD_RETURNING(ANEURALNETWORKS_OUT_OF_MEMORY)
