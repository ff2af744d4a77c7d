// libFuzzer target for model validation through the C API: the bytes (NnapiModelFormat.h) are a
// stream of ANeuralNetworksModel calls, made as an application would make them, whatever they
// say. A model that finishes is asked what each device supports, and, when the flags say so,
// compiled for nnapi-reference and, when it is small (bytes and estimated work), run on inputs
// taken from the rest of the bytes. Nothing may crash, hang, leak or read outside a buffer;
// refusals are expected.
// The same function backs nnapi_model_fuzz_replay (FuzzReplay.cpp).
#include <android/NeuralNetworks.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "NnapiModelFormat.h"

namespace {

using nnemu::fuzz::FuzzModelReader;

constexpr uint64_t kMaxRunBytes = uint64_t{256} << 10;  // inputs and outputs of a model we run
// Estimated multiply-adds of a model we run (workOf): larger models are validated and compiled,
// not run (running them held the campaigns at a few hundred executions a second). A replay under
// the sanitizers can lift it: NNEMU_FUZZ_MAX_RUN_WORK=<count>.
constexpr uint64_t kMaxRunWork = uint64_t{1} << 22;
uint64_t maxRunWork = kMaxRunWork;
constexpr uint64_t kMaxUnknownOutputBytes = 64 << 10;   // buffer for an output of unknown size
constexpr uint32_t kMaxRank = 8;
constexpr size_t kMaxValueBytes = size_t{1} << 20;      // larger values are passed as null
constexpr size_t kMaxMemoryBytes = size_t{1} << 20;

// What the harness passed to addOperand, for the calls that succeeded: operand i is entry i.
struct OperandInfo {
    int32_t type;
    std::vector<uint32_t> dims;
    float scale;
    int32_t zeroPoint;
};

uint64_t elementBytes(int32_t type) {
    switch (type) {
        case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM:
        case ANEURALNETWORKS_TENSOR_BOOL8:
        case ANEURALNETWORKS_TENSOR_QUANT8_SYMM:
        case ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL:
        case ANEURALNETWORKS_BOOL:
            return 1;
        case ANEURALNETWORKS_TENSOR_QUANT16_SYMM:
        case ANEURALNETWORKS_TENSOR_QUANT16_ASYMM:
        case ANEURALNETWORKS_TENSOR_FLOAT16:
        case ANEURALNETWORKS_FLOAT16:
            return 2;
        default:
            return 4;
    }
}

// Bytes of an operand of `dims`, saturating at UINT64_MAX.
uint64_t bytesOf(int32_t type, const std::vector<uint32_t>& dims) {
    uint64_t bytes = elementBytes(type);
    for (uint32_t d : dims) {
        if (d != 0 && bytes > std::numeric_limits<uint64_t>::max() / d) return std::numeric_limits<uint64_t>::max();
        bytes *= d;
    }
    return bytes;
}

// What the harness passed to addOperation, for the calls that succeeded.
struct OperationInfo {
    int32_t type;
    std::vector<uint32_t> inputs, outputs;
};

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
    return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

uint64_t saturatingMultiply(uint64_t a, uint64_t b) {
    return b != 0 && a > std::numeric_limits<uint64_t>::max() / b ? std::numeric_limits<uint64_t>::max() : a * b;
}

bool isScalar(int32_t type) {
    return type == ANEURALNETWORKS_FLOAT32 || type == ANEURALNETWORKS_INT32 || type == ANEURALNETWORKS_UINT32 ||
           type == ANEURALNETWORKS_BOOL || type == ANEURALNETWORKS_FLOAT16;
}

// Elements of `dims`, 0 when a dimension (or the rank) is unknown.
uint64_t elementsOf(int32_t type, const std::vector<uint32_t>& dims) {
    if (dims.empty()) return isScalar(type) ? 1 : 0;
    uint64_t elements = 1;
    for (uint32_t d : dims) elements = saturatingMultiply(elements, d);
    return elements;
}

struct Handles {
    ANeuralNetworksModel* model = nullptr;
    ANeuralNetworksCompilation* compilation = nullptr;
    ANeuralNetworksExecution* execution = nullptr;
    std::vector<ANeuralNetworksMemory*> memories;
    std::vector<int> fds;
    ~Handles() {
        ANeuralNetworksExecution_free(execution);
        ANeuralNetworksCompilation_free(compilation);
        ANeuralNetworksModel_free(model);
        for (auto* memory : memories) ANeuralNetworksMemory_free(memory);
        for (int fd : fds) close(fd);
    }
};

// The state of one input's model-building calls.
struct Builder {
    FuzzModelReader& in;
    Handles& handles;
    std::vector<OperandInfo> operands;
    std::vector<OperationInfo> operations;
    std::vector<uint32_t> inputs, outputs;  // of the last identify call that succeeded
    std::deque<std::vector<uint8_t>> values;  // kept until finish: large values are referenced
    uint32_t operationCount = 0;
    bool finished = false;

    std::vector<uint32_t> indexes(uint32_t count) {
        std::vector<uint32_t> list(count);
        for (uint32_t& index : list) index = in.small();
        return list;
    }

    void addOperand() {
        const uint8_t code = in.byte();
        const int32_t type = code == 0xFF ? static_cast<int32_t>(in.raw32())
                                          : static_cast<int32_t>(code % nnemu::fuzz::kOperandTypeCount);
        std::vector<uint32_t> dims(in.byte() % kMaxRank);
        for (uint32_t& d : dims) d = in.small();
        const float scale = in.scale();
        const auto zeroPoint = static_cast<int32_t>(in.small());
        const ANeuralNetworksOperandType operand{type, static_cast<uint32_t>(dims.size()),
                                                 dims.empty() ? nullptr : dims.data(), scale, zeroPoint};
        if (ANeuralNetworksModel_addOperand(handles.model, &operand) == ANEURALNETWORKS_NO_ERROR) {
            operands.push_back({type, std::move(dims), scale, zeroPoint});
        }
    }

    void setValue() {
        const auto index = static_cast<int32_t>(in.small());
        const uint32_t length = in.length();
        if (length == nnemu::fuzz::kNullValue || length > kMaxValueBytes) {
            const size_t passed = length == nnemu::fuzz::kNullValue ? 0 : length;
            ANeuralNetworksModel_setOperandValue(handles.model, index, nullptr, passed);
            return;
        }
        std::vector<uint8_t> value = in.bytes(length);
        value.resize(length);
        // A heap copy of exactly `length` bytes, so that a read past it is caught.
        values.push_back(std::move(value));
        ANeuralNetworksModel_setOperandValue(handles.model, index, values.back().data(), length);
    }

    void setValueFromMemory() {
        const auto index = static_cast<int32_t>(in.small());
        const int protect = in.byte() & (PROT_READ | PROT_WRITE);
        const size_t fileSize = std::min<size_t>(in.length(), kMaxMemoryBytes);
        const size_t memorySize = in.length(), memoryOffset = in.length(), offset = in.length(), length = in.length();
        const int fd = memfd_create("nnapi-model-fuzz", MFD_CLOEXEC);
        if (fd < 0) return;
        handles.fds.push_back(fd);
        if (ftruncate(fd, static_cast<off_t>(fileSize)) != 0) return;
        const std::vector<uint8_t> head = in.bytes(std::min<size_t>(fileSize, 64));
        if (!head.empty() && pwrite(fd, head.data(), head.size(), 0) < 0) return;
        ANeuralNetworksMemory* memory = nullptr;
        const int created = ANeuralNetworksMemory_createFromFd(memorySize, protect, fd, memoryOffset, &memory);
        if (created != ANEURALNETWORKS_NO_ERROR) return;
        handles.memories.push_back(memory);
        ANeuralNetworksModel_setOperandValueFromMemory(handles.model, index, memory, offset, length);
    }

    void addOperation() {
        const auto type = static_cast<int32_t>(in.small());
        const std::vector<uint32_t> ins = indexes(in.byte() % 16);
        const std::vector<uint32_t> outs = indexes(in.byte() % 8);
        const int added = ANeuralNetworksModel_addOperation(handles.model, type, static_cast<uint32_t>(ins.size()),
                                                            ins.data(), static_cast<uint32_t>(outs.size()), outs.data());
        if (added == ANEURALNETWORKS_NO_ERROR) {
            ++operationCount;
            operations.push_back({type, ins, outs});
        }
    }

    void identify() {
        std::vector<uint32_t> ins = indexes(in.byte() % 16);
        std::vector<uint32_t> outs = indexes(in.byte() % 16);
        if (ANeuralNetworksModel_identifyInputsAndOutputs(handles.model, static_cast<uint32_t>(ins.size()), ins.data(),
                                                          static_cast<uint32_t>(outs.size()),
                                                          outs.data()) == ANEURALNETWORKS_NO_ERROR) {
            inputs = std::move(ins);
            outputs = std::move(outs);
        }
    }

    void perChannel() {
        const auto index = static_cast<int32_t>(in.small());
        const uint32_t channelDim = in.small();
        std::vector<float> scales(std::min<uint32_t>(in.small(), 4096));
        for (float& scale : scales) scale = in.scale();
        const ANeuralNetworksSymmPerChannelQuantParams params{channelDim, static_cast<uint32_t>(scales.size()),
                                                              scales.data()};
        ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(handles.model, index, &params);
    }

    void build() {
        while (!in.done() && !finished) {
            switch (in.byte() % nnemu::fuzz::kCallCount) {
                case nnemu::fuzz::kAddOperand: addOperand(); break;
                case nnemu::fuzz::kSetValue: setValue(); break;
                case nnemu::fuzz::kSetValueFromMemory: setValueFromMemory(); break;
                case nnemu::fuzz::kAddOperation: addOperation(); break;
                case nnemu::fuzz::kIdentify: identify(); break;
                case nnemu::fuzz::kPerChannel: perChannel(); break;
                case nnemu::fuzz::kRelax:
                    ANeuralNetworksModel_relaxComputationFloat32toFloat16(handles.model, (in.byte() & 1) != 0);
                    break;
                case nnemu::fuzz::kFinish: finished = true; break;
            }
        }
        // A model left unfinished is finished anyway: most inputs end before a finish call.
        finished = ANeuralNetworksModel_finish(handles.model) == ANEURALNETWORKS_NO_ERROR;
    }
};

const ANeuralNetworksDevice* deviceNamed(const std::string& wanted) {
    uint32_t count = 0;
    ANeuralNetworks_getDeviceCount(&count);
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        const char* name = nullptr;
        if (ANeuralNetworks_getDevice(i, &device) == ANEURALNETWORKS_NO_ERROR &&
            ANeuralNetworksDevice_getName(device, &name) == ANEURALNETWORKS_NO_ERROR && wanted == name) {
            return device;
        }
    }
    return nullptr;
}

// Elements of each operand in a run: the declared dims, the dims chosen for the model's inputs,
// and for an operand of unknown size the largest known one (shape inference mostly keeps or
// combines sizes).
std::vector<uint64_t> runElements(const Builder& builder, const std::vector<std::vector<uint32_t>>& inputDims) {
    std::vector<uint64_t> elements;
    for (const OperandInfo& operand : builder.operands) elements.push_back(elementsOf(operand.type, operand.dims));
    for (size_t i = 0; i < builder.inputs.size(); ++i) {
        elements[builder.inputs[i]] = elementsOf(builder.operands[builder.inputs[i]].type, inputDims[i]);
    }
    uint64_t largest = 1;
    for (uint64_t count : elements) largest = std::max(largest, count);
    for (uint64_t& count : elements) count = count != 0 ? count : largest;
    return elements;
}

// Multiply-adds of one operation, roughly: a convolution or fully connected layer does, for each
// output (each input for a transposed one), one filter slice's worth; anything else a few per
// element it reads or writes.
uint64_t workOf(const OperationInfo& operation, const Builder& builder, const std::vector<uint64_t>& elements) {
    uint64_t in = 0, out = 0, first = 0;
    for (uint32_t index : operation.inputs) in = saturatingAdd(in, elements[index]);
    for (uint32_t index : operation.outputs) out = std::max(out, elements[index]);
    if (!operation.inputs.empty()) first = elements[operation.inputs[0]];
    // Filter elements per output (per input) channel; the channel is filter dim `channelDim`.
    auto slice = [&](size_t channelDim) -> uint64_t {
        if (operation.inputs.size() < 2) return 1;
        const uint32_t filter = operation.inputs[1];
        const std::vector<uint32_t>& dims = builder.operands[filter].dims;
        const uint32_t channels = dims.empty() ? 1 : std::max<uint32_t>(channelDim == 0 ? dims.front() : dims.back(), 1);
        return std::max<uint64_t>(1, elements[filter] / channels);
    };
    switch (operation.type) {
        case ANEURALNETWORKS_CONV_2D:
        case ANEURALNETWORKS_GROUPED_CONV_2D:
        case ANEURALNETWORKS_FULLY_CONNECTED: return saturatingMultiply(out, slice(0));
        case ANEURALNETWORKS_DEPTHWISE_CONV_2D: return saturatingMultiply(out, slice(1));
        case ANEURALNETWORKS_TRANSPOSE_CONV_2D: return saturatingMultiply(first, slice(1));
        default: return saturatingAdd(in, out);
    }
}

uint64_t modelWork(const Builder& builder, const std::vector<std::vector<uint32_t>>& inputDims) {
    const std::vector<uint64_t> elements = runElements(builder, inputDims);
    uint64_t work = 0;
    for (const OperationInfo& operation : builder.operations) {
        work = saturatingAdd(work, workOf(operation, builder, elements));
    }
    return work;
}

// Fills `buffer` from the input's remaining bytes, repeated (a fixed pattern when none are left).
void fill(std::vector<uint8_t>& buffer, const uint8_t* data, size_t size) {
    for (size_t i = 0; i < buffer.size(); ++i) {
        buffer[i] = size > 0 ? data[i % size] : static_cast<uint8_t>(i * 37 + 11);
    }
}

// Binds every input (unknown dimensions get small values) and output, and runs once.
void execute(Builder& builder, uint8_t flags) {
    Handles& handles = builder.handles;
    FuzzModelReader& in = builder.in;
    if (ANeuralNetworksExecution_create(handles.compilation, &handles.execution) != ANEURALNETWORKS_NO_ERROR) return;
    uint64_t total = 0;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<std::vector<uint32_t>> inputDims;
    for (uint32_t index : builder.inputs) {
        const OperandInfo& operand = builder.operands.at(index);
        std::vector<uint32_t> dims = operand.dims;
        for (uint32_t& d : dims) d = d != 0 ? d : 1 + in.byte() % 4;
        total += std::min<uint64_t>(bytesOf(operand.type, dims), kMaxRunBytes + 1);
        inputDims.push_back(std::move(dims));
    }
    for (uint32_t index : builder.outputs) {
        const OperandInfo& operand = builder.operands.at(index);
        const uint64_t bytes = bytesOf(operand.type, operand.dims);
        const bool known = !operand.dims.empty() && bytes != 0;
        total += known ? std::min<uint64_t>(bytes, kMaxRunBytes + 1) : kMaxUnknownOutputBytes;
    }
    if (total > kMaxRunBytes || modelWork(builder, inputDims) > maxRunWork) return;
    for (size_t i = 0; i < builder.inputs.size(); ++i) {
        const OperandInfo& operand = builder.operands[builder.inputs[i]];
        const ANeuralNetworksOperandType type{operand.type, static_cast<uint32_t>(inputDims[i].size()),
                                              inputDims[i].empty() ? nullptr : inputDims[i].data(), operand.scale,
                                              operand.zeroPoint};
        buffers.emplace_back(bytesOf(operand.type, inputDims[i]));
        fill(buffers.back(), in.rest(), in.restSize());
        const bool omitted = (in.byte() & 0x0F) == 0x0F;
        ANeuralNetworksExecution_setInput(handles.execution, static_cast<int32_t>(i), &type,
                                          omitted ? nullptr : buffers.back().data(),
                                          omitted ? 0 : buffers.back().size());
    }
    for (size_t i = 0; i < builder.outputs.size(); ++i) {
        const OperandInfo& operand = builder.operands[builder.outputs[i]];
        const uint64_t bytes = bytesOf(operand.type, operand.dims);
        buffers.emplace_back(!operand.dims.empty() && bytes != 0 ? bytes : kMaxUnknownOutputBytes);
        ANeuralNetworksExecution_setOutput(handles.execution, static_cast<int32_t>(i), nullptr, buffers.back().data(),
                                           buffers.back().size());
    }
    int status;
    if ((flags & nnemu::fuzz::kFlagEvent) != 0) {
        ANeuralNetworksEvent* event = nullptr;
        status = ANeuralNetworksExecution_startCompute(handles.execution, &event);
        if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksEvent_wait(event);
        ANeuralNetworksEvent_free(event);
    } else {
        status = ANeuralNetworksExecution_compute(handles.execution);
    }
    if (status != ANEURALNETWORKS_NO_ERROR && status != ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE) return;
    for (size_t i = 0; i < builder.outputs.size(); ++i) {
        uint32_t rank = 0;
        if (ANeuralNetworksExecution_getOutputOperandRank(handles.execution, static_cast<int32_t>(i), &rank) !=
            ANEURALNETWORKS_NO_ERROR) {
            continue;
        }
        std::vector<uint32_t> dims(rank + 1);
        ANeuralNetworksExecution_getOutputOperandDimensions(handles.execution, static_cast<int32_t>(i), dims.data());
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    setenv("NNEMU_LOG", "silent", 1);  // refused models are expected; keep the output readable
    // A device root of its own: nothing the runtime or drivers write lands in the user's.
    char pattern[] = "/tmp/nnapi-model-fuzz-XXXXXX";
    if (const char* root = mkdtemp(pattern)) setenv("NNEMU_ROOT", root, 1);
    if (const char* work = getenv("NNEMU_FUZZ_MAX_RUN_WORK")) maxRunWork = std::strtoull(work, nullptr, 10);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const ANeuralNetworksDevice* const reference = deviceNamed("nnapi-reference");
    static const ANeuralNetworksDevice* const npu = deviceNamed("synap-npu");
    FuzzModelReader in(data, size);
    const uint8_t flags = in.byte();
    Handles handles;
    if (ANeuralNetworksModel_create(&handles.model) != ANEURALNETWORKS_NO_ERROR) return 0;
    Builder builder{in, handles, {}, {}, {}, {}, {}, 0, false};
    builder.build();
    if (!builder.finished) return 0;
    // What each device would take: synap-npu's lowering rules judge the model too.
    std::vector<const ANeuralNetworksDevice*> devices;
    for (const auto* device : {reference, npu}) {
        if (device != nullptr) devices.push_back(device);
    }
    std::unique_ptr<bool[]> supported(new bool[builder.operationCount + 1]);
    for (const auto* device : devices) {
        ANeuralNetworksModel_getSupportedOperationsForDevices(handles.model, &device, 1, supported.get());
    }
    if ((flags & nnemu::fuzz::kFlagExecute) == 0 || reference == nullptr) return 0;
    if (ANeuralNetworksCompilation_createForDevices(handles.model, &reference, 1, &handles.compilation) !=
        ANEURALNETWORKS_NO_ERROR) {
        return 0;
    }
    ANeuralNetworksCompilation_setPreference(handles.compilation, (flags >> nnemu::fuzz::kFlagPreferenceShift) & 3);
    if (ANeuralNetworksCompilation_finish(handles.compilation) != ANEURALNETWORKS_NO_ERROR) return 0;
    execute(builder, flags);
    return 0;
}
