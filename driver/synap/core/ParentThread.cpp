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
// runs like any thread after that (a wider mask never moves a running thread).
bool ParentThread::launch(Task* task, Start where) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return false;
    bool placed = false;
    if (where == Start::kBesideCaller && sched_getaffinity(0, sizeof task->allowed, &task->allowed) == 0) {
        const int here = sched_getcpu();
        if (here >= 0 && here < CPU_SETSIZE && CPU_ISSET(here, &task->allowed) && CPU_COUNT(&task->allowed) > 1) {
            cpu_set_t elsewhere = task->allowed;
            CPU_CLR(here, &elsewhere);
            placed = pthread_attr_setaffinity_np(&attributes, sizeof elsewhere, &elsewhere) == 0;
        }
    }
    task->widen = placed;
    int created = pthread_create(&thread_, &attributes, &ParentThread::run, task);
    if (created != 0 && placed) {  // a mask the system refused: started as any thread
        task->widen = false;
        pthread_attr_destroy(&attributes);
        pthread_attr_init(&attributes);
        created = pthread_create(&thread_, &attributes, &ParentThread::run, task);
    }
    pthread_attr_destroy(&attributes);
    started_ = created == 0;
    return started_;
}

void* ParentThread::run(void* argument) noexcept {
    const std::unique_ptr<Task> task(static_cast<Task*>(argument));
    if (task->widen) sched_setaffinity(0, sizeof task->allowed, &task->allowed);
    task->body();
    return nullptr;
}

}  // namespace nnemu::synap
