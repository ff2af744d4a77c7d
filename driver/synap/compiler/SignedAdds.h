// Program passes on signedness: requantizations that are sign flips become flips, and 8-bit ADD,
// SUB and max pooling layers between sign flips move to the other signedness.
#pragma once

#include "npu_program_generated.h"

namespace nnemu::synap {

// An ADD, SUB or max pool of uint8 tensors that are all sign flips of int8 tensors (per-channel
// convolutions run on int8 while a feature level 29 model's tensors are uint8) reads the int8
// tensors instead and writes an int8 result, flipped into the uint8 output: the same real values
// and the same bits, since the zero points move by 128 with the values. Flips left without
// readers go; the output flip then usually cancels against the next layer's flip back.
void moveFlippedAddsToInt8(npu::ProgramT& program);

// A conversion of an 8-bit tensor to float whose only reader converts it to the other signedness
// with the same scale and the zero point moved by 128 (how a model changes uint8 to int8 through
// NNAPI: DEQUANTIZE then QUANTIZE) is a sign flip: (q - z) * s / s rounds back to q - z, so the
// reference gives the same bits. The pair becomes one flip and the float value (four bytes per
// element) never exists.
void requantizationsToFlips(npu::ProgramT& program);

}  // namespace nnemu::synap
