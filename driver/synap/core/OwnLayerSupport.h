// What the NPU core's own-kernel layers share (OwnConvolutionLayers.cpp, OwnElementwiseLayers.cpp):
// the NNEMU_NPU_KERNELS choice, the layer state they run, slicing work over the pool, and reading
// (the specs they run come from program/OwnSpecs.h). Internal to driver/synap.
#pragma once

#include "CorePool.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "NativeLayers.h"
#include "ThreadTimes.h"
#include "../kernels/Depthwise.h"
#include "../kernels/QuantAdd.h"
#include "../kernels/QuantConv.h"
#include "../kernels/QuantGemm.h"
#include "../program/OwnSpecs.h"

namespace nnemu::synap::own {

// What a banded pair needs of its 3x3 depthwise layer (BandedLayers.h): its geometry, its output
// rows (batches * outHeight) and the bytes of one value (1 for 8-bit layers, 4 for float ones).
struct DepthwiseBandGeometry {
    size_t inHeight = 0, inWidth = 0, outHeight = 0, outWidth = 0, channels = 0, stride = 0, padTop = 0;
    size_t rows = 0, valueBytes = 1;
};

// A layer on an own kernel: its packed weights and how it runs.
struct OwnLayer : LayerState {
    virtual bool run(const NativeLayer& layer) = 0;
    // Layers run in row bands (BandedLayers.h): a convolution's output rows [first, first + count)
    // of its image (batch * height + y) into `band`, on the calling thread (count 0: whether the
    // layer can); a 3x3 depthwise's geometry (false: not one), and its output rows [begin, end)
    // from an input band into `output`, which holds output rows from `outputFirstRow` on.
    virtual bool runImageRows(const uint8_t* /*input*/, size_t /*first*/, size_t /*count*/, uint8_t* /*band*/) {
        return false;
    }
    virtual bool depthwiseBandGeometry(DepthwiseBandGeometry* /*geometry*/) const { return false; }
    // Whether the layer reads no byte past its first input's (so it may read a network input
    // where the caller holds it, not copied into the core's padded buffers).
    virtual bool readsOnlyItsInput() const { return false; }
    // Working memory the layer needs while it runs on up to `threads` threads, given to its runs
    // as NativeLayer::workspace (the core places it in the activation arena, where the values of
    // the layers not running meanwhile are, rather than each thread holding its own).
    virtual size_t workspaceBytes(size_t /*threads*/) const { return 0; }
    virtual void runDepthwiseBand(const uint8_t* /*band*/, size_t /*bandFirstRow*/, uint8_t* /*output*/,
                                  size_t /*outputFirstRow*/, size_t /*begin*/, size_t /*end*/) {}
};

// Output rows per slice on the pool: large enough that handing out slices costs little.
template <typename RunRows>
void inSlices(CorePool* pool, size_t rows, size_t rowsPerSlice, const RunRows& runRows) {
    if (pool == nullptr || rows < 2 * rowsPerSlice) return runRows(0, rows);
    const auto slice = [&](size_t i) { runRows(i * rowsPerSlice, (i + 1) * rowsPerSlice); };
    parallelize(pool, slice, (rows + rowsPerSlice - 1) / rowsPerSlice);
}

// Work cut by cost (OwnConvolutionLayers.cpp): a slice holds at least this many multiply-
// accumulates of the AVX-512 VNNI GEMM's speed (CutRules: faster kernels weigh less), so that
// handing it to another thread costs little of its time (a few microseconds of work).
constexpr double kMinSliceCost = 256 * 1024;
// Slices along the rows alone need this many rows each (whole runs of the kernels' row tiles).
constexpr size_t kRowsPerRowSlice = 16;

// How a layer's work may be cut (tilingOf): what one row of one unit costs, in multiply-
// accumulates of the AVX-512 VNNI kernels (a kernel k times faster weighs 1/k of them), and the
// runs a kernel wants whole: slices along the rows hold whole runs of `rowGrain` rows and at least
// `minSliceRows` rows, slices along the units whole runs of `unitGrain` units; at most
// `unitSlicesPerThread` slices per thread along the units (each such slice reads all the rows:
// a kernel that copies them per call wants few).
struct CutRules {
    double unitRowCost = 0;
    size_t rowGrain = 1, unitGrain = 1;
    size_t minSliceRows = kRowsPerRowSlice;
    size_t unitSlicesPerThread = 4;
};

// How `rows` x `units` of work is cut for `threads` threads, in grains (CutRules): up to 4 slices
// per thread, each of at least kMinSliceCost, their count a multiple of the threads where the work
// allows; along the rows while they are many, otherwise along the units (and the rows for what
// remains). One slice when not worth cutting.
struct Tiling {
    size_t rowSlices = 1, unitSlices = 1;
};
inline size_t grainsOf(size_t count, size_t grain) { return (count + grain - 1) / std::max<size_t>(grain, 1); }
inline Tiling tilingOf(size_t threads, size_t rows, size_t units, const CutRules& rules) {
    const size_t rowGrains = grainsOf(rows, rules.rowGrain), unitGrains = grainsOf(units, rules.unitGrain);
    const double cost = static_cast<double>(rows) * static_cast<double>(units) * rules.unitRowCost;
    size_t slices = std::min(4 * threads, rowGrains * unitGrains);
    if (cost < static_cast<double>(slices) * kMinSliceCost) slices = static_cast<size_t>(cost / kMinSliceCost);
    if (slices >= threads) slices -= slices % threads;
    if (threads < 2 || slices < 2) return {};
    if (rows >= slices * rules.minSliceRows && rowGrains >= slices) return {slices, 1};
    slices = std::min(slices, std::max<size_t>(rules.unitSlicesPerThread, 1) * threads);
    size_t unitSlices = std::min(slices, unitGrains);
    while (slices % unitSlices != 0) --unitSlices;  // rows x units slices, as many as asked
    return {std::min(rowGrains, slices / unitSlices), unitSlices};
}
// Every row and unit a grain of its own, `unitRowCost` per unit row.
inline Tiling tilingOf(size_t threads, size_t rows, size_t units, double unitRowCost) {
    return tilingOf(threads, rows, units, CutRules{unitRowCost});
}

// Where the i-th of `parts` slices of `count` begins, on a boundary of whole grains.
inline size_t grainBoundary(size_t count, size_t grain, size_t i, size_t parts) {
    return std::min(count, grainsOf(count, grain) * i / parts * std::max<size_t>(grain, 1));
}

// Runs rows x units of work on the pool, cut by tilingOf: run(rowBegin, rowEnd, unitBegin,
// unitEnd) per slice, on any thread; the whole on the calling thread without a pool.
template <typename RunTile>
void inTiles(CorePool* pool, size_t rows, size_t units, const CutRules& rules, const RunTile& run) {
    const size_t threads = pool == nullptr ? 1 : pool->threads();
    const Tiling t = tilingOf(threads, rows, units, rules);
    if (t.rowSlices * t.unitSlices < 2) return run(size_t{0}, rows, size_t{0}, units);
    const auto tile = [&](size_t i) {
        const size_t r = i / t.unitSlices, u = i % t.unitSlices;
        run(grainBoundary(rows, rules.rowGrain, r, t.rowSlices), grainBoundary(rows, rules.rowGrain, r + 1, t.rowSlices),
            grainBoundary(units, rules.unitGrain, u, t.unitSlices),
            grainBoundary(units, rules.unitGrain, u + 1, t.unitSlices));
    };
    parallelize(pool, tile, t.rowSlices * t.unitSlices);
}
template <typename RunTile>
void inTiles(CorePool* pool, size_t rows, size_t units, double unitRowCost, const RunTile& run) {
    inTiles(pool, rows, units, CutRules{unitRowCost}, run);
}

// How the quantized GEMM of `job` is cut, in blocks of kernels::kGemmBlock channels
// (OwnConvolutionLayers.cpp): by the kernel that runs it (AMX-INT8's tiles of 32 rows x 2 blocks
// are several times faster than VNNI on deep layers and copy the rows per call in some cases).
CutRules gemmCutRules(const kernels::QuantGemmJob& job);

// Elements a slice of a pooled element-wise ADD has at least: several microseconds of work, which
// handing it to another thread costs a small part of.
constexpr size_t kMinAddSlice = 8192;
// An ADD of two same-shaped `count`-element inputs (MobileNet v2's residuals), cut in up to 2
// slices per thread of at least kMinAddSlice elements, whole cache lines each (OwnElementwiseLayers.cpp).
void addInSlices(CorePool* pool, kernels::Isa isa, const kernels::QuantAddParams& params, const uint8_t* a,
                 const uint8_t* b, uint8_t* out, size_t count);

// Stored weights that failed their check (the program may come from a file): never read.
void damaged(const npu::Layer& layer);
// The 3x3 depthwise layer (OwnDepthwiseLayer.cpp): its state, or null where the own kernel does
// not take it.
std::unique_ptr<LayerState> ownDepthwise(const npu::Program& program, const npu::Layer& layer);

// The float 3x3 depthwise and few-channel convolution layers (OwnFloatConvLayer.cpp): the state,
// or null where the own float kernels do not take the layer; their stored weights, checked.
std::unique_ptr<LayerState> ownFloatConvolution(const npu::Program& program, const npu::Layer& layer);
std::span<const uint8_t> storedFloatConv(const npu::Program& program, const npu::Layer& layer,
                                         const FloatConvSpec& spec, kernels::Isa isa);

// An unfolded convolution's whole output (ConvLayer, OwnConvolutionLayers.cpp), its rows cut by
// tilingOf over `pool`; each thread unfolds into its own working memory.
bool runUnfoldedConvolution(CorePool* pool, kernels::Isa isa, const kernels::PackedQuantConv& packed,
                            const uint8_t* input, uint8_t* output);


}  // namespace nnemu::synap::own
