// RAII owners of NNAPI handles and of a file descriptor, shared by the API tests (AddModel.h) and
// the conformance runner, which use the NNAPI only through its public C API.
#pragma once

#include <android/NeuralNetworks.h>

#include <unistd.h>

#include <memory>

namespace nnemu::nnapi {

// Frees an NNAPI handle with its ANeuralNetworks*_free function.
template <typename Handle, void (*Free)(Handle*)>
struct Deleter {
    void operator()(Handle* handle) const { Free(handle); }
};

using ModelPtr = std::unique_ptr<ANeuralNetworksModel, Deleter<ANeuralNetworksModel, ANeuralNetworksModel_free>>;
using CompilationPtr =
    std::unique_ptr<ANeuralNetworksCompilation, Deleter<ANeuralNetworksCompilation, ANeuralNetworksCompilation_free>>;
using ExecutionPtr =
    std::unique_ptr<ANeuralNetworksExecution, Deleter<ANeuralNetworksExecution, ANeuralNetworksExecution_free>>;
using EventPtr = std::unique_ptr<ANeuralNetworksEvent, Deleter<ANeuralNetworksEvent, ANeuralNetworksEvent_free>>;
using MemoryPtr = std::unique_ptr<ANeuralNetworksMemory, Deleter<ANeuralNetworksMemory, ANeuralNetworksMemory_free>>;
using BurstPtr = std::unique_ptr<ANeuralNetworksBurst, Deleter<ANeuralNetworksBurst, ANeuralNetworksBurst_free>>;

// A file descriptor closed on destruction.
class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    void reset() {
        if (fd_ >= 0) close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

}  // namespace nnemu::nnapi
