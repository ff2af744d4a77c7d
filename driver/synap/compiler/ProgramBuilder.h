// Builds an NPU program in memory (the schema's object API) while operations are lowered.
#pragma once

#include <string>
#include <vector>

#include "npu_program_generated.h"
#include "nnemu/hal/Types.h"

namespace nnemu::synap {

class ProgramBuilder {
public:
    // `operands` carry the actual dims of the first inference; `constantOf` their constant bytes.
    ProgramBuilder(const hal::Model& model, const std::vector<std::vector<uint32_t>>& dims);

    // Makes `operation` the one whose operands input()/output() refer to.
    void beginOperation(uint32_t index, const hal::Operation& operation);
    // The program tensor of the current operation's input / output i (created on first use;
    // constants carry their bytes, model inputs/outputs their positions).
    uint32_t input(uint32_t i);
    uint32_t output(uint32_t i);
    // A tensor that exists only inside the program (between two layers of one operation).
    uint32_t intermediate(npu::DataType type, const std::vector<uint32_t>& dims, float scale = 0.0f,
                          int32_t zeroPoint = 0);
    uint32_t constant(npu::DataType type, const std::vector<uint32_t>& dims, const void* bytes, size_t length,
                      float scale = 0.0f, int32_t zeroPoint = 0);
    // A constant with one scale per channel along `channelDim` (QCINT8 filters, QCINT32 biases).
    uint32_t perChannelConstant(npu::DataType type, const std::vector<uint32_t>& dims, const void* bytes,
                                size_t length, std::vector<float> scales, uint32_t channelDim);

    // Appends a layer of the current operation; `kind` names it in profiles ("Convolution").
    npu::LayerT& addLayer(const std::string& kind, npu::LayerParamsUnion params, std::vector<uint32_t> inputs,
                          std::vector<uint32_t> outputs);

    const npu::TensorT& tensor(uint32_t index) const { return *program_.tensors[index]; }
    // Serializes the finished program, after removing sign flips that cancel out.
    std::vector<uint8_t> finish();

private:
    uint32_t tensorOfOperand(uint32_t operandIndex);

    const hal::Model& model_;
    const std::vector<std::vector<uint32_t>>& dims_;
    npu::ProgramT program_;
    std::vector<int64_t> tensorOf_;  // per operand: program tensor or -1
    const hal::Operation* operation_ = nullptr;
    uint32_t operationIndex_ = 0;
};

npu::DataType npuTypeOf(const hal::Operand& operand);

}  // namespace nnemu::synap
