// Helpers shared by the recurrent lowerings (LowerRecurrent.cpp: LSTM, RNN, SVDF;
// LowerSequence.cpp: the sequence operators).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "NodeLowering.h"

namespace nnemu::tflite {

// The node has one of `inputCounts` inputs and `outputs` outputs; fails with the counts otherwise.
bool recurrentCounts(NodeLowering& l, std::initializer_list<size_t> inputCounts, size_t outputs);

// The node's first `count` inputs as float32 operands, absent ones omitted.
bool floatTensorInputs(NodeLowering& l, size_t count, std::vector<uint32_t>* operands);

// The sequence operators' final states (NNAPI's outputs from feature level 30), for the state
// inputs `inputs` when every one is a float variable tensor, appended to `outputs` and fed back
// on the CPU path only (StateFeedback::cpuPathOnly). Otherwise nothing is added.
bool sequenceFinalStates(NodeLowering& l, std::initializer_list<size_t> inputs, std::vector<uint32_t>* outputs);

}  // namespace nnemu::tflite
