// Reference kernels of AVERAGE_POOL_2D, MAX_POOL_2D (F32, F16, Q8, Q8S) and L2_POOL_2D (F32,
// F16). Windows are clipped to the input: padding never counts as an element, so an average
// divides by the number of input elements actually covered. The quantized average rounds half
// away from zero: (sum ± count / 2) / count (half up for Q8, whose sums are never negative).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ConvPoolUtils.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "nnemu/hal/Padding.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;
using hal::WindowGeometry;
using hal::WindowKind;
using hal::WindowParams;

enum class PoolKind { AVERAGE, MAX, L2 };

struct PoolShape {
    WindowParams params;
    WindowGeometry geometry;
    Image4 in, out;
};

bool resolveShape(const OperationContext& context, PoolShape* s) {
    const OperandView& input = context.input(0);
    const OperandView& output = context.output(0);
    NN_RET_CHECK(input.rank() == 4 && output.rank() == 4);
    s->params = hal::readWindowParams(context, WindowKind::POOL);
    NN_RET_CHECK(hal::windowParamsValid(s->params, WindowKind::POOL));
    s->in = hal::makeImage4(input.dims, s->params.nchw);
    s->out = hal::makeImage4(output.dims, s->params.nchw);
    NN_RET_CHECK(hal::resolveWindow(s->params, s->in.height, s->in.width,
                                    static_cast<uint32_t>(s->params.filterH),
                                    static_cast<uint32_t>(s->params.filterW), &s->geometry));
    NN_RET_CHECK(s->geometry.outHeight == s->out.height && s->geometry.outWidth == s->out.width);
    NN_RET_CHECK(s->out.batches == s->in.batches && s->out.channels == s->in.channels);
    return true;
}

// For every output element, folds reduce(acc, inputIndex) over the input elements its window
// covers (rows, then columns), then calls store(outputIndex, acc, count). In NHWC a window
// position's channels are contiguous, so all channels of an output pixel fold together.
template <typename Acc, typename Reduce, typename Store>
void pool(const PoolShape& s, Acc initial, Reduce reduce, Store store) {
    const WindowGeometry& g = s.geometry;
    std::vector<Acc> acc(s.in.nchw ? 1 : s.out.channels);
    for (uint32_t b = 0; b < s.out.batches; ++b) {
        for (uint32_t oy = 0; oy < s.out.height; ++oy) {
            const int64_t y0 = static_cast<int64_t>(oy) * g.strideH - g.padTop;
            const int64_t yBegin = std::max<int64_t>(y0, 0);
            const int64_t yEnd = std::min<int64_t>(y0 + g.filterHeight, g.inHeight);
            for (uint32_t ox = 0; ox < s.out.width; ++ox) {
                const int64_t x0 = static_cast<int64_t>(ox) * g.strideW - g.padLeft;
                const int64_t xBegin = std::max<int64_t>(x0, 0);
                const int64_t xEnd = std::min<int64_t>(x0 + g.filterWidth, g.inWidth);
                const auto count = static_cast<uint32_t>(std::max<int64_t>(yEnd - yBegin, 0) *
                                                         std::max<int64_t>(xEnd - xBegin, 0));
                if (!s.in.nchw) {
                    std::fill(acc.begin(), acc.end(), initial);
                    for (int64_t y = yBegin; y < yEnd; ++y) {
                        for (int64_t x = xBegin; x < xEnd; ++x) {
                            const size_t first = s.in.at(b, static_cast<uint32_t>(y), static_cast<uint32_t>(x), 0);
                            for (uint32_t c = 0; c < s.out.channels; ++c) acc[c] = reduce(acc[c], first + c);
                        }
                    }
                    const size_t out = s.out.at(b, oy, ox, 0);
                    for (uint32_t c = 0; c < s.out.channels; ++c) store(out + c, acc[c], count);
                    continue;
                }
                for (uint32_t c = 0; c < s.out.channels; ++c) {
                    Acc value = initial;
                    for (int64_t y = yBegin; y < yEnd; ++y) {
                        for (int64_t x = xBegin; x < xEnd; ++x) {
                            value = reduce(value, s.in.at(b, static_cast<uint32_t>(y), static_cast<uint32_t>(x), c));
                        }
                    }
                    store(s.out.at(b, oy, ox, c), value, count);
                }
            }
        }
    }
}

void poolFloat(PoolKind kind, const PoolShape& s, const float* input, float* output) {
    float low, high;
    quant::floatActivationRange(s.params.activation, &low, &high);
    auto put = [&](size_t o, float value) { output[o] = convpool::clampFloat(value, low, high); };
    switch (kind) {
        case PoolKind::AVERAGE:
            pool(s, 0.0f, [&](float acc, size_t i) { return acc + input[i]; },
                 [&](size_t o, float sum, uint32_t count) {
                     put(o, count == 0 ? 0.0f : sum / static_cast<float>(count));
                 });
            break;
        case PoolKind::MAX:
            pool(s, std::numeric_limits<float>::lowest(),
                 [&](float acc, size_t i) { return std::max(acc, input[i]); },
                 [&](size_t o, float max, uint32_t count) { put(o, count == 0 ? 0.0f : max); });
            break;
        case PoolKind::L2:
            pool(s, 0.0f, [&](float acc, size_t i) { return acc + input[i] * input[i]; },
                 [&](size_t o, float sum, uint32_t count) {
                     put(o, count == 0 ? 0.0f : std::sqrt(sum / static_cast<float>(count)));
                 });
            break;
    }
}

// T: uint8_t (Q8) or int8_t (Q8S), the type of input and output.
template <typename T>
bool poolQuant8(PoolKind kind, const PoolShape& s, const OperandView& inputView,
                OperandView& outputView) {
    NN_RET_CHECK(kind != PoolKind::L2);
    NN_RET_CHECK(convpool::fits(outputView, outputView.elements(), sizeof(T)));
    int32_t low, high;
    quant::quantizedActivationRange(s.params.activation, outputView.scale, outputView.zeroPoint,
                             kQuantMin<T>, kQuantMax<T>, &low, &high);
    const T* input = inputView.as<T>();
    T* output = outputView.as<T>();
    const int32_t zeroPoint = outputView.zeroPoint;
    auto put = [&](size_t o, int32_t value) {
        output[o] = static_cast<T>(convpool::clampInt(value, low, high));
    };
    switch (kind) {
        case PoolKind::AVERAGE:
            pool(s, int32_t{0}, [&](int32_t acc, size_t i) { return acc + input[i]; },
                 [&](size_t o, int32_t sum, uint32_t count) {
                     const auto n = static_cast<int32_t>(count);
                     put(o, n == 0 ? zeroPoint : (sum >= 0 ? sum + n / 2 : sum - n / 2) / n);
                 });
            return true;
        case PoolKind::MAX:
            pool(s, kQuantMin<T>,
                 [&](int32_t acc, size_t i) { return std::max<int32_t>(acc, input[i]); },
                 [&](size_t o, int32_t max, uint32_t count) { put(o, count == 0 ? zeroPoint : max); });
            return true;
        case PoolKind::L2:
            return false;
    }
    return false;
}

bool runPool(OperationContext& context, PoolKind kind) {
    PoolShape s;
    NN_RET_CHECK(resolveShape(context, &s));
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    NN_RET_CHECK(output.type == input.type);
    const uint64_t outCount = output.elements();
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
            NN_RET_CHECK(convpool::fits(output, outCount, sizeof(float)));
            poolFloat(kind, s, input.as<float>(), output.as<float>());
            return true;
        case OperandType::TENSOR_FLOAT16: {
            NN_RET_CHECK(convpool::fits(output, outCount, sizeof(uint16_t)));
            const std::vector<float> in = convpool::halfToFloatVector(input);
            std::vector<float> out(static_cast<size_t>(outCount));
            poolFloat(kind, s, in.data(), out.data());
            convpool::storeAsHalf(out, output);
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            return poolQuant8<uint8_t>(kind, s, input, output);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return poolQuant8<int8_t>(kind, s, input, output);
        default:
            return false;
    }
}

}  // namespace

bool kernels::averagePool2D(OperationContext& context) { return runPool(context, PoolKind::AVERAGE); }

bool kernels::maxPool2D(OperationContext& context) { return runPool(context, PoolKind::MAX); }

bool kernels::l2Pool2D(OperationContext& context) { return runPool(context, PoolKind::L2); }

}  // namespace nnemu::cpu
