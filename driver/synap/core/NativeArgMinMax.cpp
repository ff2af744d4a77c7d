// ARGMAX and ARGMIN, which the core's XNNPACK lacks: the index of the largest (smallest) element
// along an axis, the first one on ties, as INT32.
#include "NativeLayers.h"
#include "nnemu/hal/Axis.h"
#include "nnemu/base/Half.h"

namespace nnemu::synap {
namespace {

// Int32 tensors with a scale (QINT32) hold plain int32 values too.
bool isInt32(npu::DataType type) { return type == npu::DataType::INT32 || type == npu::DataType::QINT32; }

template <typename T>
T same(T value) { return value; }

// `value` turns a stored element into one that orders as the element's value does.
template <bool kMaximum, typename Stored, typename Value>
void argMinMax(const NativeLayer& layer, const hal::AxisSplit& split, Value (*value)(Stored)) {
    const auto* in = reinterpret_cast<const Stored*>(layer.inputs[0]);
    auto* out = reinterpret_cast<int32_t*>(layer.output);
    for (uint64_t o = 0; o < split.outer; ++o) {
        for (uint64_t i = 0; i < split.inner; ++i) {
            uint32_t best = 0;
            Value bestValue = value(in[split.at(o, 0, i)]);
            for (uint32_t a = 1; a < split.size; ++a) {
                const Value candidate = value(in[split.at(o, a, i)]);
                if (kMaximum ? candidate > bestValue : candidate < bestValue) {
                    best = a;
                    bestValue = candidate;
                }
            }
            out[o * split.inner + i] = static_cast<int32_t>(best);
        }
    }
}

// uint8 and int8 values order as their real values do (the scale is positive).
template <bool kMaximum>
bool run(const NativeLayer& layer) {
    const npu::Tensor& input = layer.inputTensor(0);
    const uint32_t axis = kMaximum ? layer.layer.params_as_ArgMax()->axis() : layer.layer.params_as_ArgMin()->axis();
    const hal::AxisSplit split = hal::splitAtAxis(dimsOf(input), axis);
    switch (input.type()) {
        case npu::DataType::FLOAT32: argMinMax<kMaximum>(layer, split, same<float>); return true;
        case npu::DataType::FLOAT16: argMinMax<kMaximum>(layer, split, base::halfToFloat); return true;
        case npu::DataType::QUINT8: argMinMax<kMaximum>(layer, split, same<uint8_t>); return true;
        case npu::DataType::QINT8: argMinMax<kMaximum>(layer, split, same<int8_t>); return true;
        case npu::DataType::INT32:
        case npu::DataType::QINT32: argMinMax<kMaximum>(layer, split, same<int32_t>); return true;
        default: return false;
    }
}

}  // namespace

// A float, half, uint8, int8 or int32 input, a non-empty axis, one int32 output element per index left.
bool checkArgMinMax(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    const auto type = input.type();
    if (layer.inputs()->size() != 1 || !isInt32(output.type())) return false;
    if (type != npu::DataType::FLOAT32 && type != npu::DataType::FLOAT16 && type != npu::DataType::QUINT8 &&
        type != npu::DataType::QINT8 && !isInt32(type)) {
        return false;
    }
    const auto* max = layer.params_as_ArgMax();
    const auto* min = layer.params_as_ArgMin();
    const uint32_t axis = max != nullptr ? max->axis() : min != nullptr ? min->axis() : UINT32_MAX;
    const std::vector<uint32_t> dims = dimsOf(input);
    if (axis >= dims.size() || dims[axis] == 0) return false;
    return elementCount(output) == elementCount(input) / dims[axis];
}

bool runArgMax(const NativeLayer& layer) { return run<true>(layer); }
bool runArgMin(const NativeLayer& layer) { return run<false>(layer); }

}  // namespace nnemu::synap
