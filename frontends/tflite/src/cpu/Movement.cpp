// SQUEEZE, TRANSPOSE, CONCATENATION and PAD on the types NNAPI lacks at the runtime's feature
// level (int32, int64, bool, ...): the bytes move as TFLite's kernels move them. Quantized
// operands must share the output's scale and zero point (a requantizing CONCATENATION stays on
// NNAPI); PAD fills with the output's zero point (0 for unquantized types).
#include <algorithm>
#include <cstring>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::movement {
namespace {

bool sameQuantization(const CpuKernelCall& call, const CpuOperand& operand) {
    const Tensor &a = *operand.tensor, &b = *call.out(0).tensor;
    if (a.type != b.type) return call.fail("operands must have the output's type");
    if (a.scale != b.scale || a.zeroPoint != b.zeroPoint) return call.fail("operands must have the output's scale and zero point");
    if (elementSize(a.type) == 0) return call.fail(std::string("type ") + elementTypeName(a.type) + " is not supported");
    return true;
}

bool squeezeShape(const CpuKernelCall& call, std::vector<int32_t>* shape) {
    if (!call.expectCounts(1, 1, 1) || !sameQuantization(call, call.in(0))) return false;
    const auto* options = call.params<TfLiteSqueezeParams>();
    const std::vector<int32_t>& in = call.in(0).shape();
    std::vector<bool> drop(in.size(), false);
    const int listed = options == nullptr ? 0 : options->num_squeeze_dims;
    for (int k = 0; k < listed; ++k) {
        size_t d = 0;
        if (!normalizeAxis(call, options->squeeze_dims[k], in.size(), &d)) return false;
        if (in[d] != 1) return call.fail("dimension " + std::to_string(d) + " is not 1");
        drop[d] = true;
    }
    shape->clear();
    for (size_t d = 0; d < in.size(); ++d) {
        if (!(listed == 0 ? in[d] == 1 : drop[d])) shape->push_back(in[d]);
    }
    return true;
}

bool permutation(const CpuKernelCall& call, std::vector<size_t>* perm, bool* known) {
    if (!call.expectCounts(2, 2, 1) || !sameQuantization(call, call.in(0))) return false;
    std::vector<int64_t> values;
    if (!call.ints(1, &values, known)) return false;
    if (!*known) return true;
    const size_t rank = call.in(0).rank();
    if (values.size() != rank) return call.fail("the permutation must list every dimension");
    std::vector<bool> seen(rank, false);
    perm->clear();
    for (int64_t v : values) {
        size_t d = 0;
        if (!normalizeAxis(call, v, rank, &d)) return false;
        if (seen[d]) return call.fail("repeated dimension in the permutation");
        seen[d] = true;
        perm->push_back(d);
    }
    std::vector<int32_t> shape;
    for (size_t d : *perm) shape.push_back(call.in(0).shape()[d]);
    return call.expectOutputShape(0, shape);
}

bool concatShape(const CpuKernelCall& call, size_t* axis) {
    if (call.inputs.empty()) return call.fail("has no inputs");
    if (!call.expectCounts(call.inputs.size(), call.inputs.size(), 1)) return false;
    const auto* options = call.params<TfLiteConcatenationParams>();
    if (options != nullptr && options->activation != kTfLiteActNone) return call.fail("a fused activation is not supported");
    const size_t rank = call.in(0).rank();
    if (!normalizeAxis(call, options == nullptr ? 0 : options->axis, rank, axis)) return false;
    std::vector<int32_t> shape = call.in(0).shape();
    shape[*axis] = 0;
    for (const CpuOperand& in : call.inputs) {
        if (!sameQuantization(call, in)) return false;
        if (in.rank() != rank) return call.fail("inputs must have the same rank");
        for (size_t d = 0; d < rank; ++d) {
            if (d != *axis && in.shape()[d] != shape[d]) return call.fail("input shapes differ outside the axis");
        }
        shape[*axis] += in.shape()[*axis];
    }
    return call.expectOutputShape(0, shape);
}

bool padding(const CpuKernelCall& call, std::vector<int64_t>* pads, bool* known) {
    if (!call.expectCounts(2, 2, 1) || !sameQuantization(call, call.in(0))) return false;
    if (!call.ints(1, pads, known)) return false;
    if (!*known) return true;
    const size_t rank = call.in(0).rank();
    if (pads->size() != 2 * rank) return call.fail("paddings must be [rank, 2]");
    std::vector<int32_t> shape;
    for (size_t d = 0; d < rank; ++d) {
        if ((*pads)[2 * d] < 0 || (*pads)[2 * d + 1] < 0) return call.fail("negative padding");
        shape.push_back(static_cast<int32_t>(call.in(0).shape()[d] + (*pads)[2 * d] + (*pads)[2 * d + 1]));
    }
    return call.expectOutputShape(0, shape);
}

std::vector<size_t> stridesOf(const std::vector<int32_t>& shape) {
    std::vector<size_t> strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * static_cast<size_t>(shape[d]);
    return strides;
}

}  // namespace

bool prepareSqueeze(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    return squeezeShape(call, &shape) && call.expectOutputShape(0, shape);
}

bool runSqueeze(const CpuKernelCall& call) {
    if (!prepareSqueeze(call)) return false;
    const size_t bytes = call.in(0).count() * elementSize(call.in(0).type());
    if (bytes != 0) std::memcpy(call.out(0).out, call.in(0).data, bytes);   // an empty tensor has no buffer
    return true;
}

bool prepareTranspose(const CpuKernelCall& call) {
    std::vector<size_t> perm;
    bool known = false;
    return permutation(call, &perm, &known);
}

bool runTranspose(const CpuKernelCall& call) {
    std::vector<size_t> perm;
    bool known = false;
    if (!permutation(call, &perm, &known)) return false;
    const std::vector<int32_t>& in = call.in(0).shape();
    const std::vector<size_t> inStrides = stridesOf(in);
    const size_t size = elementSize(call.in(0).type()), count = call.in(0).count();
    std::vector<int32_t> index(perm.size(), 0);   // over the output's dimensions
    for (size_t o = 0; o < count; ++o) {
        size_t from = 0;
        for (size_t d = 0; d < perm.size(); ++d) from += static_cast<size_t>(index[d]) * inStrides[perm[d]];
        std::memcpy(call.out(0).out + o * size, call.in(0).data + from * size, size);
        for (size_t d = perm.size(); d-- > 0;) {
            if (++index[d] < in[perm[d]]) break;
            index[d] = 0;
        }
    }
    return true;
}

bool prepareConcatenation(const CpuKernelCall& call) {
    size_t axis = 0;
    return concatShape(call, &axis);
}

bool runConcatenation(const CpuKernelCall& call) {
    size_t axis = 0;
    if (!concatShape(call, &axis)) return false;
    const std::vector<int32_t>& out = call.out(0).shape();
    size_t outer = 1;
    for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(out[d]);
    const size_t size = elementSize(call.out(0).type());
    uint8_t* to = call.out(0).out;
    for (size_t o = 0; o < outer; ++o) {
        for (const CpuOperand& in : call.inputs) {
            const size_t block = in.count() / std::max<size_t>(outer, 1) * size;
            std::memcpy(to, in.data + o * block, block);
            to += block;
        }
    }
    return true;
}

bool preparePad(const CpuKernelCall& call) {
    std::vector<int64_t> pads;
    bool known = false;
    return padding(call, &pads, &known);
}

bool runPad(const CpuKernelCall& call) {
    std::vector<int64_t> pads;
    bool known = false;
    if (!padding(call, &pads, &known)) return false;
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const size_t size = elementSize(out.type()), total = out.count();
    // The fill: the zero point in the output's type (0 for unquantized types).
    std::vector<uint8_t> fill(size, 0);
    if (out.type() == ElementType::UINT8 || out.type() == ElementType::INT8) fill[0] = static_cast<uint8_t>(out.tensor->zeroPoint);
    const std::vector<size_t> inStrides = stridesOf(in.shape());
    std::vector<int32_t> index(out.rank(), 0);
    for (size_t o = 0; o < total; ++o) {
        bool inside = true;
        size_t from = 0;
        for (size_t d = 0; d < index.size(); ++d) {
            const int64_t at = index[d] - pads[2 * d];
            inside = inside && at >= 0 && at < in.shape()[d];
            from += inside ? static_cast<size_t>(at) * inStrides[d] : 0;
        }
        std::memcpy(out.out + o * size, inside ? in.data + from * size : fill.data(), size);
        for (size_t d = index.size(); d-- > 0;) {
            if (++index[d] < out.shape()[d]) break;
            index[d] = 0;
        }
    }
    return true;
}

}  // namespace kernels::movement
}  // namespace nnemu::tflite
