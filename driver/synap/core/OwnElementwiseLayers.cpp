// The own kernels' element-wise and pooling layers (float ones: OwnFloatElementwise.cpp): 8-bit ADD/SUB, MUL and global average pools (exact
// where XNNPACK's are not, so by default although slower), max pools (XNNPACK's are exact and
// faster: only with NNEMU_NPU_KERNELS=all), and sign-flip converts.
#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "../kernels/Isa.h"
#include "../kernels/QuantAdd.h"
#include "../kernels/QuantMul.h"
#include "../kernels/QuantPool.h"

namespace nnemu::synap {
namespace {

using namespace own;

struct AddLayer : OwnLayer {
    kernels::QuantAddParams params{};
    std::vector<uint32_t> dims[3];  // inputs, output
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        if (layer.pool == nullptr || dims[0] != dims[2] || dims[1] != dims[2]) {
            return kernels::runQuantAdd(isa, params, dims[0], layer.inputs[0], dims[1], layer.inputs[1], dims[2],
                                        layer.output);
        }
        size_t count = 1;  // same shapes (MobileNet v2's residuals): cut over the pool
        for (uint32_t d : dims[2]) count *= d;
        addInSlices(layer.pool, isa, params, layer.inputs[0], layer.inputs[1], layer.output, count);
        return true;
    }
};

struct MulLayer : OwnLayer {
    kernels::QuantMulParams params{};
    std::vector<uint32_t> dims[3];  // inputs, output

    bool run(const NativeLayer& layer) override {
        return kernels::runQuantMul(params, dims[0], layer.inputs[0], dims[1], layer.inputs[1], dims[2], layer.output);
    }
};

// A binary 8-bit layer's three tensors (inputs, output), all of one 8-bit type; false otherwise.
bool eightBitOperands(const npu::Program& program, const npu::Layer& layer, const npu::Tensor* tensors[3]) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 2) return false;
    tensors[0] = &tensorAt(program, layer.inputs()->Get(0));
    tensors[1] = &tensorAt(program, layer.inputs()->Get(1));
    tensors[2] = &outputOf(program, layer);
    const npu::DataType type = tensors[2]->type();
    return (type == npu::DataType::QUINT8 || type == npu::DataType::QINT8) && tensors[0]->type() == type &&
           tensors[1]->type() == type;
}

// The spec's quantization and clamp from the layer's tensors.
void fillBinarySpec(const npu::Layer& layer, const npu::Tensor* const tensors[3], kernels::QuantBinarySpec* spec) {
    spec->signedValues = tensors[2]->type() == npu::DataType::QINT8;
    for (int i = 0; i < 2; ++i) {
        spec->zeroPoints[i] = tensors[i]->zero_point();
        spec->scales[i] = tensors[i]->scale();
    }
    spec->outputZeroPoint = tensors[2]->zero_point();
    spec->outputScale = tensors[2]->scale();
    quantizedBounds(layer, *tensors[2], spec->signedValues ? -128 : 0, &spec->low, &spec->high);
}

template <typename Layer>
void keepDims(const npu::Tensor* const tensors[3], Layer* state) {
    for (int i = 0; i < 3; ++i) state->dims[i].assign(tensors[i]->dims()->begin(), tensors[i]->dims()->end());
}

struct MaxPoolLayer : OwnLayer {
    kernels::MaxPoolSpec spec;
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        inSlices(layer.pool, size_t{spec.batches} * spec.outHeight, 4, [&](size_t begin, size_t end) {
            kernels::runMaxPoolRows(isa, spec, layer.inputs[0], layer.output, begin, end);
        });
        return true;
    }
};

struct GlobalAverageLayer : OwnLayer {
    kernels::GlobalAverageSpec spec;
    kernels::Isa isa = kernels::Isa::Portable;
    std::vector<int32_t> sums;

    bool run(const NativeLayer& layer) override {
        kernels::runGlobalAverage(isa, spec, layer.inputs[0], layer.output, &sums);
        return true;
    }
};

// 8-bit pools, NHWC; the kind's check holds (input [B, H, W, C], output [B, OH, OW, C] or
// [B, 1, 1, C]). `onlyWithAll`: a kind whose XNNPACK layer is exact too, and faster.
bool poolOperands(const npu::Program& program, const npu::Layer& layer, bool onlyWithAll, const npu::Tensor** input,
                  const npu::Tensor** output, bool* isSigned) {
    if (!ownKernelsEnabled() || (onlyWithAll && kernelChoice() != "all") || layer.inputs()->size() != 1) return false;
    *input = &tensorAt(program, layer.inputs()->Get(0));
    *output = &outputOf(program, layer);
    const npu::DataType type = (*output)->type();
    *isSigned = type == npu::DataType::QINT8;
    return (type == npu::DataType::QUINT8 || *isSigned) && (*input)->type() == type;
}

template <typename Layer, typename Spec>
std::unique_ptr<LayerState> poolLayer(const Spec& spec) {
    auto state = std::make_unique<Layer>();
    state->spec = spec;
    state->isa = kernels::bestIsa();
    return state;
}

}  // namespace

namespace own {

void addInSlices(CorePool* pool, kernels::Isa isa, const kernels::QuantAddParams& params, const uint8_t* a,
                 const uint8_t* b, uint8_t* out, size_t count) {
    const size_t threads = pool == nullptr ? 1 : pool->threads();
    const size_t slice = std::max(kMinAddSlice, (count / (2 * threads) + 63) / 64 * 64);
    inSlices(pool, count, slice, [&](size_t begin, size_t end) {
        end = std::min(end, count);
        kernels::runQuantAddRow(isa, params, a + begin, 1, b + begin, 1, out + begin, end - begin);
    });
}

}  // namespace own

// 8-bit ADD and SUB, any broadcast the kind's check let through. With VBMI's word tables about
// level with XNNPACK's add (the int8 MobileNet v2's ten ADDs; without VBMI about 4x slower:
// BENCHMARKS.md), and exact, where XNNPACK's can be one step off the reference: by default, so
// that synap-npu and nnapi-reference agree to the bit.
std::unique_ptr<LayerState> ownAdd(const npu::Program& program, const npu::Layer& layer) {
    if (auto floatAdd = ownFloatAdd(program, layer)) return floatAdd;
    const npu::Tensor* tensors[3];
    if (!eightBitOperands(program, layer, tensors)) return nullptr;
    kernels::QuantAddSpec spec;
    fillBinarySpec(layer, tensors, &spec);
    spec.subtract = layer.params_type() == npu::LayerParams::Subtract;
    auto state = std::make_unique<AddLayer>();
    if (!kernels::prepareQuantAdd(spec, &state->params)) return nullptr;
    keepDims(tensors, state.get());
    state->isa = kernels::bestIsa();
    return state;
}

// 8-bit MUL, any broadcast the kind's check let through: exact where XNNPACK's multiply rounds in
// float (one step off the reference and TFLite in places), as ADD above.
std::unique_ptr<LayerState> ownMultiply(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor* tensors[3];
    if (!eightBitOperands(program, layer, tensors)) return nullptr;
    kernels::QuantMulSpec spec;
    fillBinarySpec(layer, tensors, &spec);
    auto state = std::make_unique<MulLayer>();
    if (!kernels::prepareQuantMul(spec, &state->params)) return nullptr;
    keepDims(tensors, state.get());
    return state;
}

std::unique_ptr<LayerState> ownMaxPool(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor *input, *output;
    kernels::MaxPoolSpec spec;
    const auto* p = layer.params_as_MaxPool2D();
    if (p == nullptr || p->padding() == nullptr ||
        !poolOperands(program, layer, true, &input, &output, &spec.signedValues) ||
        input->scale() != output->scale() || input->zero_point() != output->zero_point()) {
        return nullptr;
    }
    const auto* in = input->dims();
    const auto* out = output->dims();
    spec.batches = in->Get(0);
    spec.inHeight = in->Get(1);
    spec.inWidth = in->Get(2);
    spec.channels = in->Get(3);
    spec.outHeight = out->Get(1);
    spec.outWidth = out->Get(2);
    spec.poolHeight = p->pool_height();
    spec.poolWidth = p->pool_width();
    spec.strideHeight = p->stride_height();
    spec.strideWidth = p->stride_width();
    spec.padTop = p->padding()->top();
    spec.padLeft = p->padding()->left();
    spec.zeroPoint = output->zero_point();
    quantizedBounds(layer, *output, spec.signedValues ? -128 : 0, &spec.low, &spec.high);
    return poolLayer<MaxPoolLayer>(spec);
}

std::unique_ptr<LayerState> ownGlobalAverage(const npu::Program& program, const npu::Layer& layer) {
    if (auto floatAverage = ownFloatGlobalAverage(program, layer)) return floatAverage;
    const npu::Tensor *input, *output;
    kernels::GlobalAverageSpec spec;
    const auto* p = layer.params_as_GlobalAveragePool2D();
    if (p == nullptr || !poolOperands(program, layer, false, &input, &output, &spec.signedValues)) return nullptr;
    const bool same = input->scale() == output->scale() && input->zero_point() == output->zero_point();
    if (!p->mean() && !same) return nullptr;
    using kernels::AverageRounding;
    spec.rounding = !p->mean() ? AverageRounding::HalfAway : same ? AverageRounding::MeanTruncate
                                                                  : AverageRounding::MeanRequantize;
    const auto* in = input->dims();
    spec.batches = in->Get(0);
    const uint64_t pixels = uint64_t{in->Get(1)} * in->Get(2);
    if (pixels == 0 || pixels > (1u << 23)) return nullptr;  // sums stay within 32 bits
    spec.pixels = static_cast<uint32_t>(pixels);
    spec.channels = in->Get(3);
    spec.inputScale = input->scale();
    spec.outputScale = output->scale();
    spec.inputZeroPoint = input->zero_point();
    spec.outputZeroPoint = output->zero_point();
    quantizedBounds(layer, *output, spec.signedValues ? -128 : 0, &spec.low, &spec.high);
    return poolLayer<GlobalAverageLayer>(spec);
}

}  // namespace nnemu::synap
