// 8-bit windowed averages, bit-exact with the reference (driver/cpu/kernels/Pooling.cpp) and
// TFLite: per output pixel, the raw sums of every channel over the input pixels the window
// covers (clipped to the input: padding never counts), then (sum ± count / 2) / count in C's
// truncating division, i.e. rounded half away from zero, clamped to the fused activation. The
// window's channel rows are contiguous (NHWC), so the sums run over whole rows.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "NativeLayers.h"
#include "OwnLayerSupport.h"

namespace nnemu::synap {
namespace {

template <typename T>
void averageRows(const NativeLayer& layer, const npu::QuantizedAveragePool2D& p, int32_t low, int32_t high,
                 size_t rowBegin, size_t rowEnd) {
    const auto* in = layer.inputTensor(0).dims();
    const auto* out = layer.outputTensor().dims();
    const int64_t inHeight = in->Get(1), inWidth = in->Get(2), outHeight = out->Get(1), outWidth = out->Get(2);
    const size_t channels = in->Get(3);
    const auto* input = reinterpret_cast<const T*>(layer.inputs[0]);
    auto* output = reinterpret_cast<T*>(layer.output);
    const int32_t zeroPoint = layer.outputTensor().zero_point();
    std::vector<int32_t> sums(channels);
    for (size_t row = rowBegin; row < rowEnd; ++row) {  // row: batch * outHeight + oy
        const int64_t batch = static_cast<int64_t>(row) / outHeight, oy = static_cast<int64_t>(row) % outHeight;
        const int64_t y0 = std::max<int64_t>(0, oy * p.stride_height() - int64_t{p.padding()->top()});
        const int64_t y1 = std::min<int64_t>(inHeight, oy * p.stride_height() - int64_t{p.padding()->top()} +
                                                               p.pool_height());
        for (int64_t ox = 0; ox < outWidth; ++ox) {
            const int64_t x0 = std::max<int64_t>(0, ox * p.stride_width() - int64_t{p.padding()->left()});
            const int64_t x1 = std::min<int64_t>(inWidth, ox * p.stride_width() - int64_t{p.padding()->left()} +
                                                                  p.pool_width());
            std::fill(sums.begin(), sums.end(), 0);
            for (int64_t y = y0; y < y1; ++y) {
                for (int64_t x = x0; x < x1; ++x) {
                    const T* pixel = input + ((batch * inHeight + y) * inWidth + x) * static_cast<int64_t>(channels);
                    for (size_t c = 0; c < channels; ++c) sums[c] += pixel[c];
                }
            }
            const auto count = static_cast<int32_t>(std::max<int64_t>(0, y1 - y0) * std::max<int64_t>(0, x1 - x0));
            T* result = output + (static_cast<int64_t>(row) * outWidth + ox) * static_cast<int64_t>(channels);
            for (size_t c = 0; c < channels; ++c) {
                const int32_t sum = sums[c];
                const int32_t average = count == 0 ? zeroPoint : (sum >= 0 ? sum + count / 2 : sum - count / 2) / count;
                result[c] = static_cast<T>(std::clamp(average, low, high));
            }
        }
    }
}

}  // namespace

bool runQuantizedAveragePool(const NativeLayer& layer) {
    const auto* p = layer.layer.params_as_QuantizedAveragePool2D();
    if (p == nullptr || p->padding() == nullptr) return false;
    const bool isSigned = layer.outputTensor().type() == npu::DataType::QINT8;
    int32_t low, high;
    own::quantizedBounds(layer.layer, layer.outputTensor(), isSigned ? -128 : 0, &low, &high);
    const auto* out = layer.outputTensor().dims();
    const size_t rows = size_t{out->Get(0)} * out->Get(1);
    own::inSlices(layer.pool, rows, 1, [&](size_t begin, size_t end) {
        if (isSigned) {
            averageRows<int8_t>(layer, *p, low, high, begin, end);
        } else {
            averageRows<uint8_t>(layer, *p, low, high, begin, end);
        }
    });
    return true;
}

}  // namespace nnemu::synap
