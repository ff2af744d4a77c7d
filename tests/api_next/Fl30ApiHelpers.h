// Helpers of the FL30/FL5 API tests (QoS, fenced and reusable executions, padding): the ADD
// model of tests/api/AddModel.h compiled in the ways those functions distinguish.
#pragma once

#include <poll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>

#include <cstdint>
#include <vector>

#include "AddModel.h"

namespace nnemu::apitest {

// An unfinished compilation of `model`: for `devices` (createForDevices) or, when empty, over
// every device (create).
inline CompilationPtr unfinishedCompilation(ANeuralNetworksModel* model,
                                            const std::vector<const ANeuralNetworksDevice*>& devices = {}) {
    ANeuralNetworksCompilation* compilation = nullptr;
    if (devices.empty()) {
        EXPECT_EQ(ANeuralNetworksCompilation_create(model, &compilation), ANEURALNETWORKS_NO_ERROR);
    } else {
        EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model, devices.data(),
                                                              static_cast<uint32_t>(devices.size()), &compilation),
                  ANEURALNETWORKS_NO_ERROR);
    }
    return CompilationPtr(compilation);
}

// Every device that supports the whole ADD model.
inline std::vector<const ANeuralNetworksDevice*> devicesRunning(ANeuralNetworksModel* model) {
    std::vector<const ANeuralNetworksDevice*> result;
    for (const ANeuralNetworksDevice* device : allDeviceHandles()) {
        bool supported = false;
        const ANeuralNetworksDevice* list[] = {device};
        if (ANeuralNetworksModel_getSupportedOperationsForDevices(model, list, 1, &supported) ==
                    ANEURALNETWORKS_NO_ERROR &&
            supported) {
            result.push_back(device);
        }
    }
    return result;
}

inline bool isMissedDeadline(int code) {
    return code == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT || code == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT;
}

// Whether `fd` polls readable now (timeout 0) or, with `wait`, ever (it blocks until then).
inline bool readable(int fd, bool wait = false) {
    pollfd entry{fd, POLLIN, 0};
    const int n = poll(&entry, 1, wait ? -1 : 0);
    return n == 1 && (entry.revents & POLLIN) != 0;
}

inline void signalEventFd(int fd) {
    const uint64_t one = 1;
    ASSERT_EQ(write(fd, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
}

// An event the test signals itself: an eventfd wrapped by Event_createFromSyncFenceFd.
struct TestFence {
    Fd fd{eventfd(0, EFD_CLOEXEC)};
    EventPtr event;
    TestFence() {
        ANeuralNetworksEvent* created = nullptr;
        EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(fd.get(), &created), ANEURALNETWORKS_NO_ERROR);
        event.reset(created);
    }
    void signal() { signalEventFd(fd.get()); }
};

// An fd memory of `count` floats the test reads and writes through its own mapping.
class FdMemory {
public:
    explicit FdMemory(size_t count, int protect = PROT_READ | PROT_WRITE)
        : bytes_(count * sizeof(float)), fd_(makeSharedMemoryFd(bytes_)) {
        mapping_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
        ANeuralNetworksMemory* memory = nullptr;
        EXPECT_EQ(ANeuralNetworksMemory_createFromFd(bytes_, protect, fd_.get(), 0, &memory), ANEURALNETWORKS_NO_ERROR);
        memory_.reset(memory);
    }
    ~FdMemory() {
        if (mapping_ != MAP_FAILED) munmap(mapping_, bytes_);
    }
    float* floats() { return static_cast<float*>(mapping_); }
    std::vector<float> values() const {
        const auto* data = static_cast<const float*>(mapping_);
        return {data, data + bytes_ / sizeof(float)};
    }
    ANeuralNetworksMemory* get() const { return memory_.get(); }
    // The NNAPI memory, for the caller to free; the mapping stays.
    ANeuralNetworksMemory* release() { return memory_.release(); }

private:
    size_t bytes_;
    Fd fd_;
    void* mapping_ = MAP_FAILED;
    MemoryPtr memory_;
};

}  // namespace nnemu::apitest
