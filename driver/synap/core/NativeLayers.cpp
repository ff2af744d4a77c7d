#include "NativeLayers.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "nnemu/kernels/QuantMath.h"
#include "nnemu/hal/Axis.h"

namespace nnemu::synap {
namespace {

bool isQuant8(npu::DataType type) { return type == npu::DataType::QUINT8 || type == npu::DataType::QINT8; }

}  // namespace

// Same-type inputs of the output's rank whose dims agree off the axis and add up along it.
bool checkConcatenation(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor& output = outputOf(program, layer);
    const auto* params = layer.params_as_Concatenation();
    const auto& outDims = *output.dims();
    if (params == nullptr || params->axis() >= outDims.size()) return false;
    if (output.type() != npu::DataType::FLOAT32 && !isQuant8(output.type())) return false;
    uint64_t along = 0;
    for (uint32_t t : *layer.inputs()) {
        const npu::Tensor& input = tensorAt(program, t);
        const auto& dims = *input.dims();
        if (input.type() != output.type() || dims.size() != outDims.size()) return false;
        for (uint32_t d = 0; d < dims.size(); ++d) {
            if (d != params->axis() && dims.Get(d) != outDims.Get(d)) return false;
        }
        along += dims.Get(params->axis());
    }
    return along == outDims.Get(params->axis());
}

// For every outer index, each input's slab of [axis..] elements in turn; quantized inputs with
// another scale or zero point are requantized into the output's.
bool runConcatenation(const NativeLayer& layer) {
    const npu::Tensor& output = layer.outputTensor();
    const uint32_t axis = layer.layer.params_as_Concatenation()->axis();
    size_t outer = 1;
    for (uint32_t d = 0; d < axis; ++d) outer *= output.dims()->Get(d);
    const size_t element = elementBytes(output.type());
    const bool quantized = output.type() != npu::DataType::FLOAT32;
    uint8_t* out = layer.output;
    size_t written = 0;
    std::vector<size_t> slabs;
    for (uint32_t i = 0; i < layer.inputs.size(); ++i) {
        slabs.push_back(elementCount(layer.inputTensor(i)) / std::max<size_t>(outer, 1));
    }
    for (size_t o = 0; o < outer; ++o) {
        for (size_t i = 0; i < slabs.size(); ++i) {
            const npu::Tensor& input = layer.inputTensor(static_cast<uint32_t>(i));
            const uint8_t* in = layer.inputs[i] + o * slabs[i] * element;
            if (!quantized || (input.scale() == output.scale() && input.zero_point() == output.zero_point())) {
                std::memcpy(out + written, in, slabs[i] * element);
            } else {
                const float ratio = input.scale() / output.scale();
                const int32_t low = output.type() == npu::DataType::QUINT8 ? 0 : -128;
                for (size_t k = 0; k < slabs[i]; ++k) {
                    const int32_t q = output.type() == npu::DataType::QUINT8 ? in[k] : static_cast<int8_t>(in[k]);
                    // In float, as before, but safe from any zero point a stored program holds.
                    const float real = (static_cast<float>(q) - static_cast<float>(input.zero_point())) * ratio;
                    out[written + k] = static_cast<uint8_t>(
                            quant::quantizeSaturated(real, output.zero_point(), low, low + 255));
                }
            }
            written += slabs[i] * element;
        }
    }
    return true;
}

// One 8-bit tensor into another of the same shape.
bool checkFlipSign(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    return layer.inputs()->size() == 1 && isQuant8(input.type()) && isQuant8(output.type()) &&
           elementCount(input) == elementCount(output);
}

bool runFlipSign(const NativeLayer& layer) {
    const uint8_t* __restrict in = layer.inputs[0];  // never the output's buffer: vectorizes
    uint8_t* __restrict out = layer.output;
    for (size_t i = 0, n = byteSize(layer.outputTensor()); i < n; ++i) out[i] = in[i] ^ 0x80;
    return true;
}

// A same-shape, same-type copy whose axis divides into `groups`.
bool checkChannelShuffle(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    const auto* params = layer.params_as_ChannelShuffle();
    if (params == nullptr || layer.inputs()->size() != 1 || input.type() != output.type()) return false;
    const std::vector<uint32_t> dims = dimsOf(input);
    return dims == dimsOf(output) && params->axis() < dims.size() && params->groups() >= 1 &&
           dims[params->axis()] % params->groups() == 0;
}

// The axis of size C is read as [groups, C / groups] and transposed: output channel
// c = i * groups + g is input channel g * (C / groups) + i. Slices after the axis move whole.
bool runChannelShuffle(const NativeLayer& layer) {
    const auto* params = layer.layer.params_as_ChannelShuffle();
    const npu::Tensor& input = layer.inputTensor(0);
    const hal::AxisSplit split = hal::splitAtAxis(dimsOf(input), params->axis());
    const uint32_t groups = params->groups();
    const uint32_t groupSize = split.size / groups;
    const size_t element = elementBytes(input.type());
    for (uint64_t o = 0; o < split.outer; ++o) {
        for (uint32_t c = 0; c < split.size; ++c) {
            const uint32_t from = (c % groups) * groupSize + c / groups;
            std::memcpy(layer.output + split.at(o, c, 0) * element, layer.inputs[0] + split.at(o, from, 0) * element,
                        split.inner * element);
        }
    }
    return true;
}

}  // namespace nnemu::synap
