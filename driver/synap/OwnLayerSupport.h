// What the NPU core's own-kernel layers share (OwnConvolutionLayers.cpp, OwnElementwiseLayers.cpp):
// the NNEMU_NPU_KERNELS choice, the layer state they run, slicing rows over the pool, and reading
// a quantized layer's operands into the kernels' specs. Internal to driver/synap.
#pragma once

#include <pthreadpool.h>

#include <string_view>
#include <vector>

#include "NativeLayers.h"
#include "kernels/Depthwise.h"
#include "kernels/Requant.h"

namespace nnemu::synap::own {

// NNEMU_NPU_KERNELS: "xnnpack" (none of the own kernels), "all" (every own kernel wherever it
// computes exactly, even where it measures slower than XNNPACK), otherwise the default set.
// Read at every load, so that one process can build several cores (benchmarks).
std::string_view kernelChoice();
bool ownKernelsEnabled();

// A layer on an own kernel: its packed weights and how it runs.
struct OwnLayer : LayerState {
    virtual bool run(const NativeLayer& layer) = 0;
    // Pairs run in row bands (BandedLayers.h): a GEMM's output rows for `rows` rows of input on
    // the calling thread (0 rows: whether the layer runs on the GEMM); a 3x3 depthwise's
    // geometry, and its output rows from an input band.
    virtual bool runGemmRows(const uint8_t*, size_t /*rows*/, uint8_t*) { return false; }
    virtual const kernels::DepthwiseSpec* depthwiseSpec() const { return nullptr; }
    virtual void runDepthwiseBand(const uint8_t*, size_t /*bandFirstRow*/, uint8_t*, size_t, size_t) {}
};

// Output rows per slice on the pool: large enough that handing out slices costs little.
template <typename RunRows>
void inSlices(pthreadpool_t pool, size_t rows, size_t rowsPerSlice, const RunRows& runRows) {
    if (pool == nullptr || rows < 2 * rowsPerSlice) return runRows(0, rows);
    const auto slice = [&](size_t i) { runRows(i * rowsPerSlice, (i + 1) * rowsPerSlice); };
    pthreadpool_parallelize_1d(pool, slice, (rows + rowsPerSlice - 1) / rowsPerSlice);
}

// Bytes of the tensor's size, or a filter held packed (used in place, PackedFilters.h).
bool hasData(const npu::Tensor& tensor);

// The 8-bit operands the own kernels take: uint8 activations and weights, or int8 activations
// with int8 weights of zero point 0 or per-channel weights along `channelDim`; constant weights
// and int32 bias. Fills what the kernels' specs share.
struct Operands {
    const npu::Tensor *input, *filter, *bias, *output;
    bool isSigned;
    std::vector<float> filterScales;
    std::vector<int32_t> bias32;  // the program's bytes need not be aligned
    int32_t low, high;
};

// The layer's clamp in its output's quantized values, as the reference derives it from the
// fused activation (the program keeps the activation's real bounds).
void quantizedBounds(const npu::Layer& layer, const npu::Tensor& output, int32_t qmin, int32_t* low, int32_t* high);

// What the kernels' specs share, from the operands (which must outlive the spec).
void fillSpec(const Operands& o, kernels::QuantLayerSpec* spec);

// The operands of a convolution-like layer (input, filter, bias; `channels` outputs, per-channel
// scales along `channelDim`) that the own kernels take; false otherwise.
bool readOperands(const npu::Program& program, const npu::Layer& layer, uint32_t channels, uint32_t channelDim,
                  Operands* o);

}  // namespace nnemu::synap::own
