// Reading conformance spec files (JSON) into Variant structures.
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "Fp16.h"
#include "Variant.h"
#include "nnemu/hal/OperationTable.h"

namespace nnemu::conformance {
namespace {

using nlohmann::json;

struct OperandTypeInfo {
    const char* name;
    int32_t code;
    ElementKind kind;
};

// OperandCode values as in <android/NeuralNetworks.h>.
constexpr std::array<OperandTypeInfo, 16> kOperandTypes = {{
        {"FLOAT32", 0, ElementKind::Float32},
        {"INT32", 1, ElementKind::Int32},
        {"UINT32", 2, ElementKind::UInt32},
        {"TENSOR_FLOAT32", 3, ElementKind::Float32},
        {"TENSOR_INT32", 4, ElementKind::Int32},
        {"TENSOR_QUANT8_ASYMM", 5, ElementKind::Quant8Asymm},
        {"BOOL", 6, ElementKind::Bool8},
        {"TENSOR_QUANT16_SYMM", 7, ElementKind::Quant16Symm},
        {"TENSOR_FLOAT16", 8, ElementKind::Float16},
        {"TENSOR_BOOL8", 9, ElementKind::Bool8},
        {"FLOAT16", 10, ElementKind::Float16},
        {"TENSOR_QUANT8_SYMM_PER_CHANNEL", 11, ElementKind::Quant8Symm},
        {"TENSOR_QUANT16_ASYMM", 12, ElementKind::Quant16Asymm},
        {"TENSOR_QUANT8_SYMM", 13, ElementKind::Quant8Symm},
        {"TENSOR_QUANT8_ASYMM_SIGNED", 14, ElementKind::Quant8AsymmSigned},  // V1_3
        {"SUBGRAPH", 15, ElementKind::UInt32},  // V1_3 (ANEURALNETWORKS_MODEL)
}};

// A conversion problem; the message says where.
class BadData : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[noreturn]] void bad(const std::string& message) { throw BadData(message); }

const json& member(const json& object, const char* key, const std::string& where) {
    if (!object.is_object()) bad(where + " is not an object");
    auto it = object.find(key);
    if (it == object.end()) bad(where + " has no \"" + key + "\"");
    return *it;
}

std::string stringMember(const json& object, const char* key, const std::string& where) {
    const json& value = member(object, key, where);
    if (!value.is_string()) bad(where + "." + key + " is not a string");
    return value.get<std::string>();
}

bool boolMember(const json& object, const char* key, const std::string& where, bool fallback) {
    if (!object.is_object()) bad(where + " is not an object");
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) bad(where + "." + key + " is not a boolean");
    return it->get<bool>();
}

const json& arrayMember(const json& object, const char* key, const std::string& where) {
    const json& value = member(object, key, where);
    if (!value.is_array()) bad(where + "." + key + " is not an array");
    return value;
}

// An integral JSON number (or boolean) within [low, high].
int64_t integerValue(const json& value, int64_t low, int64_t high, const std::string& where) {
    int64_t result = 0;
    if (value.is_boolean()) {
        result = value.get<bool>() ? 1 : 0;
    } else if (value.is_number_unsigned()) {
        const uint64_t u = value.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            bad(where + ": " + value.dump() + " is out of range");
        }
        result = static_cast<int64_t>(u);
    } else if (value.is_number_integer()) {
        result = value.get<int64_t>();
    } else if (value.is_number_float()) {
        const double d = value.get<double>();
        if (!(std::floor(d) == d) || std::fabs(d) > 9.0e15) {
            bad(where + ": " + value.dump() + " is not an integer");
        }
        result = static_cast<int64_t>(d);
    } else {
        bad(where + ": " + value.dump() + " is not a number");
    }
    if (result < low || result > high) bad(where + ": " + value.dump() + " is out of range");
    return result;
}

double floatValue(const json& value, const std::string& where) {
    if (!value.is_number()) bad(where + ": " + value.dump() + " is not a number");
    return value.get<double>();
}

std::vector<uint32_t> dimsValue(const json& value, const std::string& where) {
    if (!value.is_array()) bad(where + " is not an array");
    std::vector<uint32_t> dims;
    dims.reserve(value.size());
    for (const json& d : value) {
        dims.push_back(static_cast<uint32_t>(
                integerValue(d, 0, std::numeric_limits<uint32_t>::max(), where)));
    }
    return dims;
}

template <typename T>
void append(std::vector<uint8_t>& bytes, T value) {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &value, sizeof(T));
}

// Encodes a JSON list of element values as the C type of `kind`.
std::vector<uint8_t> encode(ElementKind kind, const json& values, const std::string& where) {
    if (!values.is_array()) bad(where + " is not an array");
    std::vector<uint8_t> bytes;
    bytes.reserve(values.size() * elementSize(kind));
    for (const json& v : values) {
        switch (kind) {
            case ElementKind::Float32:
                append(bytes, static_cast<float>(floatValue(v, where)));
                break;
            case ElementKind::Float16:
                // The generated C++ assigns a float literal to _Float16: double -> float -> half.
                append(bytes, floatToFp16Bits(static_cast<float>(floatValue(v, where))));
                break;
            case ElementKind::Int32:
                append(bytes, static_cast<int32_t>(integerValue(
                                      v, std::numeric_limits<int32_t>::min(),
                                      std::numeric_limits<int32_t>::max(), where)));
                break;
            case ElementKind::UInt32:
                append(bytes, static_cast<uint32_t>(integerValue(
                                      v, 0, std::numeric_limits<uint32_t>::max(), where)));
                break;
            case ElementKind::Quant8Asymm:
                append(bytes, static_cast<uint8_t>(integerValue(v, 0, 255, where)));
                break;
            case ElementKind::Quant8Symm:
            case ElementKind::Quant8AsymmSigned:
                append(bytes, static_cast<int8_t>(integerValue(v, -128, 127, where)));
                break;
            case ElementKind::Quant16Symm:
                append(bytes, static_cast<int16_t>(integerValue(v, -32768, 32767, where)));
                break;
            case ElementKind::Quant16Asymm:
                append(bytes, static_cast<uint16_t>(integerValue(v, 0, 65535, where)));
                break;
            case ElementKind::Bool8:
                append(bytes, static_cast<uint8_t>(integerValue(v, 0, 1, where)));
                break;
        }
    }
    return bytes;
}

uint64_t elementCount(const std::vector<uint32_t>& dims) {
    uint64_t count = 1;
    for (uint32_t d : dims) count *= d;
    return count;
}

std::string dimsText(const std::vector<uint32_t>& dims) {
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) text += ",";
        text += std::to_string(dims[i]);
    }
    return text + "]";
}

std::vector<uint32_t> indexList(const json& value, size_t limit, const std::string& where) {
    if (!value.is_array()) bad(where + " is not an array");
    std::vector<uint32_t> result;
    result.reserve(value.size());
    for (const json& v : value) {
        const int64_t index = integerValue(v, 0, std::numeric_limits<uint32_t>::max(), where);
        if (static_cast<uint64_t>(index) >= limit) {
            bad(where + ": index " + std::to_string(index) + " is out of range (" +
                std::to_string(limit) + ")");
        }
        result.push_back(static_cast<uint32_t>(index));
    }
    return result;
}

Operand convertOperand(const json& j, const std::string& where) {
    Operand op;
    if (auto it = j.find("name"); it != j.end() && it->is_string()) op.name = it->get<std::string>();
    op.typeName = stringMember(j, "type", where);
    const OperandTypeInfo* info = nullptr;
    for (const auto& candidate : kOperandTypes) {
        if (op.typeName == candidate.name) info = &candidate;
    }
    if (!info) bad(where + ": unknown operand type " + op.typeName);
    op.typeCode = info->code;
    op.kind = info->kind;
    op.dims = dimsValue(member(j, "dims", where), where + ".dims");
    if (auto it = j.find("scale"); it != j.end() && !it->is_null()) {
        op.scale = static_cast<float>(floatValue(*it, where + ".scale"));
    }
    if (auto it = j.find("zeroPoint"); it != j.end() && !it->is_null()) {
        op.zeroPoint = static_cast<int32_t>(integerValue(*it, std::numeric_limits<int32_t>::min(),
                                                         std::numeric_limits<int32_t>::max(),
                                                         where + ".zeroPoint"));
    }
    if (auto it = j.find("channelQuant"); it != j.end() && !it->is_null()) {
        ChannelQuant cq;
        cq.channelDim = static_cast<uint32_t>(
                integerValue(member(*it, "channelDim", where + ".channelQuant"), 0,
                             std::numeric_limits<uint32_t>::max(), where + ".channelDim"));
        for (const json& s : arrayMember(*it, "scales", where + ".channelQuant")) {
            cq.scales.push_back(static_cast<float>(floatValue(s, where + ".channelQuant.scales")));
        }
        op.channelQuant = std::move(cq);
    }
    const std::string lifetime = stringMember(j, "lifetime", where);
    if (lifetime == "INPUT") {
        op.lifetime = Lifetime::Input;
    } else if (lifetime == "OUTPUT") {
        op.lifetime = Lifetime::Output;
    } else if (lifetime == "CONSTANT") {
        op.lifetime = Lifetime::Constant;
    } else if (lifetime == "TEMPORARY") {
        op.lifetime = Lifetime::Temporary;
    } else if (lifetime == "NO_VALUE") {
        op.lifetime = Lifetime::NoValue;
    } else if (lifetime == "SUBGRAPH") {
        op.lifetime = Lifetime::Subgraph;
    } else {
        bad(where + ": unknown lifetime " + lifetime);
    }
    if (op.lifetime == Lifetime::Constant) {
        const json& values = arrayMember(j, "value", where);
        const uint64_t expected = elementCount(op.dims);
        if (values.size() != expected) {
            bad(where + " (" + op.name + "): " + std::to_string(values.size()) +
                " constant values for dims " + dimsText(op.dims));
        }
        op.value = encode(op.kind, values, where + ".value");
    } else if (op.lifetime == Lifetime::Subgraph) {
        if (op.typeCode != 15) bad(where + ": lifetime SUBGRAPH on a " + op.typeName + " operand");
        const json& values = arrayMember(j, "value", where);
        if (values.size() != 1) bad(where + ": a SUBGRAPH operand needs one value");
        // The range is checked once the variant's referenced list is known.
        op.subgraph = static_cast<uint32_t>(integerValue(
                values[0], 0, std::numeric_limits<uint32_t>::max(), where + ".value"));
    }
    return op;
}

// Converts the map {"<position>": {"dims": [...], "data": [...]}} of an example.
std::vector<TensorData> convertTensors(const json& map, const Variant& variant,
                                       const std::vector<uint32_t>& operandIndexes,
                                       bool isInput, const std::string& where) {
    if (!map.is_object()) bad(where + " is not an object");
    std::vector<TensorData> result(operandIndexes.size());
    std::vector<bool> seen(operandIndexes.size(), false);
    for (const auto& [key, entry] : map.items()) {
        size_t position = 0;
        try {
            size_t used = 0;
            const unsigned long parsed = std::stoul(key, &used);
            if (used != key.size()) throw std::invalid_argument(key);
            position = parsed;
        } catch (const std::exception&) {
            bad(where + ": position \"" + key + "\" is not a number");
        }
        if (position >= operandIndexes.size()) {
            bad(where + ": position " + key + " is out of range");
        }
        const std::string here = where + "[" + key + "]";
        const Operand& operand = variant.operands[operandIndexes[position]];
        TensorData& tensor = result[position];
        tensor.dims = dimsValue(member(entry, "dims", here), here + ".dims");
        const json& data = arrayMember(entry, "data", here);
        tensor.count = data.size();
        tensor.bytes = encode(operand.kind, data, here + ".data");
        if (isInput && tensor.count != 0 && tensor.count != elementCount(tensor.dims)) {
            bad(here + ": " + std::to_string(tensor.count) + " values for dims " +
                dimsText(tensor.dims));
        }
        seen[position] = true;
    }
    for (size_t p = 0; p < seen.size(); ++p) {
        if (!seen[p]) bad(where + ": no data for position " + std::to_string(p));
    }
    return result;
}

// The operands, operations, inputs and outputs of a model (the variant or a referenced one).
template <typename Graph>
void convertGraph(const json& j, const std::string& where, Graph* g) {
    const json& operands = arrayMember(j, "operands", where);
    g->operands.reserve(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) {
        g->operands.push_back(convertOperand(operands[i], where + " operand " + std::to_string(i)));
    }
    const size_t operandCount = g->operands.size();

    const json& operations = arrayMember(j, "operations", where);
    for (size_t i = 0; i < operations.size(); ++i) {
        const std::string here = where + " operation " + std::to_string(i);
        Operation op;
        op.typeName = stringMember(operations[i], "type", here);
        op.typeCode = -1;
        if (const hal::OperationInfo* info = hal::findOperation(std::string_view(op.typeName))) {
            op.typeCode = static_cast<int32_t>(info->type);
        }
        if (op.typeCode < 0) bad(here + ": unknown operation type " + op.typeName);
        op.inputs = indexList(member(operations[i], "inputs", here), operandCount,
                              here + ".inputs");
        op.outputs = indexList(member(operations[i], "outputs", here), operandCount,
                               here + ".outputs");
        g->operations.push_back(std::move(op));
    }
    g->inputs = indexList(member(j, "inputs", where), operandCount, where + ".inputs");
    g->outputs = indexList(member(j, "outputs", where), operandCount, where + ".outputs");
}

void checkSubgraphReferences(const std::vector<Operand>& operands, size_t count,
                             const std::string& where) {
    for (const Operand& op : operands) {
        if (op.lifetime == Lifetime::Subgraph && op.subgraph >= count) {
            bad(where + ": operand '" + op.name + "' references subgraph " +
                std::to_string(op.subgraph) + " of " + std::to_string(count));
        }
    }
}

Variant convertVariant(const json& j, const std::string& id, bool android11) {
    Variant v;
    v.id = id;
    v.android11 = android11;
    v.name = stringMember(j, "name", "variant");
    v.testName = j.contains("testName") && j["testName"].is_string()
                         ? j["testName"].get<std::string>()
                         : v.name;
    v.dynamicOutputShape = boolMember(j, "dynamicOutputShape", "variant", false);
    v.relaxed = boolMember(j, "relaxedFp32ToFp16", "variant", false);
    v.expectFailure = boolMember(j, "expectFailure", "variant", false);
    convertGraph(j, "variant", &v);
    if (auto it = j.find("referenced"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) bad("variant.referenced is not an array");
        for (size_t k = 0; k < it->size(); ++k) {
            const std::string where = "referenced " + std::to_string(k);
            Subgraph g;
            if (auto n = (*it)[k].find("name"); n != (*it)[k].end() && n->is_string()) {
                g.name = n->get<std::string>();
            }
            convertGraph((*it)[k], where, &g);
            v.referenced.push_back(std::move(g));
        }
    }
    checkSubgraphReferences(v.operands, v.referenced.size(), "variant");
    for (size_t k = 0; k < v.referenced.size(); ++k) {
        checkSubgraphReferences(v.referenced[k].operands, v.referenced.size(),
                                "referenced " + std::to_string(k));
    }

    v.ignoredOutput.assign(v.outputs.size(), false);
    if (auto it = j.find("ignoredOutputs"); it != j.end() && !it->is_null()) {
        for (uint32_t position : indexList(*it, v.outputs.size(), "variant.ignoredOutputs")) {
            v.ignoredOutput[position] = true;
        }
    }

    const json& examples = arrayMember(j, "examples", "variant");
    if (examples.empty()) bad("variant has no examples");
    for (size_t e = 0; e < examples.size(); ++e) {
        const std::string where = "example " + std::to_string(e);
        Example example;
        example.inputs = convertTensors(member(examples[e], "inputs", where), v, v.inputs, true,
                                        where + ".inputs");
        example.outputs = convertTensors(member(examples[e], "outputs", where), v, v.outputs,
                                         false, where + ".outputs");
        if (auto it = examples[e].find("expectedMultinomialDistributionTolerance");
            it != examples[e].end() && !it->is_null()) {
            example.multinomialTolerance = floatValue(*it, where + ".tolerance");
        }
        v.examples.push_back(std::move(example));
    }
    return v;
}

}  // namespace

size_t elementSize(ElementKind kind) {
    switch (kind) {
        case ElementKind::Float32:
        case ElementKind::Int32:
        case ElementKind::UInt32:
            return 4;
        case ElementKind::Float16:
        case ElementKind::Quant16Symm:
        case ElementKind::Quant16Asymm:
            return 2;
        case ElementKind::Quant8Asymm:
        case ElementKind::Quant8AsymmSigned:
        case ElementKind::Quant8Symm:
        case ElementKind::Bool8:
            return 1;
    }
    return 1;
}

const char* elementKindName(ElementKind kind) {
    switch (kind) {
        case ElementKind::Float32: return "float32";
        case ElementKind::Float16: return "float16";
        case ElementKind::Int32: return "int32";
        case ElementKind::UInt32: return "uint32";
        case ElementKind::Quant8Asymm: return "quant8_asymm";
        case ElementKind::Quant8Symm: return "quant8_symm";
        case ElementKind::Quant8AsymmSigned: return "quant8_asymm_signed";
        case ElementKind::Quant16Symm: return "quant16_symm";
        case ElementKind::Quant16Asymm: return "quant16_asymm";
        case ElementKind::Bool8: return "bool8";
    }
    return "?";
}

const char* operationName(int32_t code) {
    const hal::OperationInfo* info = hal::findOperation(code);
    return info != nullptr ? info->name : nullptr;
}

SpecFile loadSpecFile(const std::filesystem::path& path,
                      const std::function<bool(const std::string& id)>& keep) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SpecFileError("cannot open the file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw SpecFileError("cannot read the file");

    json document;
    try {
        document = json::parse(text.str());
    } catch (const json::exception& e) {
        throw SpecFileError(std::string("invalid JSON: ") + e.what());
    }

    SpecFile file;
    struct Selected {
        const json* variant;
        std::string id;
        size_t index;
    };
    std::vector<Selected> selected;
    try {
        file.version = stringMember(document, "version", "document");
        file.spec = stringMember(document, "spec", "document");
        const json& variants = arrayMember(document, "variants", "document");
        for (size_t i = 0; i < variants.size(); ++i) {
            const json& vj = variants[i];
            std::string name;
            if (vj.is_object() && vj.contains("name") && vj["name"].is_string()) {
                name = vj["name"].get<std::string>();
            } else {
                name = "#" + std::to_string(i);  // unnamed: still reported, by position
            }
            std::string id = file.version + "/" + file.spec + "/" + name;
            if (keep(id)) selected.push_back({&vj, std::move(id), i});
        }
    } catch (const BadData& e) {
        throw SpecFileError(e.what());
    } catch (const json::exception& e) {
        throw SpecFileError(e.what());
    }

    for (auto& [vj, id, index] : selected) {
        SpecFile::Entry entry;
        entry.indexInFile = index;
        try {
            entry.variant = convertVariant(*vj, id, file.version.rfind("V1_3", 0) == 0);
        } catch (const BadData& e) {
            entry.broken = BrokenVariant{id, std::string("malformed variant: ") + e.what()};
        } catch (const json::exception& e) {
            entry.broken = BrokenVariant{id, std::string("malformed variant: ") + e.what()};
        }
        file.entries.push_back(std::move(entry));
    }
    return file;
}

}  // namespace nnemu::conformance
