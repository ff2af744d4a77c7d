#include "SignedAdds.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace nnemu::synap {
namespace {

bool isFlip(const npu::LayerT& layer) { return layer.params.type == npu::LayerParams::FlipSign; }

bool isPort(const npu::TensorT& tensor) { return tensor.input_index >= 0 || tensor.output_index >= 0; }

// The flip layer writing `tensor` from an int8 tensor, or nullptr.
const npu::LayerT* flipFromInt8(const npu::ProgramT& program, uint32_t tensor) {
    for (const auto& layer : program.layers) {
        if (layer && isFlip(*layer) && layer->outputs.size() == 1 && layer->outputs[0] == tensor &&
            layer->inputs.size() == 1 && program.tensors[layer->inputs[0]]->type == npu::DataType::QINT8) {
            return layer.get();
        }
    }
    return nullptr;
}

// Kinds whose 8-bit layers compute the same real values, so the same bits moved by 128, on the
// other signedness, in the reference's arithmetic too. (Not the averages: the reference rounds
// the raw quantized sums, which the move changes: MEAN and AVERAGE_POOL_2D stay where they are.)
bool movesAlong(npu::LayerParams kind) {
    using npu::LayerParams;
    return kind == LayerParams::Add || kind == LayerParams::Subtract || kind == LayerParams::MaxPool2D;
}

bool readByAny(const npu::ProgramT& program, uint32_t tensor) {
    return std::any_of(program.layers.begin(), program.layers.end(), [&](const auto& layer) {
        return std::find(layer->inputs.begin(), layer->inputs.end(), tensor) != layer->inputs.end();
    });
}

// Rewrites the layer at `index` onto int8 tensors if every input is a flip of one; true if done.
// (Its parameters hold real values only: the activation bounds.)
bool moveToInt8(npu::ProgramT& program, size_t index) {
    npu::LayerT& layer = *program.layers[index];
    if (layer.outputs.size() != 1 || program.tensors[layer.outputs[0]]->type != npu::DataType::QUINT8) return false;
    std::vector<uint32_t> sources;
    for (uint32_t input : layer.inputs) {
        const npu::LayerT* flip = flipFromInt8(program, input);
        if (flip == nullptr || program.tensors[input]->type != npu::DataType::QUINT8) return false;
        sources.push_back(flip->inputs[0]);
    }
    const uint32_t output = layer.outputs[0];
    auto result = std::make_unique<npu::TensorT>();
    result->type = npu::DataType::QINT8;
    result->dims = program.tensors[output]->dims;
    result->scale = program.tensors[output]->scale;
    result->zero_point = program.tensors[output]->zero_point - 128;
    program.tensors.push_back(std::move(result));
    const auto signedOutput = static_cast<uint32_t>(program.tensors.size() - 1);
    layer.inputs = sources;
    layer.outputs = {signedOutput};
    auto flip = std::make_unique<npu::LayerT>();
    flip->name = "ConvertSignLayer" + std::to_string(program.layers.size());
    flip->source_operation = layer.source_operation;
    flip->params.Set(npu::FlipSignT{});
    flip->inputs = {signedOutput};
    flip->outputs = {output};
    program.layers.insert(program.layers.begin() + static_cast<std::ptrdiff_t>(index) + 1, std::move(flip));
    return true;
}

bool isEightBit(npu::DataType type) { return type == npu::DataType::QUINT8 || type == npu::DataType::QINT8; }

// The one layer reading `tensor`, or nullptr (none, or several).
npu::LayerT* onlyReader(const npu::ProgramT& program, uint32_t tensor) {
    npu::LayerT* found = nullptr;
    for (const auto& layer : program.layers) {
        if (!layer || std::find(layer->inputs.begin(), layer->inputs.end(), tensor) == layer->inputs.end()) continue;
        if (found != nullptr) return nullptr;
        found = layer.get();
    }
    return found;
}

}  // namespace

void requantizationsToFlips(npu::ProgramT& program) {
    for (auto& dequantize : program.layers) {
        if (!dequantize || dequantize->params.type != npu::LayerParams::Convert || dequantize->inputs.size() != 1 ||
            dequantize->outputs.size() != 1) {
            continue;
        }
        const npu::TensorT& source = *program.tensors[dequantize->inputs[0]];
        const uint32_t real = dequantize->outputs[0];
        npu::LayerT* quantize = onlyReader(program, real);
        if (!isEightBit(source.type) || !source.channel_scales.empty() || program.tensors[real]->type != npu::DataType::FLOAT32 ||
            isPort(*program.tensors[real]) || quantize == nullptr || quantize->params.type != npu::LayerParams::Convert ||
            quantize->inputs.size() != 1 || quantize->outputs.size() != 1) {
            continue;
        }
        const npu::TensorT& target = *program.tensors[quantize->outputs[0]];
        const bool toSigned = source.type == npu::DataType::QUINT8;
        if (target.type != (toSigned ? npu::DataType::QINT8 : npu::DataType::QUINT8) || target.scale != source.scale ||
            target.zero_point != source.zero_point + (toSigned ? -128 : 128) || target.dims != source.dims ||
            !(source.scale > 0.0f) || !std::isfinite(source.scale * 256.0f)) {  // (q - z) * s must not overflow
            continue;
        }
        quantize->params.Set(npu::FlipSignT{});
        quantize->inputs = dequantize->inputs;
        quantize->name = "ConvertSign" + quantize->name.substr(std::min(quantize->name.find("Layer"), quantize->name.size()));
        dequantize.reset();
    }
    program.layers.erase(std::remove(program.layers.begin(), program.layers.end(), nullptr), program.layers.end());
}

void moveFlippedAddsToInt8(npu::ProgramT& program) {
    bool moved = false;
    for (size_t i = 0; i < program.layers.size(); ++i) {
        if (movesAlong(program.layers[i]->params.type)) moved |= moveToInt8(program, i);
    }
    if (!moved) return;
    // Flips whose result nothing reads any more (not ports) go, last first.
    for (size_t i = program.layers.size(); i-- > 0;) {
        const npu::LayerT& layer = *program.layers[i];
        if (isFlip(layer) && !isPort(*program.tensors[layer.outputs[0]]) && !readByAny(program, layer.outputs[0])) {
            program.layers.erase(program.layers.begin() + static_cast<std::ptrdiff_t>(i));
        }
    }
}

}  // namespace nnemu::synap
