// Operations as data: each operation of OperationTable.def has one OperationSignature (operand
// checks and output-shape inference), defined in hal/operations/<Family>.cpp and listed, family
// by family, in hal/Operations.cpp. Model validation, the runtime's shape bookkeeping and every
// driver read the same signature.
#pragma once

#include <any>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "nnemu/base/Half.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Types.h"

namespace nnemu::hal {

// What an operation sees of one of its operands.
struct OperandView {
    OperandType type = OperandType::FLOAT32;
    std::vector<uint32_t> dims;  // may hold 0s (unknown) during validation
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    const SymmPerChannelQuantParams* channelQuant = nullptr;
    // Bytes of the value: constants always; every input and output at execution. nullptr when
    // not known (a non-constant during validation) or omitted.
    uint8_t* data = nullptr;
    size_t length = 0;
    bool omitted = false;  // NO_VALUE constant or an input bound with no value

    uint32_t rank() const { return static_cast<uint32_t>(dims.size()); }
    uint32_t dim(uint32_t i) const { return dims[i]; }
    uint64_t elements() const { return elementCount(dims); }
    template <typename T>
    const T* as() const { return reinterpret_cast<const T*>(data); }
    template <typename T>
    T* as() { return reinterpret_cast<T*>(data); }
};

// The operands of one operation, in the operation's input/output order.
struct OperationContext {
    OperationType type = OperationType::ADD;
    std::vector<OperandView> inputs;
    std::vector<OperandView> outputs;
    // What prepare() computed from the input data that the kernel may reuse instead of
    // recomputing (operations whose output sizes depend on the data); empty otherwise.
    std::any prepared;

    uint32_t numInputs() const { return static_cast<uint32_t>(inputs.size()); }
    uint32_t numOutputs() const { return static_cast<uint32_t>(outputs.size()); }
    const OperandView& input(uint32_t i) const { return inputs[i]; }
    OperandView& output(uint32_t i) { return outputs[i]; }
    const OperandView& output(uint32_t i) const { return outputs[i]; }
    OperandType inputType(uint32_t i) const { return inputs[i].type; }
    bool hasValue(uint32_t i) const { return inputs[i].data != nullptr && !inputs[i].omitted; }

    // Value of a scalar input; 0 when not known. FLOAT16 scalars read as float.
    template <typename T>
    T scalar(uint32_t i) const {
        const OperandView& v = inputs[i];
        if (v.data == nullptr) return T{};
        if (v.type == OperandType::FLOAT16) {
            uint16_t h;
            std::memcpy(&h, v.data, sizeof h);
            return static_cast<T>(base::halfToFloat(h));
        }
        if (v.type == OperandType::BOOL) return static_cast<T>(v.data[0] != 0);
        T value;
        std::memcpy(&value, v.data, sizeof value);
        return value;
    }
};

// Android's two stages: validate() is what addOperation and Model_finish check, from operand
// types and declared shapes alone; checkValues() is what only an execution can settle, so an
// operation that passes validate() but not checkValues() builds, finishes and compiles, and its
// execution fails (ANEURALNETWORKS_OP_FAILED).
struct OperationSignature {
    OperationType type;
    // Operand counts, types and allowed type combinations, omitted operands, ranks where declared.
    // Never reads a value, never holds one operand's dims or scale against another's. Used at
    // addOperation, at finish and by drivers' getSupportedOperations. Must not reject unknown (0)
    // dims.
    bool (*validate)(const OperationContext& context);
    // Computes every output's dims from the inputs' actual dims (and data, where an input
    // such as a shape or a scalar is needed). Called, through prepareOperation(), once all inputs
    // are known. Writes context.outputs[i].dims; the caller checks them against the declared ones.

    bool (*prepare)(OperationContext& context);
    bool allowOmittedOperand = false;
    bool allowZeroSizedInput = false;
    // Feature level of one (validated) use, for operations that gained operand types or inputs
    // after they were introduced (nnapi-fl30plus.md §2.4); nullptr: operationFeatureLevel(type).
    int64_t (*featureLevel)(const OperationContext& context) = nullptr;
    // Checks of values (scalar parameters, activation codes, axes) and of relations between
    // operands (broadcastable dims, matching depths, bias scale against input x filter scale).
    // Runs before prepare() at execution, where everything is known, and in synap-npu's claim,
    // where only constants and declared dims are: it must accept what is not known (no data,
    // 0 or absent dims). nullptr: nothing to check.
    bool (*checkValues)(const OperationContext& context) = nullptr;
    // Where Android's prepare gives a quantized output its own quantization (the RELU family: the
    // input's; LOGISTIC, TANH: a fixed one), writes outputs[i].scale and zeroPoint from the
    // inputs' quantization alone; run by prepareOperation() after prepare(). An executor gives a
    // temporary those values (later operations read them) and refuses a model output declared
    // otherwise, as Android's setInfoAndAllocateIfNeeded. nullptr: the declared ones stand.
    void (*outputQuantization)(OperationContext& context) = nullptr;
};

// The feature level a validated use of an operation needs: the signature's featureLevel, else
// the level that introduced the operation.
int64_t operationUseFeatureLevel(const OperationContext& context);
// nullptr when the operation has no signature (a code outside the table).
const OperationSignature* findSignature(OperationType type);
// Every signature of the list in hal/operations/Signatures.cpp, in its order (an operation listed twice
// appears twice).
std::vector<const OperationSignature*> listedSignatures();
// The list against OperationTable.def (OperationCoverage.h): empty when every operation has
// exactly one signature. findSignature's first use asserts this in debug builds.
std::vector<std::string> signatureCoverageProblems();
// The execution stage of one operation: checkValues(), then prepare() and outputQuantization().
bool prepareOperation(const OperationSignature& signature, OperationContext& context);
// Whether every output's declared quantization is the one the execution stage gives it, known
// from the declared inputs (always true without outputQuantization): a device that compiles the
// declared quantization declines an operation where it is not.
bool declaredQuantizationIsPrepared(const OperationSignature& signature, const OperationContext& context);
// Whether the omitted ones among `inputs` may be left out: none unless the signature allows
// omitted operands, and never the first (the data every operation works on).
bool omissionsAllowed(const OperationSignature& signature, const std::vector<OperandView>& inputs);

// Fails the enclosing bool function, logging the condition at VERBOSE level.
#define NN_RET_CHECK(condition)                                                   \
    do {                                                                          \
        if (!(condition)) {                                                       \
            NN_LOG(VERBOSE) << __FILE__ << ":" << __LINE__ << " check failed: " #condition; \
            return false;                                                         \
        }                                                                         \
    } while (0)

// Helpers that signatures use over and over.
bool checkCounts(const OperationContext& context, std::initializer_list<uint32_t> inputCounts,
                 uint32_t outputCount);
// Input i has one of the given types.
bool inputTypeIs(const OperationContext& context, uint32_t i, std::initializer_list<OperandType> types);
// Rank of input i is `rank` or unknown.
bool rankIsOrUnknown(const OperandView& operand, uint32_t rank);
bool rankAtMostOrUnknown(const OperandView& operand, uint32_t rank);

}  // namespace nnemu::hal
