// This process's id without a system call each time: glibc no longer caches getpid(), and the
// NPU execution path asks for it at every execution (a forked child's pool and statistics).
#pragma once

#include <sys/types.h>

namespace nnemu::base {

// getpid(), kept in memory and refreshed in the child at fork.
pid_t processId();

}  // namespace nnemu::base
