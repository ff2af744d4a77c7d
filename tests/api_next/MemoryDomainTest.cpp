// Memory domains (feature level 30, nnapi-fl30plus.md §3.2): the result codes of
// ANeuralNetworksMemoryDesc_*, Memory_createFromDesc and Memory_copy, the binding rules of device
// memory, and device memory carrying state between executions on every device.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "Fl30ApiHelpers.h"

namespace nnemu::apitest {
namespace {

struct DescDeleter {
    void operator()(ANeuralNetworksMemoryDesc* p) const { ANeuralNetworksMemoryDesc_free(p); }
};
using DescPtr = std::unique_ptr<ANeuralNetworksMemoryDesc, DescDeleter>;

DescPtr newDesc() {
    ANeuralNetworksMemoryDesc* desc = nullptr;
    EXPECT_EQ(ANeuralNetworksMemoryDesc_create(&desc), ANEURALNETWORKS_NO_ERROR);
    return DescPtr(desc);
}

struct Role {
    const ANeuralNetworksCompilation* compilation;
    bool isInput;
    uint32_t index;
};

int addRole(ANeuralNetworksMemoryDesc* desc, const Role& role, float frequency = 1.0f) {
    return role.isInput ? ANeuralNetworksMemoryDesc_addInputRole(desc, role.compilation, role.index, frequency)
                        : ANeuralNetworksMemoryDesc_addOutputRole(desc, role.compilation, role.index, frequency);
}

// A memory from a finished descriptor with `roles` (and `dims` when not empty); null on error.
MemoryPtr deviceMemory(const std::vector<Role>& roles, const std::vector<uint32_t>& dims = {}) {
    DescPtr desc = newDesc();
    for (const Role& role : roles) EXPECT_EQ(addRole(desc.get(), role), ANEURALNETWORKS_NO_ERROR);
    if (!dims.empty()) {
        EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), static_cast<uint32_t>(dims.size()), dims.data()),
                  ANEURALNETWORKS_NO_ERROR);
    }
    EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksMemory* memory = nullptr;
    EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), &memory), ANEURALNETWORKS_NO_ERROR);
    return MemoryPtr(memory);  // the descriptor need not outlive the memory
}

// output = input0 + input1 with `code` tensors; input 2 is the fused activation (a scalar model
// input) when `activationInput`, else a constant.
struct AddSpec {
    int32_t code = ANEURALNETWORKS_TENSOR_FLOAT32;
    std::vector<uint32_t> input0Dims{2};
    std::vector<uint32_t> outputDims{2};
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    bool activationInput = false;
};

ModelPtr makeAdd(const AddSpec& spec) {
    ModelPtr model = newModel();
    const std::vector<uint32_t> dims{2};
    const auto input0 = tensorType(spec.code, spec.input0Dims, spec.scale, spec.zeroPoint);
    const auto input1 = tensorType(spec.code, dims, spec.scale, spec.zeroPoint);
    const auto output = tensorType(spec.code, spec.outputDims, spec.scale, spec.zeroPoint);
    const auto activation = scalarType(ANEURALNETWORKS_INT32);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &input0), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &input1), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &activation), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &output), ANEURALNETWORKS_NO_ERROR);
    if (!spec.activationInput) {
        const int32_t none = ANEURALNETWORKS_FUSED_NONE;
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    }
    const uint32_t inputs[] = {0, 1, 2};
    const uint32_t outputs[] = {3};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, inputs, 1, outputs),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), spec.activationInput ? 3 : 2, inputs, 1,
                                                            outputs),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model.get()), ANEURALNETWORKS_NO_ERROR);
    return model;
}

// CONV_2D of a [1,1,1,1] QUANT8_ASYMM input with a per-channel filter that is model input 1, its
// one channel of scale `filterScale` (the per-channel scales are the operand's extra parameters).
ModelPtr makePerChannelConv(float filterScale) {
    ModelPtr model = newModel();
    const std::vector<uint32_t> dims{1, 1, 1, 1};
    const std::vector<uint32_t> one{1};
    const auto input = tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, dims, 1.0f, 0);
    const auto filter = tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, dims);
    const auto bias = tensorType(ANEURALNETWORKS_TENSOR_INT32, one);
    const auto scalar = scalarType(ANEURALNETWORKS_INT32);
    for (const auto* type : {&input, &filter, &bias, &scalar, &scalar, &scalar, &scalar, &input}) {
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), type), ANEURALNETWORKS_NO_ERROR);
    }
    const ANeuralNetworksSymmPerChannelQuantParams quant{0, 1, &filterScale};
    EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), 1, &quant),
              ANEURALNETWORKS_NO_ERROR);
    const int32_t zero = 0;
    const int32_t values[] = {ANEURALNETWORKS_PADDING_SAME, 1, 1, ANEURALNETWORKS_FUSED_NONE};
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 2, &zero, sizeof(zero)), ANEURALNETWORKS_NO_ERROR);
    for (uint32_t i = 0; i < 4; ++i) {
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), static_cast<int32_t>(3 + i), &values[i],
                                                       sizeof(int32_t)),
                  ANEURALNETWORKS_NO_ERROR);
    }
    const uint32_t inputs[] = {0, 1, 2, 3, 4, 5, 6};
    const uint32_t outputs[] = {7};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_CONV_2D, 7, inputs, 1, outputs),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 2, inputs, 1, outputs),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model.get()), ANEURALNETWORKS_NO_ERROR);
    return model;
}

// A model and its finished compilation over every device.
struct Compiled {
    ModelPtr model;
    CompilationPtr compilation;
    ANeuralNetworksCompilation* get() const { return compilation.get(); }
};

Compiled compiled(const AddSpec& spec = {}) {
    Compiled result{makeAdd(spec), nullptr};
    result.compilation = compile(result.model.get());
    return result;
}

int compute(ANeuralNetworksExecution* execution) { return ANeuralNetworksExecution_compute(execution); }

// ---- MemoryDesc --------------------------------------------------------------------------------

TEST(MemoryDomainTest, DescCreateRejectsNullAndFreeAcceptsNull) {
    EXPECT_EQ(ANeuralNetworksMemoryDesc_create(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    ANeuralNetworksMemoryDesc_free(nullptr);
    newDesc();  // an unfinished descriptor may be freed
}

TEST(MemoryDomainTest, AddRoleRejectsNullArguments) {
    Compiled add = compiled();
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(nullptr, add.get(), 0, 1.0f), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), nullptr, 0, 1.0f), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(nullptr, add.get(), 0, 1.0f), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), nullptr, 0, 1.0f), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST(MemoryDomainTest, AddRoleNeedsAFinishedCompilation) {
    ModelPtr model = makeAdd({});
    ANeuralNetworksCompilation* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr unfinished(raw);
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), unfinished.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), unfinished.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryDomainTest, AddRoleIndexIsAnInputOrOutputPosition) {
    Compiled add = compiled();
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 2, 1.0f), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), add.get(), 1, 1.0f), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 1, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
}

TEST(MemoryDomainTest, AddRoleRefusesTheSameRoleTwice) {
    Compiled add = compiled();
    Compiled other = compiled();
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, 0.5f), ANEURALNETWORKS_BAD_DATA);
    // Another position, direction or compilation is another role.
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 1, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), other.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryDomainTest, AddRoleFrequencyMustLieInZeroToOne) {
    Compiled add = compiled();
    DescPtr desc = newDesc();
    for (float frequency : {0.0f, -0.5f, 1.0001f, std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity()}) {
        EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, frequency), ANEURALNETWORKS_BAD_DATA)
                << frequency;
    }
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 1, 1e-6f), ANEURALNETWORKS_NO_ERROR);
}

TEST(MemoryDomainTest, AddRoleOperandMetadataMustAgree) {
    Compiled floats = compiled();
    Compiled quant = compiled({ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, {2}, 0.5f, 3});
    Compiled otherScale = compiled({ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, {2}, 0.25f, 3});
    Compiled otherZeroPoint = compiled({ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, {2}, 0.5f, 4});
    Compiled sameQuant = compiled({ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, {2}, 0.5f, 3});
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), quant.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), floats.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), otherScale.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), otherZeroPoint.get(), 0, 1.0f),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), sameQuant.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
}

TEST(MemoryDomainTest, AddRoleExtraParamsMustAgree) {
    ModelPtr half = makePerChannelConv(0.5f);
    ModelPtr quarter = makePerChannelConv(0.25f);
    ModelPtr sameHalf = makePerChannelConv(0.5f);
    CompilationPtr a = compile(half.get());
    CompilationPtr b = compile(quarter.get());
    CompilationPtr c = compile(sameHalf.get());
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_NE(c, nullptr);
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), a.get(), 1, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), b.get(), 1, 1.0f), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), c.get(), 1, 1.0f), ANEURALNETWORKS_NO_ERROR);
}

TEST(MemoryDomainTest, AddRoleDimensionsMustBeCompatible) {
    Compiled add = compiled();                                       // input 0 is [2]
    Compiled dynamic = compiled({ANEURALNETWORKS_TENSOR_FLOAT32, {0}, {0}});  // input 0 is [?]
    const uint32_t three[] = {3};
    const uint32_t matrix[] = {2, 1};
    DescPtr desc = newDesc();
    ASSERT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, three), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), dynamic.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    DescPtr ranked = newDesc();
    ASSERT_EQ(ANeuralNetworksMemoryDesc_setDimensions(ranked.get(), 2, matrix), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(ranked.get(), dynamic.get(), 0, 1.0f), ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryDomainTest, ScalarRolesTakeNoDimensions) {
    Compiled add = compiled({ANEURALNETWORKS_TENSOR_FLOAT32, {2}, {2}, 0.0f, 0, true});  // input 2: INT32 scalar
    const uint32_t one[] = {1};
    DescPtr desc = newDesc();
    ASSERT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, one), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 2, 1.0f), ANEURALNETWORKS_BAD_DATA);
    DescPtr scalar = newDesc();
    ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(scalar.get(), add.get(), 2, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(scalar.get(), 1, one), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(scalar.get(), 0, nullptr), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(scalar.get()), ANEURALNETWORKS_NO_ERROR);
}

TEST(MemoryDomainTest, SetDimensionsRules) {
    Compiled add = compiled();
    const uint32_t two[] = {2};
    const uint32_t unknown[] = {0};
    const uint32_t three[] = {3};
    const uint32_t matrix[] = {2, 2};
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(nullptr, 1, two), ANEURALNETWORKS_UNEXPECTED_NULL);
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, three), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 2, matrix), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, unknown), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 0, nullptr), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, two), ANEURALNETWORKS_NO_ERROR);
}

TEST(MemoryDomainTest, FinishOnceAndWithARole) {
    Compiled add = compiled();
    const uint32_t two[] = {2};
    EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    DescPtr desc = newDesc();
    EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 1, 1.0f), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(desc.get(), 1, two), ANEURALNETWORKS_BAD_STATE);
    // BAD_STATE comes before the values.
    EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 9, 0.0f), ANEURALNETWORKS_BAD_STATE);
}

TEST(MemoryDomainTest, CreateFromDescNeedsAFinishedDescriptor) {
    Compiled add = compiled();
    DescPtr desc = newDesc();
    ANeuralNetworksMemory* memory = nullptr;
    EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(nullptr, &memory), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), add.get(), 0, 1.0f), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), &memory), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(memory, nullptr);
    ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), &memory), ANEURALNETWORKS_NO_ERROR);
    MemoryPtr first(memory);
    EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), &memory), ANEURALNETWORKS_NO_ERROR);
    MemoryPtr second(memory);
    EXPECT_NE(first.get(), second.get());
}

// ---- Binding -----------------------------------------------------------------------------------

TEST(MemoryDomainTest, DeviceMemoryBindsWholeInItsRolesOnly) {
    Compiled add = compiled();
    Compiled other = compiled();
    MemoryPtr memory = deviceMemory({{add.get(), true, 0}});
    ExecutionPtr execution = newExecution(add.get());
    auto* e = execution.get();
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, memory.get(), 4, 0), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 1, nullptr, memory.get(), 0, 0), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(e, 0, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_BAD_DATA);
    const std::vector<uint32_t> three{3};
    const auto wrongShape = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, three);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, &wrongShape, memory.get(), 0, 0),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, memory.get(), 0, 0), ANEURALNETWORKS_NO_ERROR);
    ExecutionPtr otherExecution = newExecution(other.get());
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(otherExecution.get(), 0, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryDomainTest, DeviceMemoryCannotHoldModelConstants) {
    Compiled add = compiled();
    MemoryPtr memory = deviceMemory({{add.get(), true, 0}});
    ModelPtr model = newModel();
    const std::vector<uint32_t> two{2};
    const auto type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, two);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &type), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), 0, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), 0, memory.get(), 0, 0),
              ANEURALNETWORKS_BAD_DATA);
}

// An uninitialised input is detected at compute (OP_FAILED): the memory may be initialised
// between binding and compute.
TEST(MemoryDomainTest, UninitialisedInputFailsTheCompute) {
    Compiled add = compiled();
    MemoryPtr memory = deviceMemory({{add.get(), true, 0}, {add.get(), false, 0}});
    AddBuffers buffers;
    ExecutionPtr execution = newExecution(add.get());
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers, {.input0 = false}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
    uint32_t rank = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), ANEURALNETWORKS_BAD_STATE);

    // Initialised by a copy in between, the same binding then works.
    FdMemory state(2);
    state.floats()[0] = 5.0f;
    state.floats()[1] = 6.0f;
    ASSERT_EQ(ANeuralNetworksMemory_copy(state.get(), memory.get()), ANEURALNETWORKS_NO_ERROR);
    ExecutionPtr again = newExecution(add.get());
    ASSERT_EQ(bindAddBuffers(again.get(), buffers, {.input0 = false}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(again.get(), 0, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(compute(again.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(buffers.output[0], 15.0f);
    EXPECT_EQ(buffers.output[1], -14.0f);
}

TEST(MemoryDomainTest, FailedExecutionUninitialisesItsOutputs) {
    Compiled add = compiled();
    MemoryPtr written = deviceMemory({{add.get(), false, 0}, {add.get(), true, 0}});
    MemoryPtr empty = deviceMemory({{add.get(), true, 0}});
    AddBuffers buffers;
    ExecutionPtr first = newExecution(add.get());
    ASSERT_EQ(bindAddBuffers(first.get(), buffers, {.output = false}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(first.get(), 0, nullptr, written.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(compute(first.get()), ANEURALNETWORKS_NO_ERROR);
    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(written.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{11.0f, -18.0f}));

    ExecutionPtr failing = newExecution(add.get());
    ASSERT_EQ(bindAddBuffers(failing.get(), buffers, {.input0 = false, .output = false}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(failing.get(), 0, nullptr, empty.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(failing.get(), 0, nullptr, written.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(compute(failing.get()), ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(ANeuralNetworksMemory_copy(written.get(), readBack.get()), ANEURALNETWORKS_BAD_DATA);
}

// A run the device fails (shapes [3] + [2] do not broadcast) also leaves its output uninitialised.
TEST(MemoryDomainTest, ExecutionFailingOnTheDeviceUninitialisesItsOutputs) {
    Compiled dynamic = compiled({ANEURALNETWORKS_TENSOR_FLOAT32, {0}, {0}});
    MemoryPtr memory = deviceMemory({{dynamic.get(), false, 0}});
    FdMemory initial(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(initial.get(), memory.get()), ANEURALNETWORKS_BAD_DATA);  // shape unknown
    float a[3] = {1.0f, 2.0f, 3.0f};
    float b[2] = {1.0f, 2.0f};
    const std::vector<uint32_t> two{2};
    const std::vector<uint32_t> three{3};
    const auto pair = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, two);
    const auto triple = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, three);
    auto run = [&](const ANeuralNetworksOperandType* type, float* input0, size_t length) {
        ExecutionPtr execution = newExecution(dynamic.get());
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, type, input0, length),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, b, sizeof(b)),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, memory.get(), 0, 0),
                  ANEURALNETWORKS_NO_ERROR);
        return compute(execution.get());
    };
    ASSERT_EQ(run(&pair, a, 2 * sizeof(float)), ANEURALNETWORKS_NO_ERROR);
    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(memory.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{2.0f, 4.0f}));
    EXPECT_EQ(run(&triple, a, sizeof(a)), ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(ANeuralNetworksMemory_copy(memory.get(), readBack.get()), ANEURALNETWORKS_BAD_DATA);
}

// startCompute and burstCompute bind device memory as compute does.
TEST(MemoryDomainTest, StartComputeAndBurstUseDeviceMemory) {
    Compiled add = compiled();
    MemoryPtr state = deviceMemory({{add.get(), true, 0}, {add.get(), false, 0}});
    FdMemory initial(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(initial.get(), state.get()), ANEURALNETWORKS_NO_ERROR);  // zeros
    float x[2] = {1.0f, 2.0f};
    auto bind = [&](ANeuralNetworksExecution* execution) {
        EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution, 0, nullptr, state.get(), 0, 0),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution, 1, nullptr, x, sizeof(x)), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution, 0, nullptr, state.get(), 0, 0),
                  ANEURALNETWORKS_NO_ERROR);
    };
    ExecutionPtr asynchronous = newExecution(add.get());
    bind(asynchronous.get());
    ANeuralNetworksEvent* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(asynchronous.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    EventPtr event(raw);
    ASSERT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksBurst* rawBurst = nullptr;
    ASSERT_EQ(ANeuralNetworksBurst_create(add.get(), &rawBurst), ANEURALNETWORKS_NO_ERROR);
    BurstPtr burst(rawBurst);
    ExecutionPtr inBurst = newExecution(add.get());
    bind(inBurst.get());
    ASSERT_EQ(ANeuralNetworksExecution_burstCompute(inBurst.get(), burst.get()), ANEURALNETWORKS_NO_ERROR);
    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(state.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{2.0f, 4.0f}));
}

// ---- Memory_copy -------------------------------------------------------------------------------

TEST(MemoryDomainTest, CopyRejectsNullArguments) {
    FdMemory fd(2);
    EXPECT_EQ(ANeuralNetworksMemory_copy(nullptr, fd.get()), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksMemory_copy(fd.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST(MemoryDomainTest, CopyOntoItselfIsANoOp) {
    Compiled add = compiled();
    MemoryPtr device = deviceMemory({{add.get(), true, 0}});
    EXPECT_EQ(ANeuralNetworksMemory_copy(device.get(), device.get()), ANEURALNETWORKS_NO_ERROR);  // even uninitialised
    FdMemory readBack(2);
    EXPECT_EQ(ANeuralNetworksMemory_copy(device.get(), readBack.get()), ANEURALNETWORKS_BAD_DATA);  // still so
    EXPECT_EQ(ANeuralNetworksMemory_copy(readBack.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
}

TEST(MemoryDomainTest, CopyFromUninitialisedDeviceMemoryIsBadData) {
    Compiled add = compiled();
    MemoryPtr source = deviceMemory({{add.get(), true, 0}});
    MemoryPtr target = deviceMemory({{add.get(), true, 1}});
    FdMemory fd(2);
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), fd.get()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), target.get()), ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryDomainTest, CopyBetweenFdMemories) {
    FdMemory source(2);
    FdMemory target(2);
    FdMemory larger(3);
    FdMemory readOnly(2, PROT_READ);
    source.floats()[0] = 1.5f;
    source.floats()[1] = -2.5f;
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), target.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(target.values(), source.values());
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), larger.get()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemory_copy(larger.get(), source.get()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), readOnly.get()), ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryDomainTest, CopyBetweenFdAndDeviceMemoryNeedsTheSameSize) {
    Compiled add = compiled();
    Compiled dynamic = compiled({ANEURALNETWORKS_TENSOR_FLOAT32, {0}, {0}});
    MemoryPtr device = deviceMemory({{add.get(), true, 0}});
    MemoryPtr unknownShape = deviceMemory({{dynamic.get(), true, 0}});
    FdMemory larger(3);
    FdMemory exact(2);
    EXPECT_EQ(ANeuralNetworksMemory_copy(larger.get(), device.get()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemory_copy(exact.get(), unknownShape.get()), ANEURALNETWORKS_BAD_DATA);
    exact.floats()[0] = 7.0f;
    exact.floats()[1] = 8.0f;
    ASSERT_EQ(ANeuralNetworksMemory_copy(exact.get(), device.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemory_copy(device.get(), larger.get()), ANEURALNETWORKS_BAD_DATA);
    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(device.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{7.0f, 8.0f}));
}

TEST(MemoryDomainTest, FailedCopyUninitialisesTheDestination) {
    Compiled add = compiled();
    MemoryPtr device = deviceMemory({{add.get(), true, 0}});
    FdMemory exact(2);
    FdMemory larger(3);
    ASSERT_EQ(ANeuralNetworksMemory_copy(exact.get(), device.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemory_copy(larger.get(), device.get()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksMemory_copy(device.get(), exact.get()), ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryDomainTest, CopyBetweenDeviceMemories) {
    Compiled add = compiled();
    Compiled dynamic = compiled({ANEURALNETWORKS_TENSOR_FLOAT32, {0}, {0}});
    Compiled quant = compiled({ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, {2}, 0.5f, 0});
    Compiled otherScale = compiled({ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2}, {2}, 0.25f, 0});
    MemoryPtr source = deviceMemory({{add.get(), true, 0}});
    MemoryPtr target = deviceMemory({{add.get(), true, 1}});
    MemoryPtr unknownShape = deviceMemory({{dynamic.get(), true, 0}});
    MemoryPtr threeWide = deviceMemory({{dynamic.get(), true, 0}}, {3});
    FdMemory fd(2);
    fd.floats()[0] = 3.0f;
    fd.floats()[1] = 4.0f;
    ASSERT_EQ(ANeuralNetworksMemory_copy(fd.get(), source.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), target.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), unknownShape.get()), ANEURALNETWORKS_NO_ERROR);  // takes [2]
    EXPECT_EQ(ANeuralNetworksMemory_copy(source.get(), threeWide.get()), ANEURALNETWORKS_BAD_DATA);
    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(unknownShape.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{3.0f, 4.0f}));
    readBack.floats()[0] = 0.0f;
    ASSERT_EQ(ANeuralNetworksMemory_copy(target.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{3.0f, 4.0f}));

    // Same byte size, other operand metadata.
    MemoryPtr quantSource = deviceMemory({{quant.get(), true, 0}});
    MemoryPtr quantTarget = deviceMemory({{otherScale.get(), true, 0}});
    const uint8_t bytes[2] = {1, 2};
    const int fd2 = makeSharedMemoryFd(2);
    ASSERT_GE(fd2, 0);
    Fd owner(fd2);
    ASSERT_EQ(pwrite(fd2, bytes, 2, 0), 2);
    ANeuralNetworksMemory* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksMemory_createFromFd(2, PROT_READ, fd2, 0, &raw), ANEURALNETWORKS_NO_ERROR);
    MemoryPtr quantFd(raw);
    ASSERT_EQ(ANeuralNetworksMemory_copy(quantFd.get(), quantSource.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksMemory_copy(quantSource.get(), quantTarget.get()), ANEURALNETWORKS_BAD_DATA);
}

// ---- Device memory through executions, on every device -----------------------------------------

class MemoryDomainDeviceTest : public ::testing::TestWithParam<std::string> {
protected:
    // `model` compiled for the parameter's device, or over every device for "default".
    CompilationPtr compileHere(ANeuralNetworksModel* model) {
        if (GetParam() == "default") return compile(model);
        const ANeuralNetworksDevice* device = findDevice(GetParam());
        EXPECT_NE(device, nullptr);
        return device ? compileFor(model, {device}) : nullptr;
    }
};

// The state of a recurrent network: state = state + x, kept in one device memory that every
// execution reads and writes.
TEST_P(MemoryDomainDeviceTest, RecurrentStateStaysInDeviceMemory) {
    ModelPtr model = makeAdd({});
    CompilationPtr compilation = compileHere(model.get());
    ASSERT_NE(compilation, nullptr);
    MemoryPtr state = deviceMemory({{compilation.get(), true, 0}, {compilation.get(), false, 0}});
    FdMemory initial(2);
    initial.floats()[0] = 1.0f;
    initial.floats()[1] = 2.0f;
    ASSERT_EQ(ANeuralNetworksMemory_copy(initial.get(), state.get()), ANEURALNETWORKS_NO_ERROR);
    float x[2] = {0.5f, -1.0f};
    for (int step = 0; step < 3; ++step) {
        ExecutionPtr execution = newExecution(compilation.get());
        ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, state.get(), 0, 0),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, x, sizeof(x)),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, state.get(), 0, 0),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(compute(execution.get()), ANEURALNETWORKS_NO_ERROR) << "step " << step;
    }
    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(state.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{2.5f, -1.0f}));
}

// Execution 1 writes the memory as its output; execution 2 (of another compilation) reads it.
TEST_P(MemoryDomainDeviceTest, OutputOfOneExecutionFeedsTheNext) {
    ModelPtr model = makeAdd({});
    CompilationPtr producer = compileHere(model.get());
    CompilationPtr consumer = compileHere(model.get());
    ASSERT_NE(producer, nullptr);
    ASSERT_NE(consumer, nullptr);
    MemoryPtr memory = deviceMemory({{producer.get(), false, 0}, {consumer.get(), true, 1}});
    AddBuffers first;
    ExecutionPtr one = newExecution(producer.get());
    ASSERT_EQ(ANeuralNetworksExecution_setInput(one.get(), 0, nullptr, first.input0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(one.get(), 1, nullptr, first.input1, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(one.get(), 0, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(compute(one.get()), ANEURALNETWORKS_NO_ERROR);
    AddBuffers second;
    ExecutionPtr two = newExecution(consumer.get());
    ASSERT_EQ(ANeuralNetworksExecution_setInput(two.get(), 0, nullptr, second.input0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(two.get(), 1, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(two.get(), 0, nullptr, second.output, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(compute(two.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(second.output[0], 1.0f + 11.0f);
    EXPECT_EQ(second.output[1], 2.0f - 18.0f);
}

// A memory of unknown shape: each output defines it, later inputs must match what was written.
TEST_P(MemoryDomainDeviceTest, DynamicShapeThroughDeviceMemory) {
    ModelPtr model = makeAdd({ANEURALNETWORKS_TENSOR_FLOAT32, {0}, {0}});
    CompilationPtr compilation = compileHere(model.get());
    ASSERT_NE(compilation, nullptr);
    MemoryPtr memory = deviceMemory({{compilation.get(), false, 0}, {compilation.get(), true, 0}});
    float a[2] = {1.0f, 2.0f};
    float b[2] = {10.0f, 20.0f};
    const std::vector<uint32_t> pair{2};
    const auto typed = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, pair);
    ExecutionPtr one = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setInput(one.get(), 0, &typed, a, sizeof(a)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(one.get(), 1, nullptr, b, sizeof(b)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(one.get(), 0, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(compute(one.get()), ANEURALNETWORKS_NO_ERROR);
    uint32_t dims[1] = {0};
    ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(one.get(), 0, dims), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(dims[0], 2u);

    // The shape comes from the memory; a type given must agree with it.
    float result[2] = {0.0f, 0.0f};
    ExecutionPtr two = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(two.get(), 0, nullptr, memory.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(two.get(), 1, nullptr, b, sizeof(b)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(two.get(), 0, &typed, result, sizeof(result)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(compute(two.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(result[0], 21.0f);
    EXPECT_EQ(result[1], 42.0f);

    const std::vector<uint32_t> three{3};
    const auto wrong = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, three);
    ExecutionPtr mismatch = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(mismatch.get(), 0, &wrong, memory.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(mismatch.get(), 1, nullptr, b, sizeof(b)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(mismatch.get(), 0, &typed, result, sizeof(result)),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(compute(mismatch.get()), ANEURALNETWORKS_OP_FAILED);

    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(memory.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(readBack.values(), (std::vector<float>{11.0f, 22.0f}));
}

// Every direction of Memory_copy around an execution's device memory.
TEST_P(MemoryDomainDeviceTest, CopyInEveryDirection) {
    ModelPtr model = makeAdd({});
    CompilationPtr compilation = compileHere(model.get());
    ASSERT_NE(compilation, nullptr);
    MemoryPtr input = deviceMemory({{compilation.get(), true, 0}});
    MemoryPtr output = deviceMemory({{compilation.get(), false, 0}});
    FdMemory fd(2);
    fd.floats()[0] = 100.0f;
    fd.floats()[1] = 200.0f;
    ASSERT_EQ(ANeuralNetworksMemory_copy(fd.get(), input.get()), ANEURALNETWORKS_NO_ERROR);  // fd -> device
    float x[2] = {1.0f, 2.0f};
    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, input.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, x, sizeof(x)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, output.get(), 0, 0),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    FdMemory readBack(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(output.get(), readBack.get()), ANEURALNETWORKS_NO_ERROR);  // device -> fd
    EXPECT_EQ(readBack.values(), (std::vector<float>{101.0f, 202.0f}));
    ASSERT_EQ(ANeuralNetworksMemory_copy(output.get(), input.get()), ANEURALNETWORKS_NO_ERROR);  // device -> device
    FdMemory copy(2);
    ASSERT_EQ(ANeuralNetworksMemory_copy(readBack.get(), copy.get()), ANEURALNETWORKS_NO_ERROR);  // fd -> fd
    EXPECT_EQ(copy.values(), readBack.values());
    ASSERT_EQ(ANeuralNetworksMemory_copy(input.get(), copy.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(copy.values(), (std::vector<float>{101.0f, 202.0f}));
}

INSTANTIATE_TEST_SUITE_P(Devices, MemoryDomainDeviceTest,
                         ::testing::Values("nnapi-reference", "synap-npu", "default"),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name) c = c == '-' ? '_' : c;
                             return name;
                         });

}  // namespace
}  // namespace nnemu::apitest
