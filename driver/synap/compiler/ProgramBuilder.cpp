#include "ProgramBuilder.h"

#include <algorithm>

#include "Compiler.h"
#include "../program/WeightPacking.h"
#include "../program/PackedFilters.h"
#include "SignedAdds.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::synap {

npu::DataType npuTypeOf(const hal::Operand& operand) {
    switch (operand.type) {
        case hal::OperandType::TENSOR_QUANT8_ASYMM: return npu::DataType::QUINT8;
        case hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return npu::DataType::QINT8;
        // With a scale: the bias of a quantized layer.
        case hal::OperandType::TENSOR_INT32: return operand.scale != 0.0f ? npu::DataType::QINT32 : npu::DataType::INT32;
        case hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: return npu::DataType::QCINT8;
        case hal::OperandType::TENSOR_FLOAT16: return npu::DataType::FLOAT16;
        default: return npu::DataType::FLOAT32;
    }
}

ProgramBuilder::ProgramBuilder(const hal::Model& model, const std::vector<std::vector<uint32_t>>& dims)
    : model_(model), dims_(dims), tensorOf_(model.operands.size(), -1) {
    program_.compiler_version = kCompilerVersion;
    program_.relaxed_float32 = model.relaxComputationFloat32toFloat16;
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
    tensor->type = npuTypeOf(operand);
    tensor->dims = dims_[operandIndex];
    tensor->scale = operand.scale;
    tensor->zero_point = operand.zeroPoint;
    if (operand.channelQuant) {
        tensor->channel_scales = operand.channelQuant->scales;
        tensor->channel_dim = operand.channelQuant->channelDim;
    }
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

uint32_t ProgramBuilder::perChannelConstant(npu::DataType type, const std::vector<uint32_t>& dims, const void* bytes,
                                            size_t length, std::vector<float> scales, uint32_t channelDim) {
    const uint32_t index = constant(type, dims, bytes, length);
    program_.tensors[index]->channel_scales = std::move(scales);
    program_.tensors[index]->channel_dim = channelDim;
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

namespace {

// Per-channel layers run on int8 activations between two sign flips; where one such layer feeds
// another, flip(flip(x)) is x: readers of the second flip's output read x, and flips left
// without readers go.
void eliminateSignFlipPairs(npu::ProgramT& program) {
    auto& layers = program.layers;
    auto isFlip = [](const npu::LayerT& layer) { return layer.params.type == npu::LayerParams::FlipSign; };
    auto readers = [&](uint32_t tensor) {
        std::vector<npu::LayerT*> found;
        for (auto& layer : layers) {
            if (layer && std::find(layer->inputs.begin(), layer->inputs.end(), tensor) != layer->inputs.end()) {
                found.push_back(layer.get());
            }
        }
        return found;
    };
    for (auto& first : layers) {
        if (!first || !isFlip(*first)) continue;
        const uint32_t source = first->inputs[0];
        const uint32_t flipped = first->outputs[0];
        const auto& flippedTensor = *program.tensors[flipped];
        const auto next = readers(flipped);
        const bool isPort = flippedTensor.input_index >= 0 || flippedTensor.output_index >= 0;
        if (isPort || next.empty() || !std::all_of(next.begin(), next.end(), [&](auto* l) { return isFlip(*l); })) {
            continue;
        }
        // A network output written by the second flip keeps its writer.
        if (std::any_of(next.begin(), next.end(), [&](auto* l) {
                const auto& restored = *program.tensors[l->outputs[0]];
                return restored.input_index >= 0 || restored.output_index >= 0;
            })) {
            continue;
        }
        for (npu::LayerT* second : next) {
            const uint32_t restored = second->outputs[0];
            for (npu::LayerT* reader : readers(restored)) std::replace(reader->inputs.begin(), reader->inputs.end(), restored, source);
            for (auto& layer : layers) {
                if (layer.get() == second) layer.reset();
            }
        }
        first.reset();
    }
    layers.erase(std::remove(layers.begin(), layers.end(), nullptr), layers.end());
}

}  // namespace

std::vector<uint8_t> ProgramBuilder::finish() {
    requantizationsToFlips(program_);
    moveFlippedAddsToInt8(program_);
    eliminateSignFlipPairs(program_);
    // The own kernels pack from a skeleton of the program: its filters (the bulk of the weights)
    // moved out and marked packed, read from here; the whole program is serialized once.
    std::vector<std::vector<uint8_t>> filters(program_.tensors.size());
    for (const auto& layer : program_.layers) {
        if (layer->inputs.size() < 2) continue;
        npu::TensorT& filter = *program_.tensors[layer->inputs[1]];
        if (filter.packed || filter.data.empty()) continue;
        filters[layer->inputs[1]].swap(filter.data);
        filter.packed = true;
    }
    flatbuffers::FlatBufferBuilder skeleton(1 << 16);
    skeleton.Finish(npu::Program::Pack(skeleton, &program_), npu::ProgramIdentifier());
    const npu::Program& serialized = *npu::GetProgram(skeleton.GetBufferPointer());
    for (uint32_t l = 0; l < serialized.layers()->size(); ++l) {
        const auto& inputs = program_.layers[l]->inputs;
        auto packed = std::make_unique<npu::PackedWeightsT>();
        if (packOwnWeights(serialized, l, inputs.size() < 2 ? std::span<const uint8_t>() : filters[inputs[1]], packed.get())) {
            program_.packed_weights.push_back(std::move(packed));
        }
    }
    size_t bytes = skeleton.GetSize();
    for (size_t t = 0; t < filters.size(); ++t) {
        if (filters[t].empty()) continue;
        program_.tensors[t]->data.swap(filters[t]);
        program_.tensors[t]->packed = false;
        bytes += program_.tensors[t]->data.size();
    }
    dropPackedFilters(&program_);  // the packed bytes stand for them
    for (const auto& packed : program_.packed_weights) bytes += packed->data.size() + 64;
    flatbuffers::FlatBufferBuilder fbb(bytes + (1 << 16));
    fbb.Finish(npu::Program::Pack(fbb, &program_), npu::ProgramIdentifier());
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace nnemu::synap
