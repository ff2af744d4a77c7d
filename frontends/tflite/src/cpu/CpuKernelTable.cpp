// The table of CPU kernels (every family adds its own) and what kernels share: operand checks.
#include "CpuKernel.h"

namespace nnemu::tflite {

// Shape and indexing builtins (issue 24, second part), each family in its own file.
void addReverseSequenceKernels(CpuKernelTable& table);
void addScatterKernels(CpuKernelTable& table);
void addSegmentKernels(CpuKernelTable& table);
void addMatrixDiagKernels(CpuKernelTable& table);
void addNonMaxSuppressionKernels(CpuKernelTable& table);
// RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL (Philox, state across invokes);
// EMBEDDING_LOOKUP_SPARSE; DENSIFY (sparse constants).
void addRandomKernels(CpuKernelTable& table);
void addLookupSparseKernels(CpuKernelTable& table);
void addDensifyKernels(CpuKernelTable& table);

size_t elementCount(const std::vector<int32_t>& shape) {
    size_t count = 1;
    for (int32_t dim : shape) count *= static_cast<size_t>(dim < 0 ? 0 : dim);
    return count;
}

std::string shapeText(const std::vector<int32_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

double numberAt(const CpuOperand& operand, size_t i) {
    switch (operand.type()) {
        case ElementType::FLOAT32: return operand.at<float>(i);
        case ElementType::UINT8:
        case ElementType::BOOL: return operand.at<uint8_t>(i);
        case ElementType::INT8: return operand.at<int8_t>(i);
        case ElementType::INT16: return operand.at<int16_t>(i);
        case ElementType::INT32: return operand.at<int32_t>(i);
        case ElementType::INT64: return static_cast<double>(operand.at<int64_t>(i));
        default: return 0.0;
    }
}

void setIndex(const CpuOperand& operand, size_t i, int64_t value) {
    if (operand.type() == ElementType::INT64) {
        operand.set<int64_t>(i, value);
    } else {
        operand.set<int32_t>(i, static_cast<int32_t>(value));
    }
}

bool normalizeAxis(const CpuKernelCall& call, int64_t axis, size_t rank, size_t* normalized) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) {
        return call.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    }
    *normalized = static_cast<size_t>(axis < 0 ? axis + r : axis);
    return true;
}

size_t CpuOperand::count() const { return elementCount(tensor->shape); }

bool CpuKernelCall::fail(const std::string& reason) const {
    status_ = badData(reason);
    return false;
}

bool CpuKernelCall::expectCounts(size_t minInputs, size_t maxInputs, size_t outputCount) const {
    if (inputs.size() < minInputs || inputs.size() > maxInputs) {
        return fail("has " + std::to_string(inputs.size()) + " inputs, expected " +
                    (minInputs == maxInputs ? std::to_string(minInputs)
                                            : std::to_string(minInputs) + " to " + std::to_string(maxInputs)));
    }
    if (outputs.size() != outputCount) {
        return fail("has " + std::to_string(outputs.size()) + " outputs, expected " + std::to_string(outputCount));
    }
    for (size_t i = 0; i < minInputs; ++i) {
        if (!inputs[i].present()) return fail("required input " + std::to_string(i) + " is absent");
    }
    for (size_t i = 0; i < outputCount; ++i) {
        if (!outputs[i].present()) return fail("output " + std::to_string(i) + " is absent");
    }
    return true;
}

bool CpuKernelCall::expectType(const CpuOperand& operand, std::initializer_list<ElementType> types,
                               const char* what) const {
    for (ElementType type : types) {
        if (operand.type() == type) return true;
    }
    return fail(std::string(what) + " of type " + elementTypeName(operand.type()) + " is not supported");
}

bool CpuKernelCall::expectOutputShape(size_t i, const std::vector<int32_t>& shape) const {
    const std::vector<int32_t>& declared = outputs[i].shape();
    if (declared == shape) return true;
    // At invoke, inputs may have shapes earlier kernels computed: the output follows, as TFLite
    // resizes a node's outputs when its inputs were resized.
    if (resizer) return resizeOutput(i, shape);
    if (elementCount(declared) == elementCount(shape)) return true;
    return fail("output " + std::to_string(i) + " is declared " + shapeText(declared) + " but computes to " +
                shapeText(shape));
}

bool CpuKernelCall::ints(size_t i, std::vector<int64_t>* values, bool* known) const {
    const CpuOperand& operand = inputs[i];
    if (!expectType(operand, {ElementType::INT32, ElementType::INT64}, ("input " + std::to_string(i)).c_str())) {
        return false;
    }
    values->clear();
    *known = operand.known();
    if (!*known) return true;
    const size_t count = operand.count();
    for (size_t k = 0; k < count; ++k) {
        values->push_back(operand.type() == ElementType::INT32 ? operand.at<int32_t>(k) : operand.at<int64_t>(k));
    }
    return true;
}

bool CpuKernelCall::resizeOutput(size_t i, const std::vector<int32_t>& shape) const {
    CpuOperand& output = outputs[i];
    if (output.shape() == shape) return true;
    // As the loader bounds declared tensors: no shape at invoke may need more.
    constexpr uint64_t kMaxOutputBytes = uint64_t{1} << 31;
    uint64_t bytes = elementSize(output.type());
    for (int32_t dim : shape) {
        if (dim < 0) return fail("output " + std::to_string(i) + " computes to the invalid shape " + shapeText(shape));
        if (dim != 0 && bytes > kMaxOutputBytes / static_cast<uint64_t>(dim)) {
            return fail("output " + std::to_string(i) + " computes to shape " + shapeText(shape) + ", too large");
        }
        bytes *= static_cast<uint64_t>(dim);
    }
    if (resizer) {
        const Status resized = resizer(i, shape, &output);
        return resized ? true : fail(resized.message());
    }
    if (elementCount(output.shape()) == elementCount(shape)) return true;
    return fail("output " + std::to_string(i) + " is declared " + shapeText(output.shape()) + " but computes to " +
                shapeText(shape));
}

void CpuKernelTable::add(fb::BuiltinOperator code, CpuKernel kernel) {
    const auto index = static_cast<size_t>(code);
    if (kernels_.size() <= index) kernels_.resize(index + 1);
    kernels_[index] = kernel;
}

const CpuKernel* CpuKernelTable::find(const Node& node) const {
    if (node.builtinCode < 0 || static_cast<size_t>(node.builtinCode) >= kernels_.size()) return nullptr;
    const CpuKernel& kernel = kernels_[static_cast<size_t>(node.builtinCode)];
    return kernel.run != nullptr ? &kernel : nullptr;
}

std::vector<std::string> CpuKernelTable::names() const {
    std::vector<std::string> result;
    for (size_t code = 0; code < kernels_.size(); ++code) {
        if (kernels_[code].run != nullptr) {
            result.emplace_back(fb::EnumNameBuiltinOperator(static_cast<fb::BuiltinOperator>(code)));
        }
    }
    return result;
}

// Explicit calls: a static library drops self-registering objects.
const CpuKernelTable& CpuKernelTable::get() {
    static const CpuKernelTable table = [] {
        CpuKernelTable t;
        addArgMinMaxKernels(t);
        addResizeKernels(t);
        addCastKernels(t);
        addGatherKernels(t);
        addLookupKernels(t);
        addBucketizeKernels(t);
        addBinaryKernels(t);
        addReduceKernels(t);
        addShapeKernels(t);
        addStridedSliceKernels(t);
        addArithmeticKernels(t);
        addConvKernels(t);
        addConv3dKernels(t);
        addUnaryKernels(t);
        addActivationKernels(t);
        addBitwiseKernels(t);
        addAddNAtan2Kernels(t);
        addReduceAllKernels(t);
        addCosKernels(t);
        addBroadcastKernels(t);
        addScanKernels(t);
        addGenerateKernels(t);
        addIndexingKernels(t);
        addReverseSequenceKernels(t);
        addScatterKernels(t);
        addSegmentKernels(t);
        addMatrixDiagKernels(t);
        addNonMaxSuppressionKernels(t);
        addRandomKernels(t);
        addLookupSparseKernels(t);
        addDensifyKernels(t);
        return t;
    }();
    return table;
}

Result<const CpuKernel*> prepareCpuKernel(const Subgraph& subgraph, const Node& node) {
    const CpuKernel* kernel = CpuKernelTable::get().find(node);
    if (kernel == nullptr) return badData("no CPU kernel");
    CpuKernelCall call(node);
    for (int32_t t : node.inputs) {
        CpuOperand operand;
        if (t >= 0) {
            operand.tensor = &subgraph.tensors[t];
            if (operand.tensor->isConstant) operand.data = operand.tensor->data;
        }
        call.inputs.push_back(operand);
    }
    for (int32_t t : node.outputs) {
        CpuOperand operand;
        if (t >= 0) operand.tensor = &subgraph.tensors[t];
        call.outputs.push_back(operand);
    }
    for (const CpuOperand& operand : call.outputs) {
        if (operand.present() && operand.tensor->isConstant) {
            call.fail("an output is a constant");
            return call.status();
        }
    }
    if (kernel->prepare(call)) return kernel;
    return call.status();
}

}  // namespace nnemu::tflite
