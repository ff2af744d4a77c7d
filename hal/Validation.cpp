#include "nnemu/hal/Validation.h"

#include "nnemu/hal/ControlFlow.h"

#include <set>

namespace nnemu::hal {
namespace {

bool isConstant(OperandLifeTime lifetime) {
    return lifetime == OperandLifeTime::CONSTANT_COPY || lifetime == OperandLifeTime::CONSTANT_REFERENCE;
}

}  // namespace

Status validateOperandType(int32_t code, const std::vector<uint32_t>& dims, float scale, int32_t zeroPoint) {
    if (!isValidOperandType(code)) return badData("invalid operand type " + std::to_string(code));
    const auto type = static_cast<OperandType>(code);
    const std::string name = operandTypeName(type);
    if (type == OperandType::OEM || type == OperandType::TENSOR_OEM_BYTE) return {};
    if (isScalarType(type) && !dims.empty()) return badData(name + " scalar with dimensions");
    // Data locations and buffer lengths are 32-bit in the HAL: a larger tensor cannot be passed.
    if (isFullySpecified(type, dims) && byteSize(type, dims) > UINT32_MAX) {
        return badData(name + " " + dimsToString(dims) + " is larger than 4 GiB");
    }
    switch (type) {
        case OperandType::TENSOR_INT32:
            if (scale < 0.0f || zeroPoint != 0) return badData(name + " needs scale >= 0 and zeroPoint 0");
            return {};
        case OperandType::TENSOR_QUANT8_ASYMM:
            if (!(scale > 0.0f)) return badData(name + " needs scale > 0");
            if (zeroPoint < 0 || zeroPoint > 255) return badData(name + " zeroPoint out of [0, 255]");
            return {};
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            if (!(scale > 0.0f)) return badData(name + " needs scale > 0");
            if (zeroPoint < -128 || zeroPoint > 127) return badData(name + " zeroPoint out of [-128, 127]");
            return {};
        case OperandType::TENSOR_QUANT16_ASYMM:
            if (!(scale > 0.0f)) return badData(name + " needs scale > 0");
            if (zeroPoint < 0 || zeroPoint > 65535) return badData(name + " zeroPoint out of [0, 65535]");
            return {};
        case OperandType::TENSOR_QUANT8_SYMM:
        case OperandType::TENSOR_QUANT16_SYMM:
            if (!(scale > 0.0f) || zeroPoint != 0) return badData(name + " needs scale > 0 and zeroPoint 0");
            return {};
        default:
            if (scale != 0.0f || zeroPoint != 0) return badData(name + " needs scale 0 and zeroPoint 0");
            return {};
    }
}

OperationContext makeOperationContext(const Operation& operation,
                                      const std::vector<Operand>& operands,
                                      const ConstantLookup& constantOf) {
    OperationContext context;
    context.type = operation.type;
    auto view = [&](uint32_t index) {
        const Operand& operand = operands[index];
        OperandView v;
        v.type = operand.type;
        v.dims = operand.dimensions;
        v.scale = operand.scale;
        v.zeroPoint = operand.zeroPoint;
        v.channelQuant = operand.channelQuant ? &*operand.channelQuant : nullptr;
        v.omitted = operand.lifetime == OperandLifeTime::NO_VALUE;
        if (isConstant(operand.lifetime)) {
            v.data = constantOf(index);
            v.length = operand.location.length;
        }
        return v;
    };
    for (uint32_t index : operation.inputs) context.inputs.push_back(view(index));
    for (uint32_t index : operation.outputs) context.outputs.push_back(view(index));
    return context;
}

Status validateOperation(const Operation& operation, const std::vector<Operand>& operands,
                         const ConstantLookup& constantOf) {
    const std::string name = operationName(operation.type);
    for (uint32_t index : operation.inputs) {
        if (index >= operands.size()) return badData(name + ": input operand " + std::to_string(index) + " out of range");
    }
    for (uint32_t index : operation.outputs) {
        if (index >= operands.size()) return badData(name + ": output operand " + std::to_string(index) + " out of range");
    }
    const OperationSignature* signature = findSignature(operation.type);
    if (signature == nullptr) return {};  // not yet registered: no device will claim it
    const OperationContext context = makeOperationContext(operation, operands, constantOf);
    if (!omissionsAllowed(*signature, context.inputs)) {
        return badData(name + " does not accept omitted operands there");
    }
    if (!signature->validate(context)) return badData(name + ": invalid operands (types, counts or parameters)");
    return {};
}

uint8_t* constantData(const Model& model, const Operand& operand) {
    const DataLocation& at = operand.location;
    if (operand.lifetime == OperandLifeTime::CONSTANT_COPY) {
        if (uint64_t{at.offset} + at.length > model.operandValues.size()) return nullptr;
        return const_cast<uint8_t*>(model.operandValues.data()) + at.offset;
    }
    if (operand.lifetime == OperandLifeTime::CONSTANT_REFERENCE) {
        if (at.poolIndex >= model.pools.size()) return nullptr;
        const auto& pool = model.pools[at.poolIndex];
        if (uint64_t{at.offset} + at.length > pool->size() || pool->data() == nullptr) return nullptr;
        return pool->data() + at.offset;
    }
    return nullptr;
}

namespace {

// One graph of a model (the main one or a referenced subgraph): operands, inputs/outputs lists,
// operations in topological order, every temporary and output written exactly once.
struct GraphRef {
    const std::vector<Operand>& operands;
    const std::vector<Operation>& operations;
    const std::vector<uint32_t>& inputIndexes;
    const std::vector<uint32_t>& outputIndexes;
};

Status validateOperands(const Model& model, const GraphRef& graph, size_t subgraphLimit) {
    for (size_t i = 0; i < graph.operands.size(); ++i) {
        const Operand& operand = graph.operands[i];
        const std::string where = "operand " + std::to_string(i) + ": ";
        if (const Status type = validateOperandType(static_cast<int32_t>(operand.type), operand.dimensions,
                                                    operand.scale, operand.zeroPoint);
            !type) {
            return badData(where + type.message());
        }
        const bool perChannel = operand.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
        if (perChannel != operand.channelQuant.has_value()) {
            return badData(where + (perChannel ? "per-channel quantization parameters missing"
                                                 : "unexpected per-channel quantization parameters"));
        }
        if (perChannel) {
            const auto& quant = *operand.channelQuant;
            if (quant.channelDim >= operand.dimensions.size() ||
                quant.scales.size() != operand.dimensions[quant.channelDim]) {
                return badData(where + "per-channel parameters do not match the dimensions");
            }
        }
        // A model value and only that: SUBGRAPH operands must point at an earlier subgraph (the
        // main model at any), so references can never form a cycle.
        const bool isModel = operand.type == OperandType::SUBGRAPH;
        if (isModel != (operand.lifetime == OperandLifeTime::SUBGRAPH)) {
            return badData(where + (isModel ? "a SUBGRAPH operand without a model value"
                                              : "lifetime SUBGRAPH on an operand of another type"));
        }
        if (isModel && operand.location.offset >= subgraphLimit) {
            return badData(where + "references subgraph " + std::to_string(operand.location.offset) +
                                     " which is out of range or not an earlier subgraph");
        }
        if (isConstant(operand.lifetime)) {
            if (isTensorType(operand.type) && operand.dimensions.empty()) {
                return badData(where + "constant tensor of unknown rank");
            }
            if (!isFullySpecified(operand.type, operand.dimensions)) {
                return badData(where + "constant with unknown dimensions");
            }
            const uint64_t size = byteSize(operand.type, operand.dimensions);
            if (operand.type != OperandType::OEM && size != operand.location.length) {
                return badData(where + "constant length does not match its type");
            }
            if (constantData(model, operand) == nullptr) return badData(where + "constant location out of range");
        }
    }
    return {};
}

Status validateGraph(const Model& model, const GraphRef& graph, size_t subgraphLimit) {
    if (graph.operations.empty()) return badData("the model has no operation");
    if (graph.operands.empty()) return badData("the model has no operand");
    NNEMU_RETURN_IF_ERROR(validateOperands(model, graph, subgraphLimit));
    // Inputs and outputs: right lifetimes, listed once.
    std::set<uint32_t> seen;
    for (uint32_t index : graph.inputIndexes) {
        if (index >= graph.operands.size() || graph.operands[index].lifetime != OperandLifeTime::MODEL_INPUT ||
            !seen.insert(index).second) {
            return badData("invalid or repeated model input " + std::to_string(index));
        }
    }
    for (uint32_t index : graph.outputIndexes) {
        if (index >= graph.operands.size() || graph.operands[index].lifetime != OperandLifeTime::MODEL_OUTPUT ||
            !seen.insert(index).second) {
            return badData("invalid or repeated model output " + std::to_string(index));
        }
    }
    // Every operation valid; each temporary/output written exactly once, and only after all of
    // an operation's inputs are written (the operation order must be topological).
    std::vector<bool> written(graph.operands.size(), false);
    for (size_t i = 0; i < graph.operands.size(); ++i) {
        const auto lifetime = graph.operands[i].lifetime;
        written[i] = lifetime != OperandLifeTime::TEMPORARY_VARIABLE && lifetime != OperandLifeTime::MODEL_OUTPUT;
    }
    const ConstantLookup constantOf = [&](uint32_t index) { return constantData(model, graph.operands[index]); };
    for (size_t i = 0; i < graph.operations.size(); ++i) {
        const Operation& operation = graph.operations[i];
        Status valid = validateOperation(operation, graph.operands, constantOf);
        if (valid && isControlFlow(operation.type)) valid = validateControlFlow(model, graph.operands, operation);
        if (!valid) return badData("operation " + std::to_string(i) + " (" + valid.message() + ")");
        for (uint32_t index : operation.inputs) {
            if (!written[index]) {
                return badData("operation " + std::to_string(i) + " reads operand " + std::to_string(index) +
                                         " before it is written (cycle or missing writer)");
            }
        }
        for (uint32_t index : operation.outputs) {
            const auto lifetime = graph.operands[index].lifetime;
            if (lifetime != OperandLifeTime::TEMPORARY_VARIABLE && lifetime != OperandLifeTime::MODEL_OUTPUT) {
                return badData("operation " + std::to_string(i) + " writes operand " + std::to_string(index) +
                                         " which is not a temporary or a model output");
            }
            if (written[index]) return badData("operand " + std::to_string(index) + " is written twice");
            written[index] = true;
        }
    }
    for (size_t i = 0; i < graph.operands.size(); ++i) {
        if (!written[i]) return badData("operand " + std::to_string(i) + " is never written");
    }
    return {};
}

}  // namespace

Status validateModel(const Model& model) {
    const GraphRef main{model.operands, model.operations, model.inputIndexes, model.outputIndexes};
    NNEMU_RETURN_IF_ERROR(validateGraph(model, main, model.referenced.size()));
    for (size_t k = 0; k < model.referenced.size(); ++k) {
        const Subgraph& subgraph = model.referenced[k];
        const GraphRef graph{subgraph.operands, subgraph.operations, subgraph.inputIndexes, subgraph.outputIndexes};
        if (Status valid = validateGraph(model, graph, k); !valid) {
            return badData("referenced subgraph " + std::to_string(k) + ": " + valid.message());
        }
    }
    return {};
}

}  // namespace nnemu::hal
