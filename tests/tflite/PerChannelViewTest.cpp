// Per-channel scales and zero points are views into the model's bytes (Model.h): a file whose
// scale or zero-point vector is misplaced (misaligned, past the end) or whose length runs past
// the end is refused by Model::fromBuffer before anything reads the vector; a well-formed one
// whose int64 zero points are only 4-byte aligned loads and reads them exactly.
#include <cstring>
#include <optional>

#include "GraphBuilder.h"
#include "TestSupport.h"
#include "nnemu/tflite/Interpreter.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

const std::vector<float> kScales = {0.0625f, 0.03125f, 0.015625f, 0.0078125f};
const std::vector<int64_t> kZeroPoints = {0, 0, 0, 0};

// A CONV_2D of an int8 per-channel filter (4 output channels, axis 0).
std::vector<uint8_t> perChannelConv() {
    GraphBuilder g;
    const int32_t input = g.tensor({1, 2, 2, 1}, fb::TensorType_INT8, {}, {0.5f}, {1});
    const int32_t filter = g.tensor({4, 1, 1, 1}, fb::TensorType_INT8, {1, 2, 3, 4}, kScales, kZeroPoints, 0);
    const int32_t output = g.tensor({1, 2, 2, 4}, fb::TensorType_INT8, {}, {0.25f}, {-2});
    g.op(fb::BuiltinOperator_CONV_2D, {input, filter, -1}, {output}, fb::BuiltinOptions_Conv2DOptions,
         [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateConv2DOptions(b, fb::Padding_VALID, 1, 1).Union(); });
    g.inputs = {input};
    g.outputs = {output};
    return g.buildBytes();
}

uint32_t read32(const std::vector<uint8_t>& bytes, size_t at) {
    uint32_t value;
    std::memcpy(&value, bytes.data() + at, sizeof(value));
    return value;
}
void write32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) { std::memcpy(bytes.data() + at, &value, sizeof(value)); }

// Where the vector whose elements are `values` starts (its length prefix), found by content.
template <typename T>
size_t vectorAt(const std::vector<uint8_t>& bytes, const std::vector<T>& values) {
    const size_t size = values.size() * sizeof(T);
    for (size_t at = 4; at + size <= bytes.size(); at += 4) {
        if (read32(bytes, at - 4) == values.size() && std::memcmp(bytes.data() + at, values.data(), size) == 0) {
            return at - 4;
        }
    }
    ADD_FAILURE() << "vector not found";
    return 0;
}

// The position of the uoffset field that refers to `target` (a field's value counts from the field).
std::optional<size_t> referenceTo(const std::vector<uint8_t>& bytes, size_t target) {
    for (size_t at = 0; at + 4 <= target; at += 4) {
        if (at + read32(bytes, at) == target) return at;
    }
    return std::nullopt;
}

void expectRefused(const std::vector<uint8_t>& bytes, const std::string& what) {
    EXPECT_FALSE(Model::fromBuffer(bytes).isOk()) << what;
}

// Moves the field referring to the vector at `vector` by `delta` bytes, or sets its length.
void damageVector(const std::vector<uint8_t>& good, size_t vector, const std::string& name) {
    const std::optional<size_t> field = referenceTo(good, vector);
    ASSERT_TRUE(field.has_value()) << name;
    for (uint32_t delta : {1u, 2u, 3u, 6u}) {
        std::vector<uint8_t> bytes = good;
        write32(bytes, *field, read32(bytes, *field) + delta);
        expectRefused(bytes, name + " misaligned by " + std::to_string(delta));
    }
    for (uint32_t offset : {static_cast<uint32_t>(good.size() - *field), static_cast<uint32_t>(good.size() - *field - 2),
                            0x7ffffffcu, 0xfffffffcu}) {
        std::vector<uint8_t> bytes = good;
        write32(bytes, *field, offset);
        expectRefused(bytes, name + " at offset " + std::to_string(offset));
    }
    for (uint32_t length : {static_cast<uint32_t>(good.size()), 0x20000000u, 0x40000000u, 0xffffffffu}) {
        std::vector<uint8_t> bytes = good;
        write32(bytes, vector, length);
        expectRefused(bytes, name + " of length " + std::to_string(length));
    }
}

TEST(PerChannelView, MisplacedScaleVectorIsRefused) {
    const std::vector<uint8_t> good = perChannelConv();
    ASSERT_TRUE(isOk(Model::fromBuffer(good).status()));
    damageVector(good, vectorAt(good, kScales), "scales");
}

TEST(PerChannelView, MisplacedZeroPointVectorIsRefused) {
    const std::vector<uint8_t> good = perChannelConv();
    damageVector(good, vectorAt(good, kZeroPoints), "zero points");
}

// The int64 zero points moved to a position that is 4- but not 8-byte aligned (the verifier
// allows it): loaded, read exactly, and the model compiles and runs on both paths.
TEST(PerChannelView, ZeroPointsAlignedToFourBytesOnly) {
    std::vector<uint8_t> bytes = perChannelConv();
    const size_t vector = vectorAt(bytes, kZeroPoints);
    const std::optional<size_t> field = referenceTo(bytes, vector);
    ASSERT_TRUE(field.has_value());
    // A vector of other values appended with its length prefix 8-byte aligned in the file, so
    // that its int64 elements are 4 (mod 8); the field pointed at it.
    while (bytes.size() % 8 != 0) bytes.push_back(0);
    const size_t copy = bytes.size();
    bytes.resize(copy + 4 + kZeroPoints.size() * sizeof(int64_t));
    write32(bytes, copy, static_cast<uint32_t>(kZeroPoints.size()));
    for (size_t c = 0; c < kZeroPoints.size(); ++c) {
        const int64_t value = static_cast<int64_t>(c) - 1;  // -1 .. 2: the lowering refuses them, not the loader
        std::memcpy(bytes.data() + copy + 4 + c * sizeof(int64_t), &value, sizeof(value));
    }
    write32(bytes, *field, static_cast<uint32_t>(copy - *field));
    std::string error;
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    const Tensor& filter = model->tensors()[1];
    ASSERT_TRUE(filter.isPerChannel());
    for (size_t c = 0; c < kZeroPoints.size(); ++c) EXPECT_EQ(filter.channelZeroPoint(c), static_cast<int64_t>(c) - 1);
    for (bool nnapi : {false, true}) {
        DelegateOptions options;
        options.useNnapi = nnapi;
        options.acceleratorName = "nnapi-reference";
        Result<std::unique_ptr<Interpreter>> interpreter = Interpreter::create(*model, options);
        if (interpreter) (void)(*interpreter)->invoke();  // refused or run: never a wild read
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
