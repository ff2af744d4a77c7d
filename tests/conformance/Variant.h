// In-memory form of one conformance variant (see ../shared/conformance/README.md), already
// encoded into the byte layouts the NNAPI C API expects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nnemu::conformance {

// Element representation of an operand (its C type in the generated CTS code).
enum class ElementKind {
    Float32,      // float
    Float16,      // _Float16, stored as binary16 bits
    Int32,        // int32_t
    UInt32,       // uint32_t
    Quant8Asymm,  // uint8_t
    Quant8AsymmSigned,  // int8_t (V1_3)
    Quant8Symm,   // int8_t (per-channel and plain symmetric)
    Quant16Symm,  // int16_t
    Quant16Asymm, // uint16_t
    Bool8,        // 1 byte, 0 or 1
};

size_t elementSize(ElementKind kind);
const char* elementKindName(ElementKind kind);

// Subgraph (V1_3): a SUBGRAPH operand whose value is a model of Variant::referenced.
enum class Lifetime { Input, Output, Constant, Temporary, NoValue, Subgraph };

struct ChannelQuant {
    uint32_t channelDim = 0;
    std::vector<float> scales;
};

struct Operand {
    std::string name;
    std::string typeName;  // e.g. "TENSOR_FLOAT32"
    int32_t typeCode = 0;  // OperandCode value
    ElementKind kind = ElementKind::Float32;
    std::vector<uint32_t> dims;
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    std::optional<ChannelQuant> channelQuant;
    Lifetime lifetime = Lifetime::Temporary;
    std::vector<uint8_t> value;  // encoded constant (lifetime Constant only)
    uint32_t subgraph = 0;       // index into Variant::referenced (lifetime Subgraph only)
};

struct Operation {
    std::string typeName;  // e.g. "CONV_2D"
    int32_t typeCode = 0;  // OperationCode value
    std::vector<uint32_t> inputs;
    std::vector<uint32_t> outputs;
};

// One input or golden output of an example, encoded as the C type of its operand.
struct TensorData {
    std::vector<uint32_t> dims;
    std::vector<uint8_t> bytes;
    size_t count = 0;  // number of elements in bytes
};

struct Example {
    std::vector<TensorData> inputs;   // indexed by input position
    std::vector<TensorData> outputs;  // indexed by output position
    std::optional<double> multinomialTolerance;
};

// A model referenced by IF/WHILE operations (V1_3 "referenced").
struct Subgraph {
    std::string name;
    std::vector<Operand> operands;
    std::vector<Operation> operations;
    std::vector<uint32_t> inputs;
    std::vector<uint32_t> outputs;
};

struct Variant {
    std::string id;  // "<version>/<spec>/<name>"
    std::string name;
    std::string testName;
    bool dynamicOutputShape = false;
    std::vector<Operand> operands;
    std::vector<Operation> operations;
    std::vector<uint32_t> inputs;
    std::vector<uint32_t> outputs;
    bool relaxed = false;
    std::vector<bool> ignoredOutput;  // indexed by output position
    std::vector<Example> examples;
    // V1_3 files (Android 11 harness): comparison rules of that harness, and the schema
    // additions below.
    bool android11 = false;
    bool expectFailure = false;         // a validation test: some step must fail
    std::vector<Subgraph> referenced;   // models of the SUBGRAPH operands
};

// A variant that could not be read: reported as a failure of that variant.
struct BrokenVariant {
    std::string id;
    std::string error;
};

struct SpecFile {
    std::string version;
    std::string spec;
    // Exactly one of the two is set per entry, in file order.
    struct Entry {
        std::optional<Variant> variant;
        std::optional<BrokenVariant> broken;
        size_t indexInFile = 0;  // position in the file's "variants" array
        const std::string& id() const { return variant ? variant->id : broken->id; }
    };
    std::vector<Entry> entries;
};

// Thrown for a file that is not a readable spec document at all.
class SpecFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads and converts one spec file. Only variants for which `keep(id)` is true are converted
// (the others are left out of the result). Throws SpecFileError.
SpecFile loadSpecFile(const std::filesystem::path& path,
                      const std::function<bool(const std::string& id)>& keep);

// Names of operations by OperationCode (0..105); nullptr outside that range.
const char* operationName(int32_t code);

}  // namespace nnemu::conformance
