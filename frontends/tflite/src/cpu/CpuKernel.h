// The tools' own CPU kernels: TFLite builtins (or forms of them) NNAPI cannot express at the
// runtime's feature level run here, between delegated partitions, the way TFLite's interpreter
// runs its builtin kernels. One entry per builtin code, each family in its own file, listed in
// CpuKernelTable.cpp. Kernels see TFLite's layout and values (int8 is true int8 here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/delegate/TfLiteAbi.h"
#include "nnemu/tflite/Model.h"
#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::tflite {

class InterpreterResources;   // Resources.h
class CpuThreads;             // CpuThreads.h

// One input or output of a node. Element access goes through memcpy: constants live in the
// model file, with no alignment guarantee.
struct CpuOperand {
    const Tensor* tensor = nullptr;   // nullptr: an absent optional input
    const uint8_t* data = nullptr;    // inputs: during prepare, constants only
    uint8_t* out = nullptr;           // outputs, while running

    bool present() const { return tensor != nullptr; }
    bool known() const { return data != nullptr; }
    ElementType type() const { return tensor->type; }
    const std::vector<int32_t>& shape() const { return tensor->shape; }
    size_t rank() const { return tensor->shape.size(); }
    size_t count() const;
    template <typename T>
    T at(size_t i) const {
        T value;
        std::memcpy(&value, data + i * sizeof(T), sizeof(T));
        return value;
    }
    template <typename T>
    void set(size_t i, T value) const {
        std::memcpy(out + i * sizeof(T), &value, sizeof(T));
    }
};

// Whose arithmetic an 8-bit kernel computes: TFLite's builtin kernels (the default, what
// `tflite_run --xnnpack=0` gives), or TFLite's default XNNPACK delegate, for a node it would claim
// (XnnpackForms.h): the convolutions requantize in float, ADD with 20-bit multipliers.
enum class QuantizedArithmetic { Builtin, Xnnpack };

// What a kernel gets: the node, its options, its operands. prepare() and run() share it.
class CpuKernelCall {
public:
    explicit CpuKernelCall(const Node& node) : node_(node) {}

    const Node& node() const { return node_; }
    // The node's builtin_data as T, the builtin_op_data.h struct of its builtin code
    // (nnemu/delegate/TfLiteAbi.h); nullptr when the reader gave none.
    template <typename T>
    const T* params() const { return static_cast<const T*>(node_.builtinData); }
    std::vector<CpuOperand> inputs;
    mutable std::vector<CpuOperand> outputs;   // resizeOutput() rebinds them
    const CpuOperand& in(size_t i) const { return inputs[i]; }
    const CpuOperand& out(size_t i) const { return outputs[i]; }

    // Records the reason (BAD_DATA, see status()) and returns false.
    bool fail(const std::string& reason) const;
    // The last failure fail() recorded; OK while there is none.
    const Status& status() const { return status_; }
    // Input/output counts; the first minInputs inputs must be present.
    bool expectCounts(size_t minInputs, size_t maxInputs, size_t outputs) const;
    // Input i's type is one of `types`.
    bool expectType(const CpuOperand& operand, std::initializer_list<ElementType> types, const char* what) const;
    // The output tensor declares `shape` (or as many values, in another shape). In run(), with a
    // resizer, the output is given `shape` instead (see resizeOutput).
    bool expectOutputShape(size_t i, const std::vector<int32_t>& shape) const;
    // An int32 or int64 input's values; false (after fail) for another type. Unknown data
    // (non-constant during prepare) gives known == false and true.
    bool ints(size_t i, std::vector<int64_t>* values, bool* known) const;

    // Outputs TFLite sizes from input values (WHERE, UNIQUE, RANGE, ...), in run(): gives output i
    // `shape` before the kernel writes it, as TFLite's kernels resize a dynamic tensor in Eval.
    // Another shape than the declared one needs the interpreter's `resizer` (it rebinds out(i) to a
    // buffer of that size); without one only the declared element count is accepted.
    bool resizeOutput(size_t i, const std::vector<int32_t>& shape) const;
    // stringBytes: a STRING output's buffer size (0 for other types).
    std::function<Status(size_t i, const std::vector<int32_t>& shape, size_t stringBytes, CpuOperand* output)> resizer;
    // run(): gives STRING output i `shape` and the packed `strings` (src/StringTensor.h), as
    // TFLite's DynamicBuffer::WriteToTensor does; needs the interpreter's resizer.
    bool writeStrings(size_t i, const std::vector<int32_t>& shape, const std::vector<std::string_view>& strings) const;
    // The interpreter's resource variables (Resources.h), in run() only; nullptr in prepare().
    InterpreterResources* resources = nullptr;
    // State a kernel keeps across invokes (the random builtins' generator): the unit's slot, empty
    // until the kernel's first run fills it; nullptr in prepare.
    std::shared_ptr<void>* state = nullptr;
    QuantizedArithmetic arithmetic = QuantizedArithmetic::Builtin;
    // The interpreter's threads (--num_threads), in run() only; nullptr: the calling thread alone.
    const CpuThreads* threads = nullptr;
    bool xnnpack() const { return arithmetic == QuantizedArithmetic::Xnnpack; }

private:
    const Node& node_;
    mutable Status status_;
};

// A kernel's state of type T built from constants (packed weights, multipliers): made by
// make(T&) at the first invoke and kept in the unit's slot (call.state) across invokes; without a
// slot, or with keep false, it lives in `local` for this call only. nullptr when make fails.
template <typename T, typename Make>
T* keptState(const CpuKernelCall& call, std::shared_ptr<void>& local, Make&& make, bool keep = true) {
    std::shared_ptr<void>& slot = call.state != nullptr && keep ? *call.state : local;
    if (slot == nullptr) {
        auto made = std::make_shared<T>();
        if (!make(*made)) return nullptr;
        slot = made;
    }
    return static_cast<T*>(slot.get());
}

struct CpuKernel {
    // Checks types and options, and, as far as the known data allows, that each output's declared
    // shape is the computed one. Must reject malformed nodes cleanly.
    bool (*prepare)(const CpuKernelCall& call) = nullptr;
    // Computes the outputs; checks again what depends on non-constant inputs.
    bool (*run)(const CpuKernelCall& call) = nullptr;
};

class CpuKernelTable {
public:
    void add(fb::BuiltinOperator code, CpuKernel kernel);
    const CpuKernel* find(const Node& node) const;   // nullptr: no CPU kernel
    static const CpuKernelTable& get();
    std::vector<std::string> names() const;           // the covered builtins

private:
    std::vector<CpuKernel> kernels_;
};

// The kernel for `node` if it has one and its prepare() accepts the node (its constant data
// bound); otherwise the reason ("no CPU kernel" when it has none).
Result<const CpuKernel*> prepareCpuKernel(const Subgraph& subgraph, const Node& node,
                                          QuantizedArithmetic arithmetic = QuantizedArithmetic::Builtin);

size_t elementCount(const std::vector<int32_t>& shape);
// Element i as a double (stored value, not dequantized): exact for every type but large int64.
double numberAt(const CpuOperand& operand, size_t i);
// A float truncated to the integer type T as TFLite's kernels do it on x86 (cvttss2si): NaN and
// values out of range give the "integer indefinite" (INT64_MIN for int64, INT32_MIN otherwise),
// narrower types keep the low bits of the 32-bit result. Defined for every input, unlike a cast.
template <typename T>
T truncateLikeX86(double value) {
    if constexpr (std::is_same_v<T, int64_t>) {
        const bool fits = value >= -0x1p63 && value < 0x1p63;
        return fits ? static_cast<int64_t>(value) : std::numeric_limits<int64_t>::min();
    } else {
        const bool fits = value >= -0x1p31 && value < 0x1p31;
        return static_cast<T>(fits ? static_cast<int32_t>(value) : std::numeric_limits<int32_t>::min());
    }
}
// The output shape of a kernel that computes it from input values: false (after fail) for a
// malformed node; `known` false while those values have no data (in prepare(), for non-constants).
using ShapeFunction = bool (*)(const CpuKernelCall& call, std::vector<int32_t>* shape, bool* known);
// prepare(): output 0 declares the computed shape, once it is known.
bool expectComputedShape(const CpuKernelCall& call, ShapeFunction shapeOf);
// run(): the shape is known by now (else fails with `unknownReason`); output 0 is given it
// (resizeOutput) and *shape holds it.
bool resizeToComputedShape(const CpuKernelCall& call, ShapeFunction shapeOf, const char* unknownReason,
                           std::vector<int32_t>* shape);
// Stores an integer-valued result in an INT32 or INT64 output.
void setIndex(const CpuOperand& operand, size_t i, int64_t value);
// A normalized axis in [0, rank); false (after fail) when out of range.
bool normalizeAxis(const CpuKernelCall& call, int64_t axis, size_t rank, size_t* normalized);
// A reducer's (ReducerOptions) dimensions of input 0 reduced by the axes in input 1 (repeats
// allowed, negative counted from the end), and the check that output 0 declares the reduced shape
// (reduced dimensions kept as 1 with keep_dims). `known` false while the axes have no data;
// false (after fail) for an axis out of range.
bool expectReduction(const CpuKernelCall& call, std::vector<bool>* reduced, bool* known);
std::string shapeText(const std::vector<int32_t>& shape);

// Families that add their own kernels (the others are listed in CpuKernelList.h, kKernels):
// complex numbers, resource variables, hashtables and SKIP_GRAM (issue 24): Complex.cpp,
// Variables.cpp, Hashtable.cpp, SkipGram.cpp.
void addComplexKernels(CpuKernelTable& table);
void addVariableKernels(CpuKernelTable& table);
void addHashtableKernels(CpuKernelTable& table);
void addSkipGramKernel(CpuKernelTable& table);

}  // namespace nnemu::tflite
