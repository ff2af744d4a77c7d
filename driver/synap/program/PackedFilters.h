// Filters the program holds only packed (Tensor.packed): once a layer's weights are stored packed
// for the own GEMM, the compiler drops its raw filter (the program would otherwise carry the
// weights twice), and a core that needs the filter itself (another ISA or layout, the XNNPACK
// core) unpacks it from the packed bytes, exactly.
#pragma once

#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "npu_program_generated.h"

namespace nnemu::synap {

// At compilation, after packing: drops the filters of the packed layers that nothing else reads.
void dropPackedFilters(npu::ProgramT* program);

// At load (the program may come from a file): every packed filter is read by one layer only, as
// its filter, and that layer has packed weights; BAD_DATA saying why otherwise.
Status checkPackedFilters(const npu::Program& program);

// The layers reading a filter held only packed (checkPackedFilters passed: one per such filter).
std::vector<uint32_t> layersOfPackedFilters(const npu::Program& program);

// `program` with every packed filter unpacked into its tensor and no packed weights; BAD_DATA
// saying why when a filter does not unpack to its tensor's size.
Result<std::vector<uint8_t>> unpackFilters(const npu::Program& program);

}  // namespace nnemu::synap
