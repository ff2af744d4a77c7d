// Small helpers shared by the convolution, pooling and fully-connected reference kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "nnemu/kernels/QuantMath.h"
#include "nnemu/base/Half.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Padding.h"

namespace nnemu::cpu::convpool {

// The elements of a TENSOR_FLOAT16 operand widened to float.
inline std::vector<float> halfToFloatVector(const hal::OperandView& operand) {
    const size_t count = static_cast<size_t>(operand.elements());
    std::vector<float> values(count);
    const uint16_t* half = operand.as<uint16_t>();
    for (size_t i = 0; i < count; ++i) values[i] = base::halfToFloat(half[i]);
    return values;
}

// Stores float results into a TENSOR_FLOAT16 operand.
inline void storeAsHalf(const std::vector<float>& values, hal::OperandView& operand) {
    uint16_t* half = operand.as<uint16_t>();
    for (size_t i = 0; i < values.size(); ++i) half[i] = base::floatToHalf(values[i]);
}

inline float clampFloat(float value, float low, float high) { return quant::activationClamp(value, low, high); }

inline int32_t clampInt(int32_t value, int32_t low, int32_t high) {
    return std::min(std::max(value, low), high);
}

// Whether an output buffer can hold `count` elements of `elementSize` bytes.
inline bool fits(const hal::OperandView& operand, uint64_t count, uint32_t elementSize) {
    return count == 0 || (operand.data != nullptr && operand.length >= count * elementSize);
}

// Calls fn(ky, kx, iy, ix) for every tap of the window at (y0, x0) that lies inside the input,
// rows first: taps in the padding contribute nothing.
template <typename Fn>
inline void forEachTap(const hal::WindowGeometry& g, int64_t y0, int64_t x0, Fn fn) {
    for (uint32_t ky = 0; ky < g.filterHeight; ++ky) {
        const int64_t iy = y0 + static_cast<int64_t>(ky) * g.dilationH;
        if (iy < 0 || iy >= g.inHeight) continue;
        for (uint32_t kx = 0; kx < g.filterWidth; ++kx) {
            const int64_t ix = x0 + static_cast<int64_t>(kx) * g.dilationW;
            if (ix < 0 || ix >= g.inWidth) continue;
            fn(ky, kx, static_cast<uint32_t>(iy), static_cast<uint32_t>(ix));
        }
    }
}

// Turns the int32 accumulators (bias included) of a convolution-like layer into 8-bit outputs
// (T = uint8_t for QUANT8_ASYMM, int8_t for QUANT8_ASYMM_SIGNED), one fixed-point multiplier per
// output channel. NNAPI's arithmetic: the real multiplier is (inScale * filterScale, a float
// product) / outScale in double; since feature level 29 it may exceed 1 (a left shift before the
// Q31 multiply).
template <typename T>
class Requantizer {
public:
    // `filter` is per tensor (QUANT8_ASYMM) or per channel (`channels` scales).
    bool init(const hal::OperandView& input, const hal::OperandView& filter,
              const hal::OperandView& output, int32_t activation, uint32_t channels) {
        const bool perChannel = filter.type == hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
        NN_RET_CHECK(!perChannel ||
                     (filter.channelQuant != nullptr && filter.channelQuant->scales.size() == channels));
        NN_RET_CHECK(output.scale > 0.0f);
        multipliers_.resize(channels);
        shifts_.resize(channels);
        for (uint32_t c = 0; c < channels; ++c) {
            const float filterScale = perChannel ? filter.channelQuant->scales[c] : filter.scale;
            const float product = input.scale * filterScale;
            const double real = static_cast<double>(product) / static_cast<double>(output.scale);
            NN_RET_CHECK(real >= 0.0 && std::isfinite(real));
            quant::quantizeMultiplier(real, &multipliers_[c], &shifts_[c]);
        }
        zeroPoint_ = output.zeroPoint;
        quant::quantizedActivationRange(activation, output.scale, output.zeroPoint, kMin, kMax, &low_, &high_);
        return true;
    }

    T operator()(int32_t accumulator, int32_t bias, uint32_t channel) const {
        const int32_t scaled = quant::multiplyByQuantizedMultiplier(quant::saturatingAdd(accumulator, bias),
                                                             multipliers_[channel], shifts_[channel]);
        return static_cast<T>(clampInt(quant::saturatingAdd(scaled, zeroPoint_), low_, high_));
    }

    // The parts, for kernels that requantize many outputs at once the same way.
    int32_t multiplier(uint32_t channel) const { return multipliers_[channel]; }
    int shift(uint32_t channel) const { return shifts_[channel]; }
    int32_t zeroPoint() const { return zeroPoint_; }
    int32_t low() const { return low_; }
    int32_t high() const { return high_; }

private:
    static constexpr int32_t kMin = std::numeric_limits<T>::min();
    static constexpr int32_t kMax = std::numeric_limits<T>::max();
    std::vector<int32_t> multipliers_;
    std::vector<int> shifts_;
    int32_t zeroPoint_ = 0, low_ = kMin, high_ = kMax;
};

}  // namespace nnemu::cpu::convpool
