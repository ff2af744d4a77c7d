#include "Event.h"

#include <android/NeuralNetworks.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace nnemu::runtime {

Event::~Event() {
    if (result_.valid()) result_.wait();
    if (fence_ >= 0) close(fence_);
}

int Event::wait() const {
    if (result_.valid()) return result_.get();
    return waitForFence(fence_, -1);
}

bool Event::failed() const {
    if (result_.valid()) {
        return result_.wait_for(std::chrono::seconds(0)) == std::future_status::ready &&
               result_.get() != ANEURALNETWORKS_NO_ERROR;
    }
    return waitForFence(fence_, 0) == ANEURALNETWORKS_OP_FAILED;
}

int waitForFence(int fd, int timeoutMs) {
    pollfd entry{fd, POLLIN, 0};
    int n;
    do {
        n = poll(&entry, 1, timeoutMs);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return ANEURALNETWORKS_OP_FAILED;
    if (n == 0) return -1;
    if (entry.revents & (POLLERR | POLLNVAL)) return ANEURALNETWORKS_OP_FAILED;
    return ANEURALNETWORKS_NO_ERROR;
}

int makeFence() { return eventfd(0, EFD_CLOEXEC); }

// The counter only grows: readers of a dup see it readable for good (nobody should read it).
void signalFence(int fd) {
    const uint64_t one = 1;
    ssize_t n;
    do {
        n = write(fd, &one, sizeof(one));
    } while (n < 0 && errno == EINTR);
}

}  // namespace nnemu::runtime
