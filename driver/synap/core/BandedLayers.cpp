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

    bool run(const NativeLayer& layer) override {
        const size_t rows = size_t{spec.batches} * spec.outHeight;
        const size_t threads = layer.pool == nullptr ? 1 : layer.pool->threads();
        const size_t runs = std::min(runsOn(threads), layer.workspace.size() / runBytes());
        if (runs == 0) return false;  // the core gave it no workspace
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
    pair->bandRows =
            std::clamp<size_t>(bandBytes(g.valueBytes) / (pair->rowBytes * pair->spec.stride), 1, g.outHeight);
    return pair;
}

}  // namespace nnemu::synap
