// A helper thread of the process that started it. A child forked while it runs has no such
// thread: joining it there would wait forever, and freeing what the thread uses could pull it
// from under the parent's copy, so in a child join() does nothing and the thread's state is left
// as it is (never freed there).
#pragma once

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

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
        auto* task = new (std::nothrow) Task{std::function<void()>(std::forward<Body>(body)), {}, false};
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
    // Waits for the thread (in the process that started it; nothing in a child).
    void join() {
        if (!started_ || forked()) return;
        pthread_join(thread_, nullptr);
        started_ = false;
    }

private:
    struct Task {
        std::function<void()> body;
        cpu_set_t allowed;    // the CPUs it may run on once started (kBesideCaller)
        bool widen = false;   // started on fewer: given `allowed` back first
    };
    bool launch(Task* task, Start where);  // ParentThread.cpp
    static void* run(void* task) noexcept;  // an exception out of the body ends the process, as std::thread

    pthread_t thread_{};
    bool started_ = false;
    const pid_t owner_ = getpid();
};

}  // namespace nnemu::synap
