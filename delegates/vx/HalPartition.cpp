#include "HalPartition.h"

#include <cstring>
#include <map>

namespace nnemu::vx {

Result<HalPartition> buildHalPartition(const tflite::NnapiGraph& graph, const std::vector<uint32_t>& nodes,
                                       const std::set<int32_t>& outputs) {
    HalPartition built;
    HalPartition* partition = &built;
    std::set<uint32_t> produced;
    std::vector<uint32_t> operations;
    for (uint32_t node : nodes) {
        for (uint32_t op : graph.nodeOperations[node]) {
            operations.push_back(op);
            produced.insert(graph.operations[op].outputs.begin(), graph.operations[op].outputs.end());
        }
    }
    if (operations.empty()) return badData("no operation to run");
    hal::Model& model = partition->model;
    std::map<uint32_t, uint32_t> local;  // graph operand -> model operand
    const auto addOperand = [&](uint32_t index) {
        const auto found = local.find(index);
        if (found != local.end()) return found->second;
        const tflite::NnOperand& source = graph.operands[index];
        hal::Operand operand;
        operand.type = static_cast<hal::OperandType>(source.type);
        operand.dimensions = source.dims;
        operand.scale = source.scale;
        operand.zeroPoint = source.zeroPoint;
        if (operand.type == hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
            operand.channelQuant = hal::SymmPerChannelQuantParams{
                    std::vector<float>(source.channelScales.begin(), source.channelScales.end()), source.channelDim};
        }
        const auto id = static_cast<uint32_t>(model.operands.size());
        if (source.isConstant && source.valueLength() == 0) {
            operand.lifetime = hal::OperandLifeTime::NO_VALUE;
        } else if (source.isConstant) {
            operand.lifetime = hal::OperandLifeTime::CONSTANT_COPY;
            const size_t offset = (model.operandValues.size() + 7) & ~size_t{7};  // aligned for any scalar type
            model.operandValues.resize(offset + source.valueLength());
            std::memcpy(model.operandValues.data() + offset, source.valueData(), source.valueLength());
            operand.location = {0, static_cast<uint32_t>(offset), static_cast<uint32_t>(source.valueLength())};
        } else if (produced.count(index) == 0) {
            operand.lifetime = hal::OperandLifeTime::MODEL_INPUT;
            model.inputIndexes.push_back(id);
            partition->inputTensors.push_back(source.tensor);
        } else if (source.tensor >= 0 && outputs.count(source.tensor) != 0) {
            operand.lifetime = hal::OperandLifeTime::MODEL_OUTPUT;
            model.outputIndexes.push_back(id);
            partition->outputTensors.push_back(source.tensor);
        }
        model.operands.push_back(std::move(operand));
        local[index] = id;
        return id;
    };
    for (uint32_t op : operations) {
        const tflite::NnOperation& source = graph.operations[op];
        hal::Operation operation;
        operation.type = static_cast<hal::OperationType>(source.type);
        for (uint32_t operand : source.inputs) {
            operation.inputs.push_back(addOperand(operand));
            model.operands[operation.inputs.back()].numberOfConsumers++;
        }
        for (uint32_t operand : source.outputs) operation.outputs.push_back(addOperand(operand));
        model.operations.push_back(std::move(operation));
        partition->operationNodes.push_back(source.node);
    }
    if (model.outputIndexes.empty()) return badData("the partition produces none of the tensors its host reads");
    return built;
}

}  // namespace nnemu::vx
