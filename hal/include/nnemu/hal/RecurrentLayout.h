// Input positions of the recurrent operations (LSTM and RNN, single step and over sequences),
// so that their signatures (hal/operations) and their reference kernels (driver/cpu/kernels)
// read one description of where each weight, bias and state lives.
#pragma once

#include <cstdint>

namespace nnemu::hal {

constexpr uint32_t kNoOperand = UINT32_MAX;

// LSTM gates, in the order NNAPI lists their weights and biases.
enum LstmGate : uint32_t { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };
constexpr uint32_t kLstmGates = 4;

// Where one LSTM cell (one direction) finds its inputs. Peephole weights exist for the input,
// forget and output gates only. A position at or past the operation's input count (layer
// normalization weights of the 23-input LSTM) or kNoOperand means the operand does not exist.
struct LstmLayout {
    uint32_t input;
    uint32_t inputToGate[kLstmGates];
    uint32_t recurrentToGate[kLstmGates];
    uint32_t cellToGate[kLstmGates];
    uint32_t gateBias[kLstmGates];
    uint32_t projectionWeights;
    uint32_t projectionBias;
    uint32_t outputStateIn;
    uint32_t cellStateIn;
    uint32_t auxInput;
    uint32_t auxInputToGate[kLstmGates];
    uint32_t layerNormWeights[kLstmGates];
    uint32_t activation;
    uint32_t cellClip;
    uint32_t projClip;
};

// LSTM (one step): 23 inputs, or 27 with layer normalization weights.
constexpr LstmLayout kLstmLayout{
        0, {1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, kNoOperand, 11}, {12, 13, 14, 15}, 16, 17, 18, 19,
        kNoOperand, {kNoOperand, kNoOperand, kNoOperand, kNoOperand}, {23, 24, 25, 26}, 20, 21, 22};

// UNIDIRECTIONAL_SEQUENCE_LSTM: as LSTM, with the time-major flag at 23 and layer
// normalization weights at 24-27.
constexpr LstmLayout kUnidirectionalLstmLayout{
        0, {1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, kNoOperand, 11}, {12, 13, 14, 15}, 16, 17, 18, 19,
        kNoOperand, {kNoOperand, kNoOperand, kNoOperand, kNoOperand}, {24, 25, 26, 27}, 20, 21, 22};
constexpr uint32_t kUnidirectionalLstmTimeMajor = 23;

// BIDIRECTIONAL_SEQUENCE_LSTM: forward weights 1-17, backward weights 18-34, states 35-38,
// auxiliary input 39 with its forward (40-43) and backward (44-47) weights, parameters 48-52,
// layer normalization weights 53-56 (forward) and 57-60 (backward).
constexpr LstmLayout kBidirectionalLstmForward{
        0, {1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, kNoOperand, 11}, {12, 13, 14, 15}, 16, 17, 35, 36,
        39, {40, 41, 42, 43}, {53, 54, 55, 56}, 48, 49, 50};
constexpr LstmLayout kBidirectionalLstmBackward{
        0, {18, 19, 20, 21}, {22, 23, 24, 25}, {26, 27, kNoOperand, 28}, {29, 30, 31, 32}, 33, 34, 37, 38,
        39, {44, 45, 46, 47}, {57, 58, 59, 60}, 48, 49, 50};
constexpr uint32_t kBidirectionalLstmMergeOutputs = 51;
constexpr uint32_t kBidirectionalLstmTimeMajor = 52;

// QUANTIZED_LSTM: LSTM's operands 0-19, layer normalization weights 20-23, then its own
// parameters: cell clip 24 and projection clip 25 (optional), the scales of the gates' matmul
// results 26-29, the hidden state's zero point 30 and scale 31. It has no activation operand,
// so the layout names none of the scalars.
constexpr LstmLayout kQuantizedLstmLayout{
        0, {1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, kNoOperand, 11}, {12, 13, 14, 15}, 16, 17, 18, 19,
        kNoOperand, {kNoOperand, kNoOperand, kNoOperand, kNoOperand}, {20, 21, 22, 23},
        kNoOperand, kNoOperand, kNoOperand};
constexpr uint32_t kQuantizedLstmCellClip = 24;
constexpr uint32_t kQuantizedLstmProjClip = 25;
constexpr uint32_t kQuantizedLstmIntermediateScale = 26;  // one per gate, 26-29
constexpr uint32_t kQuantizedLstmHiddenZeroPoint = 30;
constexpr uint32_t kQuantizedLstmHiddenScale = 31;

// Where one RNN cell (one direction) finds its inputs.
struct RnnLayout {
    uint32_t input;
    uint32_t weights;
    uint32_t recurrentWeights;
    uint32_t bias;
    uint32_t hiddenStateIn;
    uint32_t auxInput;
    uint32_t auxWeights;
    uint32_t activation;
};

// RNN (one step) and UNIDIRECTIONAL_SEQUENCE_RNN (time-major flag, an INT32, at 6).
constexpr RnnLayout kRnnLayout{0, 1, 2, 3, 4, kNoOperand, kNoOperand, 5};
constexpr uint32_t kUnidirectionalRnnTimeMajor = 6;

// BIDIRECTIONAL_SEQUENCE_RNN: forward 1-4, backward 5-8, auxiliary input 9 with its forward
// (10) and backward (11) weights, activation 12, time-major 13, merge-outputs 14.
constexpr RnnLayout kBidirectionalRnnForward{0, 1, 2, 3, 4, 9, 10, 12};
constexpr RnnLayout kBidirectionalRnnBackward{0, 5, 6, 7, 8, 9, 11, 12};
constexpr uint32_t kBidirectionalRnnTimeMajor = 13;
constexpr uint32_t kBidirectionalRnnMergeOutputs = 14;

// QUANTIZED_16BIT_LSTM: input 0, the four gates' input weights 1-4 and recurrent weights 5-8,
// their biases 9-12, the previous cell state 13 and output 14. Activations are uint8 with scale
// 1/128 and zero point 128.
namespace quantized16BitLstm {
constexpr uint32_t kInput = 0;
constexpr uint32_t kFirstWeights = 1;
constexpr uint32_t kFirstRecurrentWeights = 5;
constexpr uint32_t kFirstBias = 9;
constexpr uint32_t kPrevCellState = 13;
constexpr uint32_t kPrevOutput = 14;
constexpr int32_t kActivationZeroPoint = 128;
}  // namespace quantized16BitLstm

}  // namespace nnemu::hal
