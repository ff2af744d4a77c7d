#include "nnemu/base/Process.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>

namespace nnemu::base {

pid_t processId() {
    static std::atomic<pid_t> pid = [] {
        pthread_atfork(nullptr, nullptr, [] { pid.store(getpid(), std::memory_order_relaxed); });
        return getpid();
    }();
    return pid.load(std::memory_order_relaxed);
}

}  // namespace nnemu::base
