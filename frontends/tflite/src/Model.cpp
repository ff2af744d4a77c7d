// Model::load / fromBuffer: verifies a .tflite file with the flatbuffers verifier, then checks
// what the verifier cannot (indexes in range, shapes, buffer sizes, quantization) so that
// everything downstream can trust the Model.
#include "nnemu/tflite/Model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "BuiltinData.h"
#include "nnemu/base/Status.h"
#include "PrepareShapes.h"
#include "SparseTensor.h"
#include "StringTensor.h"
#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::tflite {
namespace {

size_t shapeCount(const std::vector<int32_t>& shape) {
    size_t count = 1;
    for (int32_t dim : shape) count *= static_cast<size_t>(dim);
    return count;
}

// Tensor::channelScales views the file's floats as they are stored (little-endian).
static_assert(std::endian::native == std::endian::little);

constexpr uint32_t kSchemaVersion = 3;
constexpr int32_t kCustomCode = 32;               // BuiltinOperator CUSTOM
constexpr size_t kMaxRank = 8;
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 31;  // what a flatbuffer can address
constexpr size_t kMaxFileBytes = size_t{2} << 30;

ElementType elementTypeOf(fb::TensorType type) {
    switch (type) {
        case fb::TensorType_FLOAT32: return ElementType::FLOAT32;
        case fb::TensorType_UINT8: return ElementType::UINT8;
        case fb::TensorType_INT8: return ElementType::INT8;
        case fb::TensorType_INT16: return ElementType::INT16;
        case fb::TensorType_INT32: return ElementType::INT32;
        case fb::TensorType_INT64: return ElementType::INT64;
        case fb::TensorType_BOOL: return ElementType::BOOL;
        case fb::TensorType_FLOAT64: return ElementType::FLOAT64;
        case fb::TensorType_COMPLEX64: return ElementType::COMPLEX64;
        case fb::TensorType_COMPLEX128: return ElementType::COMPLEX128;
        case fb::TensorType_RESOURCE: return ElementType::RESOURCE;
        case fb::TensorType_STRING: return ElementType::STRING;
        default: return ElementType::OTHER;
    }
}

// The operator's name as TFLite prints it: the builtin name, or the custom code.
std::string operatorName(int32_t code, const fb::OperatorCode* opcode) {
    if (code == kCustomCode) {
        return opcode->custom_code() != nullptr && opcode->custom_code()->size() > 0
                       ? opcode->custom_code()->str()
                       : std::string("CUSTOM");
    }
    return builtinOperatorName(code);
}

Status fail(std::string message) { return badData(std::move(message)); }

// One subgraph's tensors, operators, inputs and outputs, every index checked.
Status parseSubgraph(const fb::Model& root, const fb::SubGraph& subgraph, Subgraph& out,
                     std::vector<std::shared_ptr<void>>& builtinData) {
    if (subgraph.name() != nullptr) out.name = subgraph.name()->str();
    const auto* buffers = root.buffers();
    const uint32_t bufferCount = buffers != nullptr ? buffers->size() : 0;

    // Tensors.
    const auto* tensors = subgraph.tensors();
    const uint32_t tensorCount = tensors != nullptr ? tensors->size() : 0;
    if (tensorCount > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
        return fail("malformed TFLite model: too many tensors");
    }
    out.tensors.resize(tensorCount);
    std::vector<bool> shapeUnknown(tensorCount, false);   // for the shapes TFLite sets at prepare
    for (uint32_t t = 0; t < tensorCount; ++t) {
        const fb::Tensor* source = tensors->Get(t);
        Tensor& tensor = out.tensors[t];
        const std::string where = "tensor " + std::to_string(t);
        if (source->name() != nullptr) tensor.name = source->name()->str();
        tensor.type = elementTypeOf(source->type());
        tensor.isVariable = source->is_variable();
        if (const fb::SparsityParameters* sparsity = source->sparsity()) {
            Result<std::shared_ptr<const Sparsity>> read = readSparsity(*sparsity);
            if (!read) return fail(where + ": " + read.message());
            tensor.sparsity = std::move(read).value();
        }
        shapeUnknown[t] = source->shape() == nullptr || source->shape()->size() == 0;
        if (const auto* signature = source->shape_signature()) {
            for (int32_t dim : *signature) shapeUnknown[t] = shapeUnknown[t] || dim < 0;
        }
        if (source->shape() != nullptr) {
            if (source->shape()->size() > kMaxRank) {
                return fail(where + ": rank " + std::to_string(source->shape()->size()) +
                                    " is above the supported " + std::to_string(kMaxRank));
            }
            uint64_t elements = 1;
            for (int32_t dim : *source->shape()) {
                if (dim < 0) return fail(where + ": negative dimension " + std::to_string(dim));
                tensor.shape.push_back(dim);
                elements *= static_cast<uint64_t>(dim);
                if (elements > kMaxTensorBytes) return fail(where + ": shape too large");
            }
            if (elements * std::max<size_t>(elementSize(tensor.type), 1) > kMaxTensorBytes) {
                return fail(where + ": shape too large");
            }
        }
        if (const fb::QuantizationParameters* quant = source->quantization()) {
            if (quant->details_type() != fb::QuantizationDetails_NONE) {
                return fail(where + ": custom quantization is not supported");
            }
            const auto* scales = quant->scale();
            const auto* zeroPoints = quant->zero_point();
            const size_t scaleCount = scales != nullptr ? scales->size() : 0;
            const size_t zeroPointCount = zeroPoints != nullptr ? zeroPoints->size() : 0;
            if (scaleCount > 0) {
                if (zeroPointCount != 0 && zeroPointCount != scaleCount) {
                    return fail(where + ": " + std::to_string(scaleCount) + " scales but " +
                                        std::to_string(zeroPointCount) + " zero points");
                }
                for (float scale : *scales) {
                    if (!std::isfinite(scale) || scale < 0) {
                        return fail(where + ": invalid quantization scale");
                    }
                }
                // The verifier checked the vectors' 4-byte alignment; floats are stored little-endian.
                tensor.channelScales = {reinterpret_cast<const float*>(scales->Data()), scaleCount};
                if (zeroPointCount != 0) tensor.channelZeroPointBytes = {zeroPoints->Data(), zeroPointCount * sizeof(int64_t)};
                for (size_t i = 0; i < zeroPointCount; ++i) {
                    const int64_t zeroPoint = tensor.channelZeroPoint(i);
                    if (zeroPoint < std::numeric_limits<int32_t>::min() ||
                        zeroPoint > std::numeric_limits<int32_t>::max()) {
                        return fail(where + ": quantization zero point out of range");
                    }
                }
                tensor.scale = tensor.channelScales[0];
                tensor.zeroPoint = static_cast<int32_t>(tensor.channelZeroPoint(0));
                tensor.quantizedDimension = quant->quantized_dimension();
                // Per-channel parameters must match the quantized dimension. Bias tensors of
                // some converters name a dimension past their rank: then the only dimension counts.
                if (scaleCount > 1) {
                    const int32_t rank = static_cast<int32_t>(tensor.shape.size());
                    int32_t dimension = tensor.quantizedDimension;
                    if (rank == 1 && dimension >= rank) dimension = 0;
                    if (dimension < 0 || dimension >= rank ||
                        static_cast<size_t>(tensor.shape[dimension]) != scaleCount) {
                        return fail(where + ": " + std::to_string(scaleCount) +
                                            " quantization scales do not match quantized dimension " +
                                            std::to_string(tensor.quantizedDimension));
                    }
                    tensor.quantizedDimension = dimension;
                }
            }
        }
        const uint32_t bufferIndex = source->buffer();
        // Index 0 is the empty sentinel; some writers leave the buffer list empty altogether.
        if (bufferIndex >= bufferCount) {
            if (bufferIndex == 0) continue;
            return fail(where + ": buffer index " + std::to_string(bufferIndex) +
                                " out of range (" + std::to_string(bufferCount) + " buffers)");
        }
        const fb::Buffer* buffer = buffers->Get(bufferIndex);
        if (buffer->offset() > 1 || buffer->size() > 1) {
            return fail(where + ": data stored outside the flatbuffer (models over 2 GB) is not supported");
        }
        if (buffer->data() == nullptr || buffer->data()->size() == 0) continue;
        tensor.isConstant = true;
        tensor.data = buffer->data()->data();
        tensor.dataSize = buffer->data()->size();
        if (elementSize(tensor.type) != 0 && tensor.dataSize != tensor.byteSize() && tensor.sparsity == nullptr) {
            return fail(where + " (" + tensor.name + "): buffer holds " +
                                std::to_string(tensor.dataSize) + " bytes but its shape needs " +
                                std::to_string(tensor.byteSize()));
        }
        if (tensor.type == ElementType::STRING) {
            if (const auto strings = readStrings(tensor.data, tensor.dataSize, shapeCount(tensor.shape)); !strings) {
                return fail(where + " (" + tensor.name + "): " + strings.message());
            }
        }
    }

    // Nodes.
    const auto* opcodes = root.operator_codes();
    const uint32_t opcodeCount = opcodes != nullptr ? opcodes->size() : 0;
    const auto tensorIndexValid = [&](int32_t index, bool allowAbsent) {
        return (allowAbsent && index == -1) || (index >= 0 && static_cast<uint32_t>(index) < tensorCount);
    };
    if (const auto* operators = subgraph.operators()) {
        out.nodes.resize(operators->size());
        for (uint32_t n = 0; n < operators->size(); ++n) {
            const fb::Operator* source = operators->Get(n);
            Node& node = out.nodes[n];
            node.index = n;
            const std::string where = "node " + std::to_string(n);
            if (source->opcode_index() >= opcodeCount) {
                return fail(where + ": operator code index " + std::to_string(source->opcode_index()) +
                                    " out of range (" + std::to_string(opcodeCount) + " codes)");
            }
            const fb::OperatorCode* opcode = opcodes->Get(source->opcode_index());
            // Old files only have the byte-wide code; new ones cap it at 127 and use builtin_code.
            const int32_t deprecatedCode = opcode->deprecated_builtin_code();
            const int32_t extendedCode = static_cast<int32_t>(opcode->builtin_code());
            node.builtinCode = std::max(deprecatedCode, extendedCode);
            if (deprecatedCode < 0 || extendedCode < 0) {
                return fail(where + ": invalid operator code " + std::to_string(node.builtinCode));
            }
            node.opName = operatorName(node.builtinCode, opcode);
            if (BuiltinData data = builtinDataOf(node.builtinCode, *source)) {
                node.builtinData = data.get();
                builtinData.emplace_back(std::move(data));
            }
            if (const auto* custom = source->custom_options()) node.customData = {custom->data(), custom->size()};
            if (const auto* inputs = source->inputs()) {
                for (int32_t index : *inputs) {
                    if (!tensorIndexValid(index, true)) {
                        return fail(where + " (" + node.opName + "): input tensor index " +
                                            std::to_string(index) + " out of range");
                    }
                    node.inputs.push_back(index);
                }
            }
            if (const auto* outputs = source->outputs()) {
                for (int32_t index : *outputs) {
                    if (!tensorIndexValid(index, false)) {
                        return fail(where + " (" + node.opName + "): output tensor index " +
                                            std::to_string(index) + " out of range");
                    }
                    node.outputs.push_back(index);
                }
            }
        }
    }

    // Subgraph inputs and outputs.
    const auto readIndexes = [&](const flatbuffers::Vector<int32_t>* source, const char* what,
                                 std::vector<int32_t>* to) {
        if (source == nullptr) return Status();
        for (int32_t index : *source) {
            if (!tensorIndexValid(index, false)) {
                return fail(std::string("subgraph ") + what + " tensor index " +
                                    std::to_string(index) + " out of range");
            }
            to->push_back(index);
        }
        return Status();
    };
    NNEMU_RETURN_IF_ERROR(readIndexes(subgraph.inputs(), "input", &out.inputs));
    NNEMU_RETURN_IF_ERROR(readIndexes(subgraph.outputs(), "output", &out.outputs));
    sizeOutputsAtPrepare(out, shapeUnknown);
    return checkSparseTensorUses(out);
}

}  // namespace

std::string builtinOperatorName(int32_t code) {
    const char* name = code >= fb::BuiltinOperator_MIN && code <= fb::BuiltinOperator_MAX
                               ? fb::EnumNameBuiltinOperator(static_cast<fb::BuiltinOperator>(code))
                               : nullptr;
    if (name == nullptr || name[0] == '\0') return "BUILTIN_" + std::to_string(code);
    return name;
}

const char* elementTypeName(ElementType type) {
    switch (type) {
        case ElementType::FLOAT32: return "FLOAT32";
        case ElementType::UINT8: return "UINT8";
        case ElementType::INT8: return "INT8";
        case ElementType::INT16: return "INT16";
        case ElementType::INT32: return "INT32";
        case ElementType::INT64: return "INT64";
        case ElementType::BOOL: return "BOOL";
        case ElementType::FLOAT64: return "FLOAT64";
        case ElementType::COMPLEX64: return "COMPLEX64";
        case ElementType::COMPLEX128: return "COMPLEX128";
        case ElementType::RESOURCE: return "RESOURCE";
        case ElementType::STRING: return "STRING";
        case ElementType::OTHER: break;
    }
    return "OTHER";
}

size_t elementSize(ElementType type) {
    switch (type) {
        case ElementType::FLOAT32:
        case ElementType::INT32:
        case ElementType::RESOURCE: return 4;   // TFLite's VAR_HANDLE writes an int32 id
        case ElementType::FLOAT64:
        case ElementType::COMPLEX64: return 8;
        case ElementType::COMPLEX128: return 16;
        case ElementType::UINT8:
        case ElementType::INT8:
        case ElementType::BOOL: return 1;
        case ElementType::INT16: return 2;
        case ElementType::INT64: return 8;
        case ElementType::STRING:
        case ElementType::OTHER: break;
    }
    return 0;
}

int64_t Tensor::channelZeroPoint(size_t channel) const {
    // Copied out: the verifier only guarantees 4-byte alignment for vectors of int64.
    int64_t zeroPoint = 0;
    if ((channel + 1) * sizeof(int64_t) > channelZeroPointBytes.size()) return zeroPoint;
    std::memcpy(&zeroPoint, channelZeroPointBytes.data() + channel * sizeof(int64_t), sizeof(int64_t));
    return static_cast<int64_t>(flatbuffers::EndianScalar(zeroPoint));
}

size_t Tensor::byteSize() const {
    if (type == ElementType::STRING) return dataSize;
    size_t count = 1;
    for (int32_t dim : shape) count *= static_cast<size_t>(dim);  // dims are checked at load
    return count * elementSize(type);
}

Result<std::unique_ptr<Model>> Model::load(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return unavailable("cannot open model file " + path);
    std::unique_ptr<Model> model(new Model());
    model->fd_ = fd;
    struct stat info {};
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || static_cast<uint64_t>(info.st_size) > kMaxFileBytes) {
        return unavailable("cannot read model file " + path + " (too large or not a regular file)");
    }
    const auto size = static_cast<size_t>(info.st_size);
    if (size > 0) {
        void* mapping = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapping == MAP_FAILED) return unavailable("cannot read model file " + path);
        model->mapping_ = mapping;
        model->bytes_ = {static_cast<const uint8_t*>(mapping), size};
    }
    if (const Status parsed = model->parse(); !parsed) return Status(parsed.code(), path + ": " + parsed.message());
    return model;
}

Result<std::unique_ptr<Model>> Model::fromBuffer(std::vector<uint8_t> bytes) {
    std::unique_ptr<Model> model(new Model());
    model->owned_ = std::move(bytes);
    model->bytes_ = model->owned_;
    NNEMU_RETURN_IF_ERROR(model->parse());
    return model;
}

std::unique_ptr<Model> Model::fromSubgraphs(std::vector<Subgraph> subgraphs, std::string description) {
    std::unique_ptr<Model> model(new Model());
    model->subgraphs_ = std::move(subgraphs);
    model->description_ = std::move(description);
    model->version_ = kSchemaVersion;
    return model;
}

Model::~Model() {
    if (mapping_ != nullptr) munmap(mapping_, bytes_.size());
    if (fd_ >= 0) close(fd_);
}

Status Model::parse() {
    if (bytes_.size() < 8) return fail("not a TFLite model: file too small");
    if (bytes_.size() > kMaxFileBytes) return fail("not a TFLite model: file over 2 GB");
    if (!fb::ModelBufferHasIdentifier(bytes_.data())) {
        return fail("not a TFLite model: missing the \"TFL3\" file identifier");
    }
    flatbuffers::Verifier verifier(bytes_.data(), bytes_.size());
    if (!fb::VerifyModelBuffer(verifier)) {
        return fail("malformed TFLite model: the flatbuffers verifier rejected the file");
    }
    const fb::Model* root = fb::GetModel(bytes_.data());
    version_ = root->version();
    if (version_ != kSchemaVersion) {
        return fail("unsupported TFLite schema version " + std::to_string(version_) +
                            " (expected " + std::to_string(kSchemaVersion) + ")");
    }
    if (root->description() != nullptr) description_ = root->description()->str();
    if (root->subgraphs() == nullptr || root->subgraphs()->size() == 0) {
        return fail("malformed TFLite model: no subgraph");
    }
    subgraphs_.resize(root->subgraphs()->size());
    for (uint32_t s = 0; s < subgraphs_.size(); ++s) {
        const Status read = parseSubgraph(*root, *root->subgraphs()->Get(s), subgraphs_[s], builtinData_);
        // The main graph's messages stay as they were; other subgraphs say which they are.
        if (!read) return s == 0 ? read : fail("subgraph " + std::to_string(s) + ": " + read.message());
    }
    return {};
}

}  // namespace nnemu::tflite
