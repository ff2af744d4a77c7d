#include "ParentThread.h"

#include <sched.h>

#include <memory>

namespace nnemu::synap {

// Start::kBesideCaller. Linux usually queues a new thread on its creator's CPU even when another
// CPU is idle (an idle vCPU is halted, and the scheduler takes it for preempted), and there it
// waits until its creator blocks or the next scheduler tick (4 ms at HZ=250): a prefetch started
// while preparing waited so for the first inference, which then waited for it. Created with every
// CPU but the caller's (glibc sets the mask before the thread runs), it starts at once on an idle
// one (an IPI, 40-70 us measured); its first act is to take the caller's whole mask back, so it
// runs like any thread after that (a wider mask never moves a running thread). When that other
// CPU is busy, the thread waits there behind another process's thread, and a mask it has not
// widened yet keeps it from the joiner's CPU once the joiner waits for it: the joiner moves a
// thread that has not run yet to its own CPU first (measured with a busy loop on the machine:
// without this, the first inference waited 1.0-1.1 ms for the prefetch, 0.2-0.4 ms for the base's
// thread queued behind the creator).
bool ParentThread::launch(Task* task, Start where) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return false;
    bool placed = false;
    if (where == Start::kBesideCaller && sched_getaffinity(0, sizeof allowed_, &allowed_) == 0) {
        const int here = sched_getcpu();
        if (here >= 0 && here < CPU_SETSIZE && CPU_ISSET(here, &allowed_) && CPU_COUNT(&allowed_) > 1) {
            cpu_set_t elsewhere = allowed_;
            CPU_CLR(here, &elsewhere);
            placed = pthread_attr_setaffinity_np(&attributes, sizeof elsewhere, &elsewhere) == 0;
        }
    }
    beside_ = placed;
    phase_.store(kNotRun, std::memory_order_relaxed);
    int created = pthread_create(&thread_, &attributes, &ParentThread::run, task);
    if (created != 0 && placed) {  // a mask the system refused: started as any thread
        beside_ = false;
        pthread_attr_destroy(&attributes);
        pthread_attr_init(&attributes);
        created = pthread_create(&thread_, &attributes, &ParentThread::run, task);
    }
    pthread_attr_destroy(&attributes);
    started_ = created == 0;
    return started_;
}

// A joiner claims a thread that has not run: the thread cannot end (nor its id go) before the
// joiner says it is done, so the call always names it.
void ParentThread::pullHere() {
    int phase = kNotRun;
    if (!phase_.compare_exchange_strong(phase, kPulling, std::memory_order_acq_rel)) return;
    const int here = sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE) {
        cpu_set_t only;
        CPU_ZERO(&only);
        CPU_SET(here, &only);
        pthread_setaffinity_np(thread_, sizeof only, &only);
    }
    phase_.store(kPulled, std::memory_order_release);
}

void ParentThread::widen() {
    int phase = kNotRun;
    if (!phase_.compare_exchange_strong(phase, kRunning, std::memory_order_acq_rel)) {
        while (phase_.load(std::memory_order_acquire) == kPulling) sched_yield();  // a joiner moving it
    }
    sched_setaffinity(0, sizeof allowed_, &allowed_);
}

void* ParentThread::run(void* argument) noexcept {
    const std::unique_ptr<Task> task(static_cast<Task*>(argument));
    if (task->thread->beside_) task->thread->widen();
    task->body();
    return nullptr;
}

}  // namespace nnemu::synap
