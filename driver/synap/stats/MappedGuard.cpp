#include "MappedGuard.h"

#include <setjmp.h>
#include <signal.h>

#include <mutex>

namespace nnemu::synap {
namespace {

thread_local sigjmp_buf* tGuard = nullptr;  // the innermost guarded access of this thread
struct sigaction gPrevious {};

void onBusError(int signal, siginfo_t* info, void* context) {
    if (sigjmp_buf* guard = tGuard) siglongjmp(*guard, 1);
    // Not ours: as the handler we replaced would have done.
    if (gPrevious.sa_flags & SA_SIGINFO) {
        if (gPrevious.sa_sigaction != nullptr) return gPrevious.sa_sigaction(signal, info, context);
    } else if (gPrevious.sa_handler != SIG_DFL && gPrevious.sa_handler != SIG_IGN) {
        return gPrevious.sa_handler(signal);
    }
    // The default action: returning re-runs the faulting access, which now ends the process.
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(SIGBUS, &fallback, nullptr);
}

void install() {
    struct sigaction action {};
    action.sa_sigaction = onBusError;
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;  // no mask to restore after the jump
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &gPrevious);
}

}  // namespace

bool guardedAccess(void (*fn)(void*), void* arg) {
    static std::once_flag installed;
    std::call_once(installed, install);
    sigjmp_buf guard;
    sigjmp_buf* const outer = tGuard;
    if (sigsetjmp(guard, 0) != 0) {  // 0: no signal mask saved, so no system call
        tGuard = outer;
        return false;
    }
    tGuard = &guard;
    fn(arg);
    tGuard = outer;
    return true;
}

}  // namespace nnemu::synap
