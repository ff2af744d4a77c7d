// A helper thread of the process that started it. A child forked while it runs has no such
// thread: joining it there would wait forever, and destroying a joinable std::thread aborts, so
// in a child join() does nothing and the thread object is left as it is (never freed there).
#pragma once

#include <unistd.h>

#include <system_error>
#include <thread>
#include <utility>

namespace nnemu::synap {

class ParentThread {
public:
    ParentThread() = default;
    ParentThread(const ParentThread&) = delete;
    ParentThread& operator=(const ParentThread&) = delete;
    ~ParentThread() { join(); }

    // Starts `body`; false when the system has no thread to spare.
    template <class Body>
    bool start(Body&& body) {
        try {
            thread_ = new std::thread(std::forward<Body>(body));
        } catch (const std::system_error&) {
            return false;
        }
        return true;
    }
    bool forked() const { return getpid() != owner_; }
    std::thread* get() const { return thread_; }  // null before start() and once joined
    // Waits for the thread (in the process that started it; nothing in a child).
    void join() {
        if (thread_ == nullptr || forked()) return;
        thread_->join();
        delete thread_;
        thread_ = nullptr;
    }

private:
    std::thread* thread_ = nullptr;
    const pid_t owner_ = getpid();
};

}  // namespace nnemu::synap
