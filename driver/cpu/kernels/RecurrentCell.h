// One time step of an LSTM or RNN cell in float, shared by the single-step kernels (LSTM, RNN)
// and the sequence kernels. FLOAT16 operands are read into float and written back as half;
// states stay in float between the steps of a sequence. Defined in RecurrentCell.cpp.
#pragma once

#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/RecurrentLayout.h"

namespace nnemu::cpu::recurrent {

bool isFloatTensor(hal::OperandType type);
// The values of a float tensor; empty when the operand is absent (omitted or empty). Fails
// when the buffer is shorter than the dims say.
bool loadFloats(const hal::OperandView& operand, std::vector<float>* values);
// Loads a tensor that must hold exactly `count` values.
bool loadFloats(const hal::OperandView& operand, size_t count, std::vector<float>* values);
bool storeFloats(const std::vector<float>& values, hal::OperandView& operand);

// The weights and parameters of one LSTM cell. Absent optional groups are empty vectors.
struct LstmCell {
    uint32_t units = 0;
    uint32_t inputSize = 0;
    uint32_t auxInputSize = 0;  // 0: no auxiliary input
    uint32_t outputSize = 0;
    bool cifg = false;
    bool peephole = false;
    bool layerNorm = false;
    bool projection = false;
    int32_t activation = 0;
    float cellClip = 0.0f;  // 0: no clipping
    float projClip = 0.0f;
    std::vector<float> inputToGate[hal::kLstmGates];
    std::vector<float> recurrentToGate[hal::kLstmGates];
    std::vector<float> auxInputToGate[hal::kLstmGates];
    std::vector<float> cellToGate[hal::kLstmGates];
    std::vector<float> gateBias[hal::kLstmGates];
    std::vector<float> layerNormWeights[hal::kLstmGates];
    std::vector<float> projectionWeights;
    std::vector<float> projectionBias;
};

// Reads the cell at `layout` (its shapes were checked by the signature's prepare()).
bool loadLstmCell(const hal::OperationContext& context, const hal::LstmLayout& layout, LstmCell* cell);
// Reads the cell's output state [batch, outputSize] and cell state [batch, units].
bool loadLstmState(const hal::OperationContext& context, const hal::LstmLayout& layout, const LstmCell& cell,
                   uint32_t batch, std::vector<float>* outputState, std::vector<float>* cellState);

// One step for `batch` rows: input [batch, inputSize], auxInput [batch, auxInputSize] or
// nullptr; outputState [batch, outputSize] and cellState [batch, units] are updated in place.
// `gates`, when given, receives the gate values ([gate][batch][units], no input gate under
// CIFG).
void lstmStep(const LstmCell& cell, uint32_t batch, const float* input, const float* auxInput,
              float* outputState, float* cellState, std::vector<float>* gates = nullptr);

// The weights and parameters of one RNN cell.
struct RnnCell {
    uint32_t units = 0;
    uint32_t inputSize = 0;
    uint32_t auxInputSize = 0;  // 0: no auxiliary input
    int32_t fuse = 0;
    std::vector<float> weights;
    std::vector<float> recurrentWeights;
    std::vector<float> bias;
    std::vector<float> auxWeights;
};

bool loadRnnCell(const hal::OperationContext& context, const hal::RnnLayout& layout, RnnCell* cell);
// One step: hidden [batch, units] becomes fuse(W x + A aux + R hidden + bias).
void rnnStep(const RnnCell& cell, uint32_t batch, const float* input, const float* auxInput, float* hidden);

}  // namespace nnemu::cpu::recurrent
