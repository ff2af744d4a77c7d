// Shared by the own kernels' property tests: random quantization of a layer (zero points,
// scales giving multipliers below and above 1, activations, biases near the int32 limits) and
// the reference kernel's operands for it.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "kernels/Requant.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::kernels {

enum class Family { Uint8, Int8, Int8PerChannel };

struct RandomQuant {
    Family family;
    int32_t inputZero, filterZero, outputZero, activation;
    float inputScale, outputScale;
    std::vector<float> filterScales;
    std::vector<int32_t> bias;
    hal::SymmPerChannelQuantParams channelQuant;

    RandomQuant(std::mt19937& rng, Family f, uint32_t channels, uint32_t channelDim, float lowExponent,
                float highExponent)
        : family(f) {
        auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        auto real = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
        const bool isSigned = f != Family::Uint8;
        inputZero = isSigned ? uniform(-128, 127) : uniform(0, 255);
        filterZero = isSigned ? 0 : uniform(0, 255);
        outputZero = isSigned ? uniform(-128, 127) : uniform(0, 255);
        activation = uniform(0, 3);
        inputScale = real(0.001f, 0.1f);
        filterScales.resize(f == Family::Int8PerChannel ? channels : 1);
        for (float& s : filterScales) s = real(0.0005f, 0.05f);
        // Output scales around the products: multipliers both below and above 1.
        outputScale = inputScale * filterScales[0] * std::pow(10.0f, real(lowExponent, highExponent));
        bias.resize(channels);
        const int biasRange = uniform(0, 4) == 0 ? 2'000'000'000 : 20000;
        for (int32_t& b : bias) b = uniform(-biasRange, biasRange);
        channelQuant = {filterScales, channelDim};
    }

    hal::OperandType type() const {
        return family == Family::Uint8 ? hal::OperandType::TENSOR_QUANT8_ASYMM
                                       : hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    }
    hal::OperandView input(std::vector<uint32_t> dims, std::vector<uint8_t>& data) const {
        return {type(), std::move(dims), inputScale, inputZero, nullptr, data.data(), data.size()};
    }
    hal::OperandView filter(std::vector<uint32_t> dims, std::vector<uint8_t>& data) const {
        hal::OperandView v{type(), std::move(dims), filterScales[0], filterZero, nullptr, data.data(), data.size()};
        if (family == Family::Int8PerChannel) {
            v.type = hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
            v.scale = 0.0f;
            v.channelQuant = &channelQuant;
        }
        return v;
    }
    hal::OperandView biasView() {
        return {hal::OperandType::TENSOR_INT32, {static_cast<uint32_t>(bias.size())}, 0.0f, 0, nullptr,
                reinterpret_cast<uint8_t*>(bias.data()), bias.size() * 4};
    }
    hal::OperandView output(std::vector<uint32_t> dims, std::vector<uint8_t>& data) const {
        return {type(), std::move(dims), outputScale, outputZero, nullptr, data.data(), data.size()};
    }
    // The spec fields every own kernel shares (weights and bias must outlive it).
    void fill(QuantLayerSpec* spec, const std::vector<uint8_t>& weights) const {
        spec->signedValues = family != Family::Uint8;
        spec->inputZeroPoint = inputZero;
        spec->filterZeroPoint = filterZero;
        spec->outputZeroPoint = outputZero;
        spec->inputScale = inputScale;
        spec->outputScale = outputScale;
        spec->filterScales = filterScales;
        const int32_t qmin = spec->signedValues ? -128 : 0;
        quant::quantizedActivationRange(activation, outputScale, outputZero, qmin, qmin + 255, &spec->low, &spec->high);
        spec->weights = weights.data();
        spec->bias = bias.data();
    }
};

inline hal::OperandView int32Scalar(int32_t* value) {
    hal::OperandView v;
    v.type = hal::OperandType::INT32;
    v.data = reinterpret_cast<uint8_t*>(value);
    v.length = sizeof(int32_t);
    return v;
}

inline std::vector<uint8_t> randomBytes(std::mt19937& rng, size_t count) {
    std::vector<uint8_t> bytes(count);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng));
    return bytes;
}

// Runs the registered reference kernel of `context`'s operation.
inline bool runReference(hal::OperationContext& context) {
    const cpu::Kernel kernel = cpu::findKernel(context.type);
    return kernel != nullptr && kernel(context);
}

}  // namespace nnemu::synap::kernels
