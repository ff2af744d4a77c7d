#include "BandedLayers.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "../kernels/Isa.h"
#include "OwnLayerSupport.h"

namespace nnemu::synap {
namespace {

using namespace own;

bool bandsEnabled() {
    const char* choice = std::getenv("NNEMU_NPU_BANDS");
    return choice == nullptr || std::string_view(choice) != "0";
}

// New 8-bit convolution output a band computes, at most about. 32 KiB (one core's L1 data cache)
// for the AVX2 kernels (2-4 % faster there than 256 KiB; AVX-VNNI and portable not measured).
// Where the GEMM runs on AVX-512 VNNI (and AMX tiles) such bands made its calls a few image rows
// each (28-224 GEMM rows, ragged against the AMX kernel's 32-row groups, the projection's calls as
// small) and 8-bit MobileNets ran 4-11 % slower banded than apart; in 256 KiB bands they run
// level with apart or ahead (BENCHMARKS.md, "Row bands sized for the AVX-512 GEMM").
constexpr size_t kBandBytes = 32 * 1024;
constexpr size_t kWideBandBytes = 256 * 1024;
// The kernels may read (and the GEMMs write) a little past a band's last row.
constexpr size_t kBandSlack = 256;
// Output rows a thread's run of bands needs at least to be worth a second core.
constexpr size_t kMinRunRows = 2;
// Convolution work (multiply-accumulates) that rows computed twice by runs of bands must cost
// before the threads rather run an image side by side (BandedPair::sideBySidePays).
constexpr double kSideBySideCost = 8 * kMinSliceCost;

// The new convolution output of a band, about: NNEMU_NPU_BAND_KIB (read at every load, for tests
// and comparisons; a whole number of KiB from 1 to 65536, anything else ignored) sets it for 8-bit
// values.
size_t bandBytes(size_t valueBytes) {
    if (valueBytes != 1) return kFloatBandBytes;
    if (const char* kib = std::getenv("NNEMU_NPU_BAND_KIB"); kib != nullptr) {
        char* end = nullptr;
        errno = 0;
        const unsigned long value = std::strtoul(kib, &end, 10);
        if (errno == 0 && end != kib && *end == '\0' && *kib != '-' && value >= 1 && value <= 65536) return value * 1024;
    }
    return kernels::bestIsa() == kernels::Isa::Avx512Vnni ? kWideBandBytes : kBandBytes;
}

// How the threads run an 8-bit image that fits the workspace (BandedPair::sideBySidePays):
// NNEMU_NPU_SIDE_BY_SIDE (read at every load, for tests and comparisons) "0" always in runs of
// bands, "1" always side by side; anything else, or unset, by cost.
enum class SideBySide { kByCost, kNever, kAlways };
SideBySide sideBySideChoice() {
    const char* choice = std::getenv("NNEMU_NPU_SIDE_BY_SIDE");
    if (choice == nullptr) return SideBySide::kByCost;
    if (std::string_view(choice) == "0") return SideBySide::kNever;
    if (std::string_view(choice) == "1") return SideBySide::kAlways;
    return SideBySide::kByCost;
}

struct BandedPair : OwnLayer {
    std::shared_ptr<LayerState> producerState, depthwiseState, consumerState;  // keep the layers' states alive
    OwnLayer* producer = nullptr;
    OwnLayer* depthwise = nullptr;
    // A 1x1 convolution reading the depthwise's output, or null: it takes each band of the
    // depthwise's output rows as they come, so that value is never whole either.
    OwnLayer* consumer = nullptr;
    size_t depthwiseRowBytes = 0, consumerRowBytes = 0;  // one output row of each
    struct {
        size_t batches, inHeight, inWidth, channels, outHeight, stride;
        int64_t padTop;
    } spec{};  // the depthwise's geometry
    size_t rowBytes = 0;  // one row of the value between them
    size_t bandRows = 1;  // depthwise output rows per band
    size_t valueBytes = 1;  // of one value (1: 8-bit layers, 4: float ones)
    double producerRowCost = 0;  // multiply-accumulates of one convolution row
    SideBySide sideBySide = SideBySide::kByCost;

    // Input rows [first, last) of the image (batch * inHeight + y) that output rows [begin, end)
    // of one batch read inside it.
    void inputRowsOf(size_t begin, size_t end, size_t* first, size_t* last) const {
        const size_t batch = begin / spec.outHeight, y0 = begin % spec.outHeight, y1 = end - batch * spec.outHeight;
        const int64_t low = static_cast<int64_t>(y0 * spec.stride) - spec.padTop;
        const int64_t high = static_cast<int64_t>((y1 - 1) * spec.stride) - spec.padTop + 3;
        const auto height = static_cast<int64_t>(spec.inHeight);
        const auto clip = [&](int64_t y) { return static_cast<size_t>(std::clamp<int64_t>(y, 0, height)); };
        *first = batch * spec.inHeight + clip(low);
        *last = std::max(*first, batch * spec.inHeight + clip(high));
    }

    bool readsOnlyItsInput() const override { return producer->readsOnlyItsInput(); }

    // The buffers of one run: the convolution's rows a band reads (then, before a consumer, the
    // depthwise's output rows of the band), each a multiple of 64 bytes.
    size_t bandBufferBytes() const { return (((bandRows - 1) * spec.stride + 3) * rowBytes + kBandSlack + 63) / 64 * 64; }
    size_t runBytes() const {
        return bandBufferBytes() + (consumer == nullptr ? 0 : (bandRows * depthwiseRowBytes + kBandSlack + 63) / 64 * 64);
    }
    // One contiguous run of bands per thread: only where two runs meet are rows computed twice
    // (2 convolution rows at stride 1, 1 at stride 2), which even the 7-row images of MobileNets'
    // last blocks repay on a second core (a run of one band each there: 5 of 7 rows against 7).
    size_t runsOn(size_t threads) const {
        return std::clamp<size_t>(spec.batches * spec.outHeight / kMinRunRows, 1, threads);
    }
    size_t workspaceBytes(size_t threads) const override { return runsOn(threads) * runBytes(); }

    // Output rows [begin, end) band by band on the calling thread, in `buffers` (runBytes()); rows
    // a band shares with the one before stay in the buffer (moved to its start) instead of being
    // computed again.
    bool runRows(const uint8_t* input, uint8_t* output, size_t begin, size_t end, uint8_t* buffers) {
        uint8_t* const buffer = buffers;
        uint8_t* const depthwiseRows = buffers + bandBufferBytes();
        size_t haveFirst = 0, haveLast = 0;
        for (size_t row = begin; row < end;) {
            const size_t batchEnd = (row / spec.outHeight + 1) * spec.outHeight;
            const size_t stop = std::min({end, batchEnd, row + bandRows});
            size_t first, last;
            inputRowsOf(row, stop, &first, &last);
            size_t kept = 0;
            if (first >= haveFirst && first < haveLast) {
                kept = std::min(haveLast, last) - first;
                std::memmove(buffer, buffer + (first - haveFirst) * rowBytes, kept * rowBytes);
            }
            if (last > first + kept &&
                !producer->runImageRows(input, first + kept, last - first - kept, buffer + kept * rowBytes)) {
                return false;
            }
            if (consumer == nullptr) {
                depthwise->runDepthwiseBand(buffer, first, output, 0, row, stop);
            } else {
                depthwise->runDepthwiseBand(buffer, first, depthwiseRows, row, row, stop);
                if (!consumer->runImageRows(depthwiseRows, 0, stop - row, output + row * consumerRowBytes)) {
                    return false;
                }
            }
            haveFirst = first;
            haveLast = last;
            row = stop;
        }
        return true;
    }

    // The workspace an image needs whole on `threads` threads: the convolution's rows the
    // depthwise reads, then (before a consumer) each thread's share of the depthwise's output
    // rows apart (a GEMM may read a little past its last row: never into another thread's rows).
    size_t wholeConvolutionBytes() const {
        size_t first, last;
        inputRowsOf(0, spec.outHeight, &first, &last);
        return ((last - first) * rowBytes + kBandSlack + 63) / 64 * 64;
    }
    size_t depthwiseShareBytes(size_t threads) const {
        return ((spec.outHeight + threads - 1) / threads * depthwiseRowBytes + kBandSlack + 63) / 64 * 64;
    }
    size_t wholeImageBytes(size_t threads) const {
        return wholeConvolutionBytes() + (consumer == nullptr ? 0 : threads * depthwiseShareBytes(threads));
    }

    // Where two threads' runs of bands meet, each computes the convolution's rows the other
    // computes too (2 rows at stride 1, 1 at stride 2): 2 of the 14 rows of a 14x14 image, 2-3 of
    // a 7x7 one's. Side by side, image by image, the threads compute the convolution's rows into
    // one buffer, then each its share of the depthwise's output rows (and the consumer's of them):
    // no row twice, but a second hand-over per image. That pays where the rows computed twice cost
    // more than a few slices of work (kSideBySideCost), for an 8-bit image whose values between fit
    // the runs' workspace: measured per pair, both ways alternated in one process on two threads
    // of a Zen 4 (medians), MobileNet v1 int8's 14x14x512 pairs (7.3 M multiply-accumulates twice)
    // ran 9-12 % faster, v2's 7x7 ones (2.2 M) level; pairs with less than 1 M twice (every one of
    // v1 0.25 128, v2's 28x28 and larger) mostly level or up to 15 % slower.
    // The 8-bit kernels write exactly their rows (masked or counted stores), so slices side by side
    // do not meet.
    bool sideBySidePays(const NativeLayer& layer, size_t threads) const {
        if (valueBytes != 1 || sideBySide == SideBySide::kNever || wholeImageBytes(threads) > layer.workspace.size()) {
            return false;
        }
        const double twice = static_cast<double>((threads - 1) * (3 - std::min<size_t>(spec.stride, 3))) * producerRowCost;
        return sideBySide == SideBySide::kAlways || twice >= kSideBySideCost * static_cast<double>(2 * spec.batches - 1);
    }
    bool runImagesSideBySide(const NativeLayer& layer, size_t threads) {
        uint8_t* const buffer = layer.workspace.data();
        uint8_t* const depthwiseRows = buffer + wholeConvolutionBytes();
        std::atomic<bool> ok = true;
        for (size_t batch = 0; batch < spec.batches && ok; ++batch) {
            const size_t rowBegin = batch * spec.outHeight;
            size_t first, last;
            inputRowsOf(rowBegin, rowBegin + spec.outHeight, &first, &last);
            const size_t rows = last - first;
            parallelize(layer.pool, [&](size_t i) {
                const size_t begin = i * rows / threads, end = (i + 1) * rows / threads;
                if (!producer->runImageRows(layer.inputs[0], first + begin, end - begin, buffer + begin * rowBytes)) {
                    ok = false;
                }
            }, threads);
            if (!ok) break;
            parallelize(layer.pool, [&](size_t i) {
                const size_t begin = rowBegin + i * spec.outHeight / threads;
                const size_t end = rowBegin + (i + 1) * spec.outHeight / threads;
                if (begin == end) return;
                if (consumer == nullptr) return depthwise->runDepthwiseBand(buffer, first, layer.output, 0, begin, end);
                uint8_t* const rowsOut = depthwiseRows + i * depthwiseShareBytes(threads);
                depthwise->runDepthwiseBand(buffer, first, rowsOut, begin, begin, end);
                if (!consumer->runImageRows(rowsOut, 0, end - begin, layer.output + begin * consumerRowBytes)) ok = false;
            }, threads);
        }
        return ok;
    }

    bool run(const NativeLayer& layer) override {
        const size_t rows = size_t{spec.batches} * spec.outHeight;
        const size_t threads = layer.pool == nullptr ? 1 : layer.pool->threads();
        const size_t runs = std::min(runsOn(threads), layer.workspace.size() / runBytes());
        if (runs == 0) return false;  // the core gave it no workspace
        if (runs > 1 && sideBySidePays(layer, runs)) return runImagesSideBySide(layer, runs);
        const auto runOf = [&](size_t i) {
            return runRows(layer.inputs[0], layer.output, i * rows / runs, (i + 1) * rows / runs,
                           layer.workspace.data() + i * runBytes());
        };
        if (runs == 1) return runOf(0);
        std::atomic<bool> ok = true;
        parallelize(layer.pool, [&](size_t i) { if (!runOf(i)) ok = false; }, runs);
        return ok;
    }
};

// The pair with `reader`, a 1x1 convolution on the own GEMM over the depthwise's whole output
// ([B, H, W, C] in, [B, H, W, N] out), as its consumer; nullptr if it is not one.
std::shared_ptr<LayerState> withConsumer(const npu::Program& program, const BandedPair& pair, const npu::Layer& layer,
                                         const npu::Layer& reader, const std::shared_ptr<LayerState>& readerState) {
    auto* consumer = dynamic_cast<OwnLayer*>(readerState.get());
    DepthwiseBandGeometry g, notDepthwise;
    if (pair.consumer != nullptr || consumer == nullptr || dynamic_cast<BandedPair*>(consumer) != nullptr ||
        consumer->depthwiseBandGeometry(&notDepthwise) || !consumer->runImageRows(nullptr, 0, 0, nullptr) ||
        !pair.depthwise->depthwiseBandGeometry(&g) || reader.inputs()->size() == 0 ||
        reader.inputs()->Get(0) != layer.outputs()->Get(0)) {
        return nullptr;
    }
    const auto* in = tensorAt(program, reader.inputs()->Get(0)).dims();
    const auto* out = tensorAt(program, reader.outputs()->Get(0)).dims();
    if (in->size() != 4 || out->size() != 4 || in->Get(1) != g.outHeight || in->Get(2) != g.outWidth ||
        in->Get(3) != g.channels || out->Get(0) != in->Get(0) || out->Get(1) != in->Get(1) ||
        out->Get(2) != in->Get(2) || out->Get(3) == 0) {
        return nullptr;
    }
    auto triple = std::make_shared<BandedPair>(pair);
    triple->consumerState = readerState;
    triple->consumer = consumer;
    triple->depthwiseRowBytes = g.outWidth * g.channels * g.valueBytes;
    triple->consumerRowBytes = g.outWidth * out->Get(3) * g.valueBytes;
    return triple;
}

}  // namespace

std::shared_ptr<LayerState> bandedWithReader(const npu::Program& program, const npu::Layer& layer,
                                             const std::shared_ptr<LayerState>& state, const npu::Layer& reader,
                                             const std::shared_ptr<LayerState>& readerState) {
    if (!bandsEnabled()) return nullptr;
    if (const auto* pair = dynamic_cast<const BandedPair*>(state.get())) {
        return withConsumer(program, *pair, layer, reader, readerState);
    }
    auto* producer = dynamic_cast<OwnLayer*>(state.get());
    auto* depthwise = dynamic_cast<OwnLayer*>(readerState.get());
    if (producer == nullptr || depthwise == nullptr || !producer->runImageRows(nullptr, 0, 0, nullptr)) {
        return nullptr;
    }
    DepthwiseBandGeometry g;
    if (!depthwise->depthwiseBandGeometry(&g) || reader.inputs()->size() == 0 ||
        reader.inputs()->Get(0) != layer.outputs()->Get(0) || g.outHeight == 0 || g.inWidth == 0 || g.channels == 0 ||
        g.stride == 0 || g.rows % g.outHeight != 0) {
        return nullptr;
    }
    // The convolution's output [B, H, W, C] (the kind's check holds) must be the depthwise's input.
    const auto* value = tensorAt(program, layer.outputs()->Get(0)).dims();
    if (value->size() != 4 || value->Get(0) != g.rows / g.outHeight || value->Get(1) != g.inHeight ||
        value->Get(2) != g.inWidth || value->Get(3) != g.channels) {
        return nullptr;
    }
    auto pair = std::make_shared<BandedPair>();
    pair->producerState = state;
    pair->depthwiseState = readerState;
    pair->producer = producer;
    pair->depthwise = depthwise;
    pair->spec = {g.rows / g.outHeight, g.inHeight, g.inWidth, g.channels, g.outHeight, g.stride,
                  static_cast<int64_t>(g.padTop)};
    pair->rowBytes = pair->spec.inWidth * pair->spec.channels * g.valueBytes;
    pair->valueBytes = g.valueBytes;
    pair->sideBySide = sideBySideChoice();
    if (const LayerKind* kind = layerKind(layer.params_type()); kind != nullptr && kind->multiplyAccumulates != nullptr) {
        pair->producerRowCost = static_cast<double>(kind->multiplyAccumulates(program, layer)) /
                                static_cast<double>(g.rows / g.outHeight * g.inHeight);
    }
    pair->bandRows =
            std::clamp<size_t>(bandBytes(g.valueBytes) / (pair->rowBytes * pair->spec.stride), 1, g.outHeight);
    return pair;
}

}  // namespace nnemu::synap
