#include "ProgramBuilder.h"

#include "Compiler.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::synap {

npu::DataType npuTypeOf(hal::OperandType type) {
    switch (type) {
        case hal::OperandType::TENSOR_QUANT8_ASYMM: return npu::DataType::QUINT8;
        case hal::OperandType::TENSOR_INT32: return npu::DataType::QINT32;
        default: return npu::DataType::FLOAT32;
    }
}

ProgramBuilder::ProgramBuilder(const hal::Model& model, const std::vector<std::vector<uint32_t>>& dims)
    : model_(model), dims_(dims), tensorOf_(model.operands.size(), -1) {
    program_.compiler_version = kCompilerVersion;
    program_.input_count = static_cast<uint32_t>(model.inputIndexes.size());
    program_.output_count = static_cast<uint32_t>(model.outputIndexes.size());
}

void ProgramBuilder::beginOperation(uint32_t index, const hal::Operation& operation) {
    operationIndex_ = index;
    operation_ = &operation;
}

uint32_t ProgramBuilder::tensorOfOperand(uint32_t operandIndex) {
    if (tensorOf_[operandIndex] >= 0) return static_cast<uint32_t>(tensorOf_[operandIndex]);
    const hal::Operand& operand = model_.operands[operandIndex];
    auto tensor = std::make_unique<npu::TensorT>();
    tensor->type = npuTypeOf(operand.type);
    tensor->dims = dims_[operandIndex];
    tensor->scale = operand.scale;
    tensor->zero_point = operand.zeroPoint;
    if (const uint8_t* bytes = hal::constantData(model_, operand)) {
        tensor->data.assign(bytes, bytes + operand.location.length);
    }
    for (size_t i = 0; i < model_.inputIndexes.size(); ++i) {
        if (model_.inputIndexes[i] == operandIndex) tensor->input_index = static_cast<int32_t>(i);
    }
    for (size_t i = 0; i < model_.outputIndexes.size(); ++i) {
        if (model_.outputIndexes[i] == operandIndex) tensor->output_index = static_cast<int32_t>(i);
    }
    tensorOf_[operandIndex] = static_cast<int64_t>(program_.tensors.size());
    program_.tensors.push_back(std::move(tensor));
    return static_cast<uint32_t>(tensorOf_[operandIndex]);
}

uint32_t ProgramBuilder::input(uint32_t i) { return tensorOfOperand(operation_->inputs[i]); }
uint32_t ProgramBuilder::output(uint32_t i) { return tensorOfOperand(operation_->outputs[i]); }

uint32_t ProgramBuilder::intermediate(npu::DataType type, const std::vector<uint32_t>& dims, float scale,
                                      int32_t zeroPoint) {
    auto tensor = std::make_unique<npu::TensorT>();
    tensor->type = type;
    tensor->dims = dims;
    tensor->scale = scale;
    tensor->zero_point = zeroPoint;
    program_.tensors.push_back(std::move(tensor));
    return static_cast<uint32_t>(program_.tensors.size() - 1);
}

uint32_t ProgramBuilder::constant(npu::DataType type, const std::vector<uint32_t>& dims, const void* bytes,
                                  size_t length, float scale, int32_t zeroPoint) {
    const uint32_t index = intermediate(type, dims, scale, zeroPoint);
    const auto* begin = static_cast<const uint8_t*>(bytes);
    program_.tensors[index]->data.assign(begin, begin + length);
    return index;
}

npu::LayerT& ProgramBuilder::addLayer(const std::string& kind, npu::LayerParamsUnion params,
                                      std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
    auto layer = std::make_unique<npu::LayerT>();
    layer->name = kind + "Layer" + std::to_string(program_.layers.size());
    layer->source_operation = operationIndex_;
    layer->params = std::move(params);
    layer->inputs = std::move(inputs);
    layer->outputs = std::move(outputs);
    program_.layers.push_back(std::move(layer));
    return *program_.layers.back();
}

std::vector<uint8_t> ProgramBuilder::finish() {
    flatbuffers::FlatBufferBuilder fbb(1 << 16);
    fbb.Finish(npu::Program::Pack(fbb, &program_), npu::ProgramIdentifier());
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace nnemu::synap
