// Memory domains (feature level 30): ANeuralNetworksMemoryDesc and the memory created from it.
//
// nnemu's devices live in the application's process, so "device memory" is a runtime-owned host
// buffer. It still behaves as device memory towards the application: it is not addressable, it
// binds only whole (offset 0, length 0) to the execution roles it was described for, it starts
// uninitialised and only an execution writing it or a Memory_copy into it initialises it. Each
// execution writes a fresh buffer that replaces the old one only on success, so a failed
// execution cannot leave half-written contents behind (it leaves the memory uninitialised).
#pragma once

#include <compare>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "ExecutionPlan.h"
#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

class Compilation;

// One use a memory is described for: input or output `index` of executions of `compilation`.
struct MemoryRole {
    const Compilation* compilation = nullptr;
    bool isInput = true;
    uint32_t index = 0;
    auto operator<=>(const MemoryRole&) const = default;
};

// What every role agrees on: the operand's type and quantization, and the dims combined over the
// roles and setDimensions (0 entries, or rank 0 for a tensor, are unknown).
struct MemoryMetadata {
    hal::Operand operand;
    std::vector<uint32_t> dims;
    std::set<MemoryRole> roles;
};

class MemoryDesc {
public:
    // BAD_STATE after finish; BAD_DATA for a role the rules of nnapi-fl30plus.md §3.2 refuse.
    int addRole(const Compilation* compilation, bool isInput, uint32_t index, float frequency);
    int setDimensions(const std::vector<uint32_t>& dims);
    int finish();
    bool isFinished() const { return finished_; }
    const MemoryMetadata& metadata() const { return metadata_; }

private:
    bool badState(const char* function) const;

    MemoryMetadata metadata_;
    bool hasOperand_ = false;
    bool finished_ = false;
};

// A memory created from a finished descriptor. data() is null: nothing reads it directly, an
// execution binds a snapshot of its contents (see executeWithDeviceMemories).
class DeviceMemory final : public hal::MemoryPool {
public:
    explicit DeviceMemory(MemoryMetadata metadata) : metadata_(std::move(metadata)) {}

    uint8_t* data() const override { return nullptr; }
    size_t size() const override;  // bytes of the shape last written, 0 when uninitialised

    // BAD_DATA unless (compilation, isInput, index) is a described role, the memory is bound whole
    // and `dims` (the model's refined by the type given) fit the described dims.
    int checkBinding(const Compilation* compilation, bool isInput, uint32_t index,
                     const std::vector<uint32_t>& dims, size_t offset, size_t length) const;

    struct Contents {
        std::shared_ptr<hal::HeapPool> buffer;  // never written again once stored
        std::vector<uint32_t> dims;
        bool initialised = false;
    };
    // The contents change under a const memory, as Memory_copy's const destination does.
    Contents contents() const;
    void store(std::shared_ptr<hal::HeapPool> buffer, std::vector<uint32_t> dims) const;
    void invalidate() const;
    const MemoryMetadata& metadata() const { return metadata_; }

private:
    const MemoryMetadata metadata_;
    mutable std::mutex mutex_;
    mutable Contents contents_;
};

// The device memory behind an execution argument, or null.
const DeviceMemory* deviceMemoryOf(const Argument& argument);

// ANeuralNetworksMemory_copy between any two memories (fd-backed or from a descriptor).
int copyMemory(const std::shared_ptr<hal::MemoryPool>& source, const std::shared_ptr<hal::MemoryPool>& target);

// Runs the plan (`runPlan`, which fills `shapes`) with the device memories among the arguments
// replaced by their buffers: inputs must be initialised and have a shape fitting the binding (else
// OP_FAILED); outputs write fresh buffers that the memories take on success, and every output
// memory is uninitialised after a failure. An output of unknown size gets the size of what it
// last held, and the plan runs again with the sizes the drivers report if that was too small.
using PlanRun = std::function<int(const std::vector<Argument>& inputs, const std::vector<Argument>& outputs)>;
int executeWithDeviceMemories(const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                              const std::vector<hal::OutputShape>* shapes, const PlanRun& runPlan);

}  // namespace nnemu::runtime
