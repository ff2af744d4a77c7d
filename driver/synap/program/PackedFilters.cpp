#include "PackedFilters.h"

#include "../kernels/FloatDepthwise.h"
#include "../kernels/FloatGemm.h"
#include "../kernels/FloatGemmBf16.h"
#include "../kernels/QuantGemm.h"
#include "ProgramTensors.h"

namespace nnemu::synap {
namespace {

// The packed layouts that hold the whole filter, exactly (the GEMMs' and the float kernels'): the
// filter can go.
bool unpacks(npu::PackedKernel kernel) {
    return kernel == npu::PackedKernel::QUANT_GEMM || kernel == npu::PackedKernel::FLOAT_GEMM ||
           kernel == npu::PackedKernel::FLOAT_GEMM_BF16 || kernel == npu::PackedKernel::FLOAT_DEPTHWISE ||
           kernel == npu::PackedKernel::FLOAT_CONV;
}

bool unpack(const npu::PackedWeights& entry, std::vector<uint8_t>* filter) {
    const std::span<const uint8_t> packed(entry.data()->data(), entry.data()->size());
    switch (entry.kernel()) {
        case npu::PackedKernel::QUANT_GEMM: return kernels::unpackQuantGemm(packed, filter);
        case npu::PackedKernel::FLOAT_GEMM:
        case npu::PackedKernel::FLOAT_CONV: return kernels::unpackFloatGemm(packed, filter);
        case npu::PackedKernel::FLOAT_DEPTHWISE: return kernels::unpackFloatDepthwise(packed, filter);
        case npu::PackedKernel::FLOAT_GEMM_BF16: return kernels::unpackFloatGemmBf16(packed, filter);  // rounded
        default: return false;
    }
}

bool dropped(const npu::Tensor& tensor) {
    return tensor.packed() && (tensor.data() == nullptr || tensor.data()->size() == 0);
}

// The packed weights the program stores for layer `l`, or nullptr.
const npu::PackedWeights* packedWeightsOf(const npu::Program& program, uint32_t l) {
    if (program.packed_weights() == nullptr) return nullptr;
    for (const npu::PackedWeights* entry : *program.packed_weights()) {
        if (entry->layer() == l) return entry;
    }
    return nullptr;
}

// Per tensor: the one layer reading it, UINT32_MAX if none, UINT32_MAX - 1 if several.
std::vector<uint32_t> soleReaders(const npu::Program& program) {
    std::vector<uint32_t> reader(program.tensors()->size(), UINT32_MAX);
    for (uint32_t l = 0; l < program.layers()->size(); ++l) {
        const auto* inputs = program.layers()->Get(l)->inputs();
        if (inputs == nullptr) continue;
        for (uint32_t t : *inputs) {
            if (t < reader.size()) reader[t] = reader[t] == UINT32_MAX ? l : UINT32_MAX - 1;
        }
    }
    return reader;
}

}  // namespace

void dropPackedFilters(npu::ProgramT* program) {
    std::vector<uint32_t> readers(program->tensors.size(), 0);
    for (const auto& layer : program->layers) {
        for (uint32_t t : layer->inputs) ++readers[t];
    }
    for (const auto& entry : program->packed_weights) {
        if (!unpacks(entry->kernel)) continue;
        const auto& inputs = program->layers[entry->layer]->inputs;
        if (inputs.size() < 2 || readers[inputs[1]] != 1) continue;
        npu::TensorT& filter = *program->tensors[inputs[1]];
        if (filter.input_index >= 0 || filter.output_index >= 0 || filter.data.empty()) continue;
        std::vector<uint8_t>().swap(filter.data);
        filter.packed = true;
    }
}

Status checkPackedFilters(const npu::Program& program) {
    if (program.tensors() == nullptr || program.layers() == nullptr) return {};  // refused later
    std::vector<uint32_t> reader;
    for (uint32_t t = 0; t < program.tensors()->size(); ++t) {
        const npu::Tensor& tensor = *program.tensors()->Get(t);
        if (!dropped(tensor)) continue;
        if (reader.empty()) reader = soleReaders(program);
        const uint32_t l = reader[t];
        const npu::Layer* layer = l < program.layers()->size() ? program.layers()->Get(l) : nullptr;
        const npu::PackedWeights* entry = layer != nullptr ? packedWeightsOf(program, l) : nullptr;
        if (entry == nullptr || entry->data() == nullptr || layer->inputs()->size() < 2 || layer->inputs()->Get(1) != t ||
            tensor.input_index() >= 0 || tensor.output_index() >= 0) {
            return badData("the NPU program is malformed: tensor " + std::to_string(t) + " is held packed for no layer");
        }
    }
    return {};
}

std::vector<uint32_t> layersOfPackedFilters(const npu::Program& program) {
    std::vector<uint32_t> reader, layers;
    for (uint32_t t = 0; t < program.tensors()->size(); ++t) {
        if (!dropped(*program.tensors()->Get(t))) continue;
        if (reader.empty()) reader = soleReaders(program);
        layers.push_back(reader[t]);
    }
    return layers;
}

Result<std::vector<uint8_t>> unpackFilters(const npu::Program& program) {
    const std::vector<uint32_t> reader = soleReaders(program);
    std::unique_ptr<npu::ProgramT> unpacked(program.UnPack());
    for (uint32_t t = 0; t < program.tensors()->size(); ++t) {
        const npu::Tensor& tensor = *program.tensors()->Get(t);
        if (!dropped(tensor)) continue;
        const npu::PackedWeights* entry = packedWeightsOf(program, reader[t]);  // checkPackedFilters passed
        npu::TensorT& filter = *unpacked->tensors[t];
        if (!unpack(*entry, &filter.data) || filter.data.size() != byteSize(tensor)) {
            return badData("the NPU program is malformed: the packed filter of tensor " + std::to_string(t) +
                           " does not unpack");
        }
        filter.packed = false;
    }
    // The GEMM entries are what this core cannot run; the others keep their filters and stay.
    std::erase_if(unpacked->packed_weights, [](const auto& entry) { return unpacks(entry->kernel); });
    flatbuffers::FlatBufferBuilder fbb(program.tensors()->size() * 64 + (1 << 20));
    fbb.Finish(npu::Program::Pack(fbb, unpacked.get()), npu::ProgramIdentifier());
    return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace nnemu::synap
