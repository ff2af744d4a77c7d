// The version of what a compiled NPU program means, shared by the compiler that writes programs
// and the core that loads them (and by the device, whose version string carries it).
#pragma once

#include <cstdint>

namespace nnemu::synap {

// Changes whenever the program format or the lowering changes what a program means; cached
// programs of another version are recompiled. Part of the device's version string.
// 4: int8 network ports and layers; 5: ADD/SUB between sign flips on int8 (SignedAdds.h);
// 6: packed weights; 7: filters of packed layers dropped (PackedFilters.h); 8: depthwise and
// unfolded convolutions stored packed; 9: requantizations that are sign flips become flips;
// 10: 8-bit windowed averages on their own exact layer (QuantizedAveragePool2D); 11: float 1x1
// convolutions and fully connected layers stored packed for the own float GEMM; 12: relaxed
// programs (relaxed_float32) store their float GEMMs in bfloat16 where the CPU runs it; 13: float
// 3x3 depthwise and few-channel convolutions stored packed for the own float kernels; 14: float
// first convolutions (few input channels) on the own kernel by default (FloatConv.h), stored packed.
constexpr uint32_t kCompilerVersion = 14;

}  // namespace nnemu::synap
