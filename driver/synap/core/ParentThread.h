// A helper thread of the process that started it. A child forked while it runs has no such
// thread: joining it there would wait forever, and freeing what the thread uses could pull it
// from under the parent's copy, so in a child join() does nothing and the thread's state is left
// as it is (never freed there).
#pragma once

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <new>
#include <utility>

namespace nnemu::synap {

class ParentThread {
public:
    // Where the thread starts. kBesideCaller: on another CPU than the calling thread's when the
    // process may run on one (ParentThread.cpp says why); it may run anywhere after that.
    enum class Start { kAnywhere, kBesideCaller };

    ParentThread() = default;
    ParentThread(const ParentThread&) = delete;
    ParentThread& operator=(const ParentThread&) = delete;
    ~ParentThread() { join(); }

    // Starts `body`; false when the system has no thread to spare.
    template <class Body>
    bool start(Body&& body, Start where = Start::kAnywhere) {
        auto* task = new (std::nothrow) Task{std::function<void()>(std::forward<Body>(body)), this};
        if (task == nullptr) return false;
        if (!launch(task, where)) {
            delete task;
            return false;
        }
        return true;
    }
    bool forked() const { return getpid() != owner_; }
    bool running() const { return started_; }  // started and not yet joined
    pthread_t handle() const { return thread_; }  // valid while running()
    // Waits for the thread (in the process that started it; nothing in a child). A thread started
    // beside its caller that has not run yet is first moved to this thread's CPU, which is about
    // to wait (ParentThread.cpp).
    void join() {
        if (!started_ || forked()) return;
        awaitHere();
        pthread_join(thread_, nullptr);
        started_ = false;
    }
    // Before this thread waits for something the thread does: a thread started beside its caller
    // that has not run yet is moved to this thread's CPU (as join() does).
    void awaitHere() {
        if (started_ && beside_ && !forked()) pullHere();
    }

private:
    struct Task {
        std::function<void()> body;
        ParentThread* thread;  // outlives the thread: its destructor joins
    };
    // Start::kBesideCaller: who moves the thread first, the thread itself once it runs (widening
    // its mask to allowed_) or a joiner before it ran (to the joiner's CPU).
    enum Phase { kNotRun, kRunning, kPulling, kPulled };
    bool launch(Task* task, Start where);  // ParentThread.cpp
    void pullHere();
    void widen();  // on the thread, first thing
    static void* run(void* task) noexcept;  // an exception out of the body ends the process, as std::thread

    pthread_t thread_{};
    bool started_ = false;
    bool beside_ = false;  // and allowed_ set: both before the thread exists, never written while it runs
    cpu_set_t allowed_{};
    std::atomic<int> phase_{kNotRun};
    const pid_t owner_ = getpid();
};

}  // namespace nnemu::synap
