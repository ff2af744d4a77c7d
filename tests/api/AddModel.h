// Shared helpers of the API tests: RAII owners for the NNAPI handles and a tiny ADD model
//   output[2] = input0[2] + input1[2]   (TENSOR_FLOAT32, fused activation held in a constant)
// built only through the public C API, as an application would.
#pragma once

#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include "NnapiOwners.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nnemu::apitest {

using namespace nnemu::nnapi;  // owners of the NNAPI handles (NnapiOwners.h)

// An anonymous shared-memory file of `size` bytes (what an app would hand to createFromFd).
inline int makeSharedMemoryFd(size_t size) {
    const int fd = memfd_create("nnemu-api-test", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// An NNAPI memory over `fd` (createFromFd with `protect`, offset 0); null, with a test failure,
// on error.
inline MemoryPtr memoryFromFd(int fd, size_t size, int protect = PROT_READ | PROT_WRITE) {
    ANeuralNetworksMemory* raw = nullptr;
    EXPECT_EQ(ANeuralNetworksMemory_createFromFd(size, protect, fd, 0, &raw), ANEURALNETWORKS_NO_ERROR);
    return MemoryPtr(raw);
}

// ---- Operand types -----------------------------------------------------------------------------

inline ANeuralNetworksOperandType tensorType(int32_t code, const std::vector<uint32_t>& dims, float scale = 0.0f,
                                             int32_t zeroPoint = 0) {
    return {code, static_cast<uint32_t>(dims.size()), dims.empty() ? nullptr : dims.data(), scale, zeroPoint};
}

inline ANeuralNetworksOperandType scalarType(int32_t code) { return {code, 0, nullptr, 0.0f, 0}; }

// A list argument that is never null: Android refuses a null list even with a zero count, and
// the data() of an empty vector may be null.
inline const uint32_t* listOf(const std::vector<uint32_t>& list) {
    static const uint32_t kNone = 0;
    return list.empty() ? &kNone : list.data();
}

// ---- The ADD model -----------------------------------------------------------------------------

// Operand indices of the ADD model.
constexpr uint32_t kInput0 = 0;
constexpr uint32_t kInput1 = 1;
constexpr uint32_t kActivation = 2;
constexpr uint32_t kOutput = 3;
constexpr size_t kTensorBytes = 2 * sizeof(float);

struct AddModelOptions {
    std::vector<uint32_t> input0Dims{2};  // {0} leaves input 0's size to the execution
    std::vector<uint32_t> input1Dims{2};
    std::vector<uint32_t> outputDims{2};  // {0} or {} make the output shape unknown
    int32_t activation = ANEURALNETWORKS_FUSED_NONE;
    bool finish = true;
};

// Adds the operands, the operation and the inputs/outputs of the ADD model to `model`; returns
// the first result code that is not NO_ERROR (and finishes the model when asked).
inline int buildAddModel(ANeuralNetworksModel* model, const AddModelOptions& options = {}) {
    const ANeuralNetworksOperandType input0 = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, options.input0Dims);
    const ANeuralNetworksOperandType input = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, options.input1Dims);
    const ANeuralNetworksOperandType output = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, options.outputDims);
    const ANeuralNetworksOperandType activation = scalarType(ANEURALNETWORKS_INT32);
    if (int n = ANeuralNetworksModel_addOperand(model, &input0)) return n;      // kInput0
    if (int n = ANeuralNetworksModel_addOperand(model, &input)) return n;       // kInput1
    if (int n = ANeuralNetworksModel_addOperand(model, &activation)) return n;  // kActivation
    if (int n = ANeuralNetworksModel_addOperand(model, &output)) return n;      // kOutput
    if (int n = ANeuralNetworksModel_setOperandValue(model, kActivation, &options.activation,
                                                     sizeof(options.activation))) {
        return n;
    }
    const uint32_t inputs[] = {kInput0, kInput1, kActivation};
    const uint32_t outputs[] = {kOutput};
    if (int n = ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, inputs, 1, outputs)) return n;
    const uint32_t modelInputs[] = {kInput0, kInput1};
    if (int n = ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, modelInputs, 1, outputs)) return n;
    return options.finish ? ANeuralNetworksModel_finish(model) : ANEURALNETWORKS_NO_ERROR;
}

inline ModelPtr newModel() {
    ANeuralNetworksModel* model = nullptr;
    EXPECT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    return ModelPtr(model);
}

// The ADD model, finished unless `options.finish` is false; null (with a test failure) on error.
inline ModelPtr makeAddModel(const AddModelOptions& options = {}) {
    ModelPtr model = newModel();
    if (model == nullptr) return nullptr;
    const int status = buildAddModel(model.get(), options);
    EXPECT_EQ(status, ANEURALNETWORKS_NO_ERROR);
    return status == ANEURALNETWORKS_NO_ERROR ? std::move(model) : nullptr;
}

// A finished compilation of `model` over every device; null (with a test failure) on error.
inline CompilationPtr compile(ANeuralNetworksModel* model) {
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_create(model, &compilation), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr owner(compilation);
    if (owner == nullptr) return nullptr;
    const int status = ANeuralNetworksCompilation_finish(compilation);
    EXPECT_EQ(status, ANEURALNETWORKS_NO_ERROR);
    return status == ANEURALNETWORKS_NO_ERROR ? std::move(owner) : nullptr;
}

inline ExecutionPtr newExecution(ANeuralNetworksCompilation* compilation) {
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), ANEURALNETWORKS_NO_ERROR);
    return ExecutionPtr(execution);
}

// The ADD model of `options`, its compilation for every device and one execution: the state most
// execution tests start from. Fails the test at the first step that fails (as ASSERT does).
inline void makeAddExecution(const AddModelOptions& options, ModelPtr* model, CompilationPtr* compilation,
                             ExecutionPtr* execution) {
    *model = makeAddModel(options);
    ASSERT_NE(*model, nullptr);
    *compilation = compile(model->get());
    ASSERT_NE(*compilation, nullptr);
    *execution = newExecution(compilation->get());
    ASSERT_NE(*execution, nullptr);
}

// `execution` started asynchronously (startCompute): its event, or null with a test failure.
inline EventPtr startCompute(ANeuralNetworksExecution* execution) {
    ANeuralNetworksEvent* event = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution, &event), ANEURALNETWORKS_NO_ERROR);
    return EventPtr(event);
}

// A burst of `compilation`; null, with a test failure, on error.
inline BurstPtr newBurst(ANeuralNetworksCompilation* compilation) {
    ANeuralNetworksBurst* burst = nullptr;
    EXPECT_EQ(ANeuralNetworksBurst_create(compilation, &burst), ANEURALNETWORKS_NO_ERROR);
    return BurstPtr(burst);
}

// The device called `name`, or null.
inline const ANeuralNetworksDevice* findDevice(const std::string& name) {
    uint32_t count = 0;
    if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return nullptr;
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        const char* deviceName = nullptr;
        if (ANeuralNetworks_getDevice(i, &device) == ANEURALNETWORKS_NO_ERROR &&
            ANeuralNetworksDevice_getName(device, &deviceName) == ANEURALNETWORKS_NO_ERROR && deviceName == name) {
            return device;
        }
    }
    return nullptr;
}

inline const ANeuralNetworksDevice* referenceDevice() { return findDevice("nnapi-reference"); }

// Every device, in index order (a test failure if one cannot be read).
inline std::vector<const ANeuralNetworksDevice*> allDeviceHandles() {
    std::vector<const ANeuralNetworksDevice*> result;
    uint32_t count = 0;
    EXPECT_EQ(ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_NO_ERROR);
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        EXPECT_EQ(ANeuralNetworks_getDevice(i, &device), ANEURALNETWORKS_NO_ERROR);
        result.push_back(device);
    }
    return result;
}

// A finished compilation of `model` restricted to `devices`; null (with a test failure) on error.
inline CompilationPtr compileFor(ANeuralNetworksModel* model, const std::vector<const ANeuralNetworksDevice*>& devices) {
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model, devices.data(),
                                                          static_cast<uint32_t>(devices.size()), &compilation),
              ANEURALNETWORKS_NO_ERROR);
    CompilationPtr owner(compilation);
    if (owner == nullptr) return nullptr;
    const int status = ANeuralNetworksCompilation_finish(compilation);
    EXPECT_EQ(status, ANEURALNETWORKS_NO_ERROR);
    return status == ANEURALNETWORKS_NO_ERROR ? std::move(owner) : nullptr;
}

// Buffers of one run of the ADD model.
struct AddBuffers {
    float input0[2] = {1.0f, 2.0f};
    float input1[2] = {10.0f, -20.0f};
    float output[2] = {-1.0f, -1.0f};
};

// Which arguments bindAddBuffers binds: a position is set once (a second set is BAD_STATE), so
// a test binding one from a memory leaves it out here.
struct AddBindings {
    bool input0 = true;
    bool input1 = true;
    bool output = true;
};

// Binds `buffers` by pointer to the inputs and outputs of `execution` that `which` names.
inline int bindAddBuffers(ANeuralNetworksExecution* execution, AddBuffers& buffers, AddBindings which = {}) {
    if (which.input0) {
        if (int n = ANeuralNetworksExecution_setInput(execution, 0, nullptr, buffers.input0, sizeof(buffers.input0))) {
            return n;
        }
    }
    if (which.input1) {
        if (int n = ANeuralNetworksExecution_setInput(execution, 1, nullptr, buffers.input1, sizeof(buffers.input1))) {
            return n;
        }
    }
    if (!which.output) return ANEURALNETWORKS_NO_ERROR;
    return ANeuralNetworksExecution_setOutput(execution, 0, nullptr, buffers.output, sizeof(buffers.output));
}

}  // namespace nnemu::apitest
