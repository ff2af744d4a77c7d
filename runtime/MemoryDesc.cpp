#include "MemoryDesc.h"

#include <android/NeuralNetworks.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "Compilation.h"
#include "nnemu/base/Allocation.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/OperandTypes.h"

namespace nnemu::runtime {
namespace {

// Two dims are compatible unless both ranks are known and differ or an axis known in both
// differs; the combination keeps what either knows.
bool combineDims(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, std::vector<uint32_t>* out) {
    if (a.empty() || b.empty()) {
        *out = a.empty() ? b : a;
        return true;
    }
    if (a.size() != b.size()) return false;
    std::vector<uint32_t> combined(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != 0 && b[i] != 0 && a[i] != b[i]) return false;
        combined[i] = a[i] != 0 ? a[i] : b[i];
    }
    *out = std::move(combined);
    return true;
}

bool sameExtraParams(const hal::Operand& a, const hal::Operand& b) {
    if (a.channelQuant.has_value() != b.channelQuant.has_value()) return false;
    if (!a.channelQuant) return true;
    return a.channelQuant->channelDim == b.channelQuant->channelDim && a.channelQuant->scales == b.channelQuant->scales;
}

// Type, scale, zero point and extra parameters (what every role of a memory must share).
bool sameOperandMetadata(const hal::Operand& a, const hal::Operand& b) {
    return a.type == b.type && a.scale == b.scale && a.zeroPoint == b.zeroPoint && sameExtraParams(a, b);
}

// A buffer of `bytes` (at least one, so that an empty argument still has an address).
std::shared_ptr<hal::HeapPool> allocateBuffer(uint64_t bytes) {
    if (bytes > std::numeric_limits<uint32_t>::max()) return nullptr;
    std::shared_ptr<hal::HeapPool> buffer;
    if (!guardAllocation([&] { buffer = std::make_shared<hal::HeapPool>(bytes == 0 ? 1 : bytes); }).isOk()) return nullptr;
    return buffer;
}

Argument bufferArgument(std::shared_ptr<hal::HeapPool> buffer, uint64_t length, std::vector<uint32_t> dims) {
    Argument argument;
    argument.state = Argument::State::MEMORY;
    argument.memory = std::move(buffer);
    argument.length = length;
    argument.dims = std::move(dims);
    return argument;
}

}  // namespace

// ---- MemoryDesc -----------------------------------------------------------------------------

bool MemoryDesc::badState(const char* function) const {
    if (finished_) NN_LOG(ERROR) << function << ": the descriptor is already finished";
    return finished_;
}

// In Android's order: the state, a repeated role, the compilation, the index, the operand's
// metadata, the dims, then the frequency. An unfinished or failed compilation is BAD_DATA.
int MemoryDesc::addRole(const Compilation* compilation, bool isInput, uint32_t index, float frequency) {
    const char* function =
            isInput ? "ANeuralNetworksMemoryDesc_addInputRole" : "ANeuralNetworksMemoryDesc_addOutputRole";
    if (badState(function)) return ANEURALNETWORKS_BAD_STATE;
    const MemoryRole role{compilation, isInput, index};
    if (metadata_.roles.count(role) != 0) {
        NN_LOG(ERROR) << function << ": the same role was added twice";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (!compilation->isFinished() || compilation->plan() == nullptr) {
        NN_LOG(ERROR) << function << ": the compilation is not finished or failed";
        return ANEURALNETWORKS_BAD_DATA;
    }
    const hal::Model& model = compilation->model();
    const auto& positions = isInput ? model.inputIndexes : model.outputIndexes;
    if (index >= positions.size()) {
        NN_LOG(ERROR) << function << ": index " << index << " out of range (" << positions.size() << ")";
        return ANEURALNETWORKS_BAD_DATA;
    }
    const hal::Operand& operand = model.operands[positions[index]];
    if (hasOperand_ && !sameOperandMetadata(operand, metadata_.operand)) {
        NN_LOG(ERROR) << function << ": the operand's type, scale, zero point or extra parameters differ "
                      << "from the earlier roles'";
        return ANEURALNETWORKS_BAD_DATA;
    }
    std::vector<uint32_t> dims;
    if (hal::isScalarType(operand.type) && !metadata_.dims.empty()) {
        NN_LOG(ERROR) << function << ": a scalar operand cannot take dimensions " << hal::dimsToString(metadata_.dims);
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (!combineDims(metadata_.dims, operand.dimensions, &dims)) {
        NN_LOG(ERROR) << function << ": dimensions " << hal::dimsToString(operand.dimensions)
                      << " are incompatible with " << hal::dimsToString(metadata_.dims);
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (!(frequency > 0.0f && frequency <= 1.0f)) {
        NN_LOG(ERROR) << function << ": frequency " << frequency << " is not in (0, 1]";
        return ANEURALNETWORKS_BAD_DATA;
    }
    metadata_.roles.insert(role);
    metadata_.operand = operand;
    metadata_.operand.lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
    metadata_.operand.location = {};
    metadata_.dims = std::move(dims);
    hasOperand_ = true;
    return ANEURALNETWORKS_NO_ERROR;
}

int MemoryDesc::setDimensions(const std::vector<uint32_t>& dims) {
    const char* function = "ANeuralNetworksMemoryDesc_setDimensions";
    if (badState(function)) return ANEURALNETWORKS_BAD_STATE;
    if (hasOperand_ && hal::isScalarType(metadata_.operand.type) && !dims.empty()) {
        NN_LOG(ERROR) << function << ": the roles' operand is a scalar";
        return ANEURALNETWORKS_BAD_DATA;
    }
    std::vector<uint32_t> combined;
    if (!combineDims(metadata_.dims, dims, &combined)) {
        NN_LOG(ERROR) << function << ": dimensions " << hal::dimsToString(dims) << " are incompatible with "
                      << hal::dimsToString(metadata_.dims);
        return ANEURALNETWORKS_BAD_DATA;
    }
    metadata_.dims = std::move(combined);
    return ANEURALNETWORKS_NO_ERROR;
}

int MemoryDesc::finish() {
    if (badState("ANeuralNetworksMemoryDesc_finish")) return ANEURALNETWORKS_BAD_STATE;
    if (metadata_.roles.empty()) {
        NN_LOG(ERROR) << "ANeuralNetworksMemoryDesc_finish: no role was added";
        return ANEURALNETWORKS_BAD_DATA;
    }
    finished_ = true;
    return ANEURALNETWORKS_NO_ERROR;
}

// ---- DeviceMemory ---------------------------------------------------------------------------

size_t DeviceMemory::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return contents_.initialised ? hal::byteSize(metadata_.operand.type, contents_.dims) : 0;
}

int DeviceMemory::checkBinding(const Compilation* compilation, bool isInput, uint32_t index,
                               const std::vector<uint32_t>& dims, size_t offset, size_t length) const {
    const char* what = isInput ? "input" : "output";
    if (metadata_.roles.count(MemoryRole{compilation, isInput, index}) == 0) {
        NN_LOG(ERROR) << what << " " << index << " of this compilation is not a role the memory was described for";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (offset != 0 || length != 0) {
        NN_LOG(ERROR) << "a memory from a descriptor binds whole: offset and length must be 0, not " << offset
                      << " and " << length;
        return ANEURALNETWORKS_BAD_DATA;
    }
    std::vector<uint32_t> ignored;
    if (!combineDims(metadata_.dims, dims, &ignored)) {
        NN_LOG(ERROR) << what << " " << index << ": dimensions " << hal::dimsToString(dims)
                      << " are incompatible with the memory's " << hal::dimsToString(metadata_.dims);
        return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

DeviceMemory::Contents DeviceMemory::contents() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return contents_;
}

void DeviceMemory::store(std::shared_ptr<hal::HeapPool> buffer, std::vector<uint32_t> dims) const {
    std::lock_guard<std::mutex> lock(mutex_);
    contents_ = {std::move(buffer), std::move(dims), true};
}

// The buffer stays as a size hint for the next output of unknown shape; it is never read again.
void DeviceMemory::invalidate() const {
    std::lock_guard<std::mutex> lock(mutex_);
    contents_.initialised = false;
}

const DeviceMemory* deviceMemoryOf(const Argument& argument) {
    if (argument.state != Argument::State::MEMORY) return nullptr;
    return dynamic_cast<const DeviceMemory*>(argument.memory.get());
}

// ---- Memory_copy ----------------------------------------------------------------------------

namespace {

// The bytes a copy reads: a device memory's contents or an fd memory's region.
struct CopySource {
    const uint8_t* data = nullptr;
    uint64_t size = 0;
    std::vector<uint32_t> dims;          // empty for an fd memory
    const hal::Operand* operand = nullptr;  // null for an fd memory
    std::shared_ptr<hal::HeapPool> keep;   // holds a device memory's buffer during the copy
};

int readSource(const hal::MemoryPool& source, CopySource* view) {
    const auto* device = dynamic_cast<const DeviceMemory*>(&source);
    if (device == nullptr) {
        view->data = source.data();
        view->size = source.size();
        if (view->data != nullptr) return ANEURALNETWORKS_NO_ERROR;
        NN_LOG(ERROR) << "ANeuralNetworksMemory_copy: the source memory cannot be mapped";
        return ANEURALNETWORKS_OP_FAILED;
    }
    auto contents = device->contents();
    if (!contents.initialised) {
        NN_LOG(ERROR) << "ANeuralNetworksMemory_copy: the source memory is uninitialised";
        return ANEURALNETWORKS_BAD_DATA;
    }
    view->operand = &device->metadata().operand;
    view->size = hal::byteSize(view->operand->type, contents.dims);
    view->dims = std::move(contents.dims);
    view->keep = std::move(contents.buffer);
    view->data = view->keep->data();
    return ANEURALNETWORKS_NO_ERROR;
}

int copyToDevice(const CopySource& from, const DeviceMemory& target) {
    const hal::Operand& operand = target.metadata().operand;
    if (from.operand != nullptr && !sameOperandMetadata(*from.operand, operand)) {
        NN_LOG(ERROR) << "ANeuralNetworksMemory_copy: the memories hold different operand types";
        return ANEURALNETWORKS_BAD_DATA;
    }
    std::vector<uint32_t> dims;
    if (!combineDims(from.dims, target.metadata().dims, &dims) || !hal::isFullySpecified(operand.type, dims) ||
        hal::byteSize(operand.type, dims) != from.size) {
        NN_LOG(ERROR) << "ANeuralNetworksMemory_copy: " << from.size << " bytes of shape "
                      << hal::dimsToString(from.dims)
                      << " do not fit a memory of shape " << hal::dimsToString(target.metadata().dims);
        return ANEURALNETWORKS_BAD_DATA;
    }
    auto buffer = allocateBuffer(from.size);
    if (buffer == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    std::memcpy(buffer->data(), from.data, from.size);
    target.store(std::move(buffer), std::move(dims));
    return ANEURALNETWORKS_NO_ERROR;
}

int copyToFd(const CopySource& from, const hal::MemoryPool& target) {
    if (from.size != target.size()) {
        NN_LOG(ERROR) << "ANeuralNetworksMemory_copy: " << from.size << " bytes do not fit a memory of "
                      << target.size();
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (!target.writable()) {
        NN_LOG(ERROR) << "ANeuralNetworksMemory_copy: the destination was created read-only";
        return ANEURALNETWORKS_BAD_DATA;
    }
    uint8_t* data = target.data();
    if (data == nullptr) return ANEURALNETWORKS_OP_FAILED;
    std::memmove(data, from.data, from.size);  // two fd memories may map the same file
    return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

// The destination's initialised flag follows the result (nnapi-fl30plus.md §3.2).
int copyMemory(const std::shared_ptr<hal::MemoryPool>& source, const std::shared_ptr<hal::MemoryPool>& target) {
    if (source == target) return ANEURALNETWORKS_NO_ERROR;
    const auto* device = dynamic_cast<const DeviceMemory*>(target.get());
    CopySource from;
    int status = readSource(*source, &from);
    if (status == ANEURALNETWORKS_NO_ERROR) status = device ? copyToDevice(from, *device) : copyToFd(from, *target);
    if (status != ANEURALNETWORKS_NO_ERROR && device != nullptr) device->invalidate();
    return status;
}

// ---- Executions -----------------------------------------------------------------------------

namespace {

struct StagedOutput {
    size_t position;
    const DeviceMemory* memory;
    std::shared_ptr<hal::HeapPool> buffer;  // what the run writes
};

// Binds output `s` to a fresh buffer of `bytes`; false if it cannot be allocated.
bool stage(StagedOutput& s, uint64_t bytes, std::vector<uint32_t> dims, std::vector<Argument>* outputs) {
    s.buffer = allocateBuffer(bytes);
    if (s.buffer == nullptr) return false;
    (*outputs)[s.position] = bufferArgument(s.buffer, bytes, std::move(dims));
    return true;
}

// After OUTPUT_INSUFFICIENT_SIZE: larger buffers for the device memories that were too small.
// True if any grew (the plan is then worth running again).
bool restage(std::vector<StagedOutput>& staged, const std::vector<hal::OutputShape>& shapes,
             std::vector<Argument>* outputs, bool* allocated) {
    bool grew = false;
    for (auto& s : staged) {
        const auto& shape = shapes[s.position];
        const uint64_t bytes = hal::byteSize(s.memory->metadata().operand.type, shape.dimensions);
        if (shape.isSufficient || bytes <= (*outputs)[s.position].length) continue;
        if (!stage(s, bytes, shape.dimensions, outputs)) *allocated = false;
        grew = true;
    }
    return grew;
}

// The buffers device-memory inputs hold: OP_FAILED for one uninitialised or holding a shape that
// contradicts its binding.
int bindInputs(const std::vector<Argument>& inputs, std::vector<Argument>* bound) {
    for (size_t i = 0; i < inputs.size(); ++i) {
        const DeviceMemory* memory = deviceMemoryOf(inputs[i]);
        if (memory == nullptr) continue;
        auto contents = memory->contents();
        if (!contents.initialised) {
            NN_LOG(ERROR) << "input " << i << ": its memory is uninitialised";
            return ANEURALNETWORKS_OP_FAILED;
        }
        if (!hal::dimsCompatible(inputs[i].dims, contents.dims)) {
            NN_LOG(ERROR) << "input " << i << ": its memory holds shape " << hal::dimsToString(contents.dims)
                          << ", not " << hal::dimsToString(inputs[i].dims);
            return ANEURALNETWORKS_OP_FAILED;
        }
        const uint64_t bytes = hal::byteSize(memory->metadata().operand.type, contents.dims);
        (*bound)[i] = bufferArgument(std::move(contents.buffer), bytes, std::move(contents.dims));
    }
    return ANEURALNETWORKS_NO_ERROR;
}

// Fresh buffers for device-memory outputs: the size of the shape the binding and the descriptor
// give, or when that is unknown the size the memory last held.
bool stageOutputs(std::vector<StagedOutput>& staged, const std::vector<Argument>& outputs,
                  std::vector<Argument>* bound) {
    for (auto& s : staged) {
        std::vector<uint32_t> dims;
        if (!combineDims(outputs[s.position].dims, s.memory->metadata().dims, &dims)) {
            dims = outputs[s.position].dims;  // not reached: checked at binding
        }
        uint64_t bytes = hal::byteSize(s.memory->metadata().operand.type, dims);
        if (bytes == 0) {
            auto last = s.memory->contents().buffer;
            bytes = last ? last->size() : 0;
        }
        if (!stage(s, bytes, std::move(dims), bound)) return false;
    }
    return true;
}

}  // namespace

int executeWithDeviceMemories(const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                              const std::vector<hal::OutputShape>* shapes, const PlanRun& runPlan) {
    std::vector<StagedOutput> staged;
    for (size_t i = 0; i < outputs.size(); ++i) {
        if (const DeviceMemory* memory = deviceMemoryOf(outputs[i])) staged.push_back({i, memory, nullptr});
    }
    const bool anyInput =
            std::any_of(inputs.begin(), inputs.end(), [](const Argument& a) { return deviceMemoryOf(a) != nullptr; });
    if (staged.empty() && !anyInput) return runPlan(inputs, outputs);

    auto fail = [&](int status) {
        for (const auto& s : staged) s.memory->invalidate();
        return status;
    };
    std::vector<Argument> in = inputs;
    std::vector<Argument> out = outputs;
    if (int n = bindInputs(inputs, &in)) return fail(n);
    if (!stageOutputs(staged, outputs, &out)) return fail(ANEURALNETWORKS_OUT_OF_MEMORY);
    int status = runPlan(in, out);
    // Each retry grows at least one output; a later step of a partitioned plan may report another.
    for (size_t retry = 0; retry < staged.size() && status == ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE; ++retry) {
        bool allocated = true;
        if (!restage(staged, *shapes, &out, &allocated)) break;
        if (!allocated) return fail(ANEURALNETWORKS_OUT_OF_MEMORY);
        status = runPlan(in, out);
    }
    if (status != ANEURALNETWORKS_NO_ERROR) return fail(status);
    for (const auto& s : staged) s.memory->store(s.buffer, (*shapes)[s.position].dimensions);
    return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace nnemu::runtime
