// Model::load / fromBuffer: what a verified file exposes, legacy opcodes, and malformed files
// (truncated, random bytes, bad offsets, bad indexes) rejected with a message, never a crash.
#include <cmath>
#include <cstring>

#include "GeneratedModels.h"
#include "GraphBuilder.h"
#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/tflite/tflite_generated.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

// Loads and, when that works, creates an interpreter and runs it: must never crash.
void loadAndMaybeRun(std::vector<uint8_t> bytes) {
    Result<std::unique_ptr<Model>> loaded = Model::fromBuffer(std::move(bytes));
    if (!loaded) {
        EXPECT_FALSE(loaded.message().empty());
        return;
    }
    const std::unique_ptr<Model> model = std::move(loaded).value();
    Result<std::unique_ptr<Interpreter>> created = Interpreter::create(*model, DelegateOptions{});
    if (!created) {
        EXPECT_FALSE(created.message().empty());
        return;
    }
    Interpreter& interpreter = **created;
    // A corrupted shape can declare a huge tensor that NNAPI refuses only when run: skip those.
    size_t total = 0;
    for (const Tensor& tensor : model->tensors()) total += tensor.byteSize();
    if (total <= (size_t{1} << 20)) (void)interpreter.invoke();
}

// A one-node model built by hand with the generated builder, for semantic errors the
// flatbuffers verifier cannot see. `edit` changes the pieces before they are assembled.
struct HandModel {
    int8_t deprecatedCode = fb::BuiltinOperator_RELU;
    fb::BuiltinOperator builtinCode = fb::BuiltinOperator_RELU;
    uint32_t opcodeIndex = 0;
    std::vector<int32_t> shape = {1, 4};
    std::vector<int32_t> nodeInputs = {0}, nodeOutputs = {1};
    std::vector<int32_t> graphInputs = {0}, graphOutputs = {1};
    uint32_t inputBuffer = 0;
    std::vector<uint8_t> constantData;   // buffer 1 when non-empty
    std::vector<float> scales;            // input quantization
    uint32_t version = 3;

    std::vector<uint8_t> build() const {
        flatbuffers::FlatBufferBuilder b;
        std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBuffer(b)};
        if (!constantData.empty()) buffers.push_back(fb::CreateBuffer(b, b.CreateVector(constantData)));
        flatbuffers::Offset<fb::QuantizationParameters> quant;
        if (!scales.empty()) {
            const std::vector<int64_t> zeros(scales.size(), 0);
            quant = fb::CreateQuantizationParametersDirect(b, nullptr, nullptr, &scales, &zeros);
        }
        std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
                fb::CreateTensorDirect(b, &shape, fb::TensorType_FLOAT32, inputBuffer, "in", quant),
                fb::CreateTensorDirect(b, &shape, fb::TensorType_FLOAT32, 0, "out")};
        std::vector<flatbuffers::Offset<fb::Operator>> ops = {
                fb::CreateOperatorDirect(b, opcodeIndex, &nodeInputs, &nodeOutputs)};
        std::vector<flatbuffers::Offset<fb::OperatorCode>> codes = {
                fb::CreateOperatorCode(b, deprecatedCode, 0, 1, builtinCode)};
        std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs = {
                fb::CreateSubGraphDirect(b, &tensors, &graphInputs, &graphOutputs, &ops)};
        fb::FinishModelBuffer(b, fb::CreateModelDirect(b, version, &codes, &subgraphs, "hand", &buffers));
        return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
    }
};

std::string loadError(const std::vector<uint8_t>& bytes) { return failureOf(Model::fromBuffer(bytes)); }

TEST(ModelLoader, ReadsSplitConcat) {
    NNEMU_REQUIRE_SHARED_MODELS();
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/split_concat.tflite");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->fileSize(), 1872u);
    ASSERT_EQ(model->nodes().size(), 3u);
    EXPECT_EQ(model->nodes()[0].opName, "CONCATENATION");
    EXPECT_EQ(model->nodes()[1].opName, "SPLIT");
    EXPECT_EQ(model->nodes()[1].outputs.size(), 6u);
    EXPECT_EQ(model->inputs(), (std::vector<int32_t>{0, 1, 2}));
    ASSERT_EQ(model->tensors().size(), 12u);
    const Tensor& input = model->tensors()[0];
    EXPECT_EQ(input.name, "input1");
    EXPECT_EQ(input.type, ElementType::UINT8);
    EXPECT_EQ(input.shape, (std::vector<int32_t>{1, 8, 8, 3}));
    EXPECT_NEAR(input.scale, 1.0 / 128, 1e-6);
    EXPECT_EQ(input.zeroPoint, 128);
    EXPECT_FALSE(input.isConstant);
    EXPECT_EQ(input.byteSize(), 192u);
    const Tensor& axis = model->tensors()[11];
    EXPECT_EQ(axis.type, ElementType::INT32);
    EXPECT_TRUE(axis.isConstant);
    EXPECT_TRUE(axis.shape.empty());
    EXPECT_EQ(axis.byteSize(), 4u);
    EXPECT_STREQ(elementTypeName(ElementType::INT8), "INT8");
}

TEST(ModelLoader, LegacyOpcodesAndPerChannelQuantization) {
    NNEMU_REQUIRE_SHARED_MODELS();
    // person_detect only sets deprecated_builtin_code.
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/person_detect.tflite");
    ASSERT_NE(model, nullptr);
    ASSERT_EQ(model->nodes().size(), 31u);
    EXPECT_EQ(model->nodes()[0].opName, "DEPTHWISE_CONV_2D");
    EXPECT_EQ(model->nodes()[2].opName, "CONV_2D");
    EXPECT_EQ(model->nodes()[27].opName, "AVERAGE_POOL_2D");
    EXPECT_EQ(model->nodes()[30].opName, "SOFTMAX");
    const Tensor& weights = model->tensors()[1];
    EXPECT_EQ(weights.type, ElementType::INT8);
    EXPECT_TRUE(weights.isPerChannel());
    EXPECT_EQ(weights.channelScales.size(), 128u);
    EXPECT_EQ(weights.quantizedDimension, 3);
    EXPECT_FLOAT_EQ(weights.scale, weights.channelScales[0]);
}

// Per-channel scales and zero points are read in place from the file's bytes, bit for bit.
TEST(ModelLoader, PerChannelQuantizationIsReadInPlaceExactly) {
    const std::vector<float> scales = {0.1f, 3.0e-7f, 1234.5f, std::nextafter(1.0f, 2.0f)};
    const std::vector<int64_t> zeroPoints = {0, -5, 7, 2147483647};
    GraphBuilder g;
    const int32_t input = g.tensor({1, 4}, fb::TensorType_FLOAT32);
    g.tensor({4, 1}, fb::TensorType_INT8, {1, 2, 3, 4}, scales, zeroPoints, 0);
    g.inputs = {input};
    g.outputs = {input};
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(g.buildBytes()));
    ASSERT_NE(model, nullptr);
    const Tensor& t = model->tensors()[1];
    ASSERT_TRUE(t.isPerChannel());
    ASSERT_EQ(t.channelScales.size(), scales.size());
    for (size_t c = 0; c < scales.size(); ++c) {
        EXPECT_EQ(std::memcmp(&t.channelScales[c], &scales[c], sizeof(float)), 0) << c;
        EXPECT_EQ(t.channelZeroPoint(c), zeroPoints[c]) << c;
    }
    EXPECT_EQ(t.channelZeroPoint(scales.size()), 0);
    EXPECT_EQ(t.scale, scales[0]);
    const auto* first = reinterpret_cast<const uint8_t*>(t.channelScales.data());
    EXPECT_TRUE(first >= model->bytes().data() && first < model->bytes().data() + model->bytes().size());
}

TEST(ModelLoader, OpcodeIsTheLargerOfBothFields) {
    HandModel legacy;  // only the byte-wide field, as old converters write
    legacy.builtinCode = fb::BuiltinOperator_ADD;
    legacy.deprecatedCode = fb::BuiltinOperator_RELU;
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(legacy.build()));
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->nodes()[0].opName, "RELU");
    HandModel extended;  // an operator above 127: placeholder in the old field
    extended.deprecatedCode = 127;
    extended.builtinCode = fb::BuiltinOperator_RFFT2D;
    model = expectValue(Model::fromBuffer(extended.build()));
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->nodes()[0].opName, "RFFT2D");
    // Unknown to us, still loadable; an interpreter says which operator it cannot map.
    const std::string error = failureOf(Interpreter::create(*model, DelegateOptions{}));
    EXPECT_NE(error.find("operator RFFT2D at node 0"), std::string::npos) << error;
}

TEST(ModelLoader, HandModelRunsWhenValid) {
    HandModel valid;
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(valid.build()));
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(interpreter, nullptr);
    const float in[4] = {-1.0f, 2.0f, -3.0f, 4.0f};
    std::memcpy(interpreter->inputData(0), in, sizeof in);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    float out[4];
    std::memcpy(out, interpreter->outputData(0), sizeof out);
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], 2.0f);
    EXPECT_EQ(out[3], 4.0f);
}

TEST(ModelLoader, RejectsBadIndexesAndShapes) {
    HandModel m;
    m.opcodeIndex = 5;
    EXPECT_NE(loadError(m.build()).find("operator code index 5 out of range"), std::string::npos);
    m = HandModel();
    m.nodeInputs = {7};
    EXPECT_NE(loadError(m.build()).find("input tensor index 7 out of range"), std::string::npos);
    m = HandModel();
    m.nodeOutputs = {-1};
    EXPECT_NE(loadError(m.build()).find("output tensor index -1 out of range"), std::string::npos);
    m = HandModel();
    m.graphOutputs = {2};
    EXPECT_NE(loadError(m.build()).find("subgraph output tensor index 2 out of range"), std::string::npos);
    m = HandModel();
    m.inputBuffer = 9;
    EXPECT_NE(loadError(m.build()).find("buffer index 9 out of range"), std::string::npos);
    m = HandModel();
    m.shape = {1, -4};
    EXPECT_NE(loadError(m.build()).find("negative dimension"), std::string::npos);
    m = HandModel();
    m.shape = {65536, 65536, 65536};
    EXPECT_NE(loadError(m.build()).find("shape too large"), std::string::npos);
    m = HandModel();
    m.inputBuffer = 1;
    m.constantData = {1, 2, 3};  // 3 bytes for 4 floats
    EXPECT_NE(loadError(m.build()).find("buffer holds 3 bytes but its shape needs 16"), std::string::npos);
    m = HandModel();
    m.scales = {0.5f, 0.25f, 0.125f};  // 3 scales, dimension 0 has size 1
    EXPECT_NE(loadError(m.build()).find("quantization scales do not match"), std::string::npos);
    m = HandModel();
    m.scales = {-1.0f};
    EXPECT_NE(loadError(m.build()).find("invalid quantization scale"), std::string::npos);
    m = HandModel();
    m.version = 2;
    EXPECT_NE(loadError(m.build()).find("schema version 2"), std::string::npos);
}

TEST(ModelLoader, RejectsBadDataFlow) {
    HandModel m;
    m.graphInputs = {};  // the node reads a tensor nothing provides
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(m.build()));
    ASSERT_NE(model, nullptr);
    std::string error = failureOf(Interpreter::create(*model, DelegateOptions{}));
    EXPECT_NE(error.find("operator RELU at node 0: input tensor 0 (in) has no value"), std::string::npos) << error;
    m = HandModel();
    m.nodeOutputs = {0};  // writes its own input, a subgraph input
    model = expectValue(Model::fromBuffer(m.build()));
    ASSERT_NE(model, nullptr);
    error = failureOf(Interpreter::create(*model, DelegateOptions{}));
    EXPECT_NE(error.find("is already a constant, a subgraph input"), std::string::npos) << error;
}

TEST(ModelLoader, RejectsMissingAndForeignFiles) {
    const std::string error = failureOf(Model::load("/nonexistent/model.tflite"));
    EXPECT_NE(error.find("cannot open model file /nonexistent/model.tflite"), std::string::npos) << error;
    EXPECT_FALSE(failureOf(Model::load("/")).empty());
    EXPECT_NE(loadError({}).find("file too small"), std::string::npos);
    EXPECT_NE(loadError(std::vector<uint8_t>(64, 0)).find("TFL3"), std::string::npos);
}

TEST(ModelLoader, RejectsEveryTruncation) {
    const std::vector<uint8_t> bytes = generatedBytes("split_float");
    ASSERT_FALSE(bytes.empty());
    for (size_t length = 0; length < bytes.size(); ++length) {
        const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
        EXPECT_FALSE(failureOf(Model::fromBuffer(prefix)).empty()) << "length " << length;
    }
}

TEST(ModelLoader, RejectsRandomBytes) {
    uint64_t state = 12345;
    const auto next = [&state] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint8_t>(state >> 56);
    };
    for (size_t size : {8u, 16u, 100u, 1000u, 5000u}) {
        for (int round = 0; round < 50; ++round) {
            std::vector<uint8_t> bytes(size);
            for (uint8_t& b : bytes) b = next();
            std::memcpy(bytes.data() + 4, "TFL3", 4);  // past the identifier check, into the verifier
            EXPECT_FALSE(failureOf(Model::fromBuffer(bytes)).empty());
        }
    }
}

TEST(ModelLoader, RejectsBadRootOffsets) {
    std::vector<uint8_t> bytes = generatedBytes("add_quant");
    ASSERT_GT(bytes.size(), 16u);
    for (uint32_t offset : {0u, 4u, 7u, static_cast<uint32_t>(bytes.size()), static_cast<uint32_t>(bytes.size() - 2),
                            0x7fffffffu, 0xfffffff0u}) {
        std::vector<uint8_t> bad = bytes;
        std::memcpy(bad.data(), &offset, 4);
        EXPECT_FALSE(failureOf(Model::fromBuffer(bad)).empty()) << "root offset " << offset;
    }
}

TEST(ModelLoader, SurvivesEveryByteCorruption) {
    // Every byte of small models replaced by a few values: rejected or run, never a crash.
    // (Light models only: a corrupted model that still loads is also run.)
    for (const char* name : {"split_quant", "add_int8", "fully_connected_int8", "pad_float"}) {
        const std::vector<uint8_t> bytes = generatedBytes(name);
        for (size_t i = 0; i < bytes.size(); ++i) {
            for (uint8_t value : {uint8_t{0x00}, uint8_t{0x7f}, uint8_t{0xff}, static_cast<uint8_t>(bytes[i] ^ 0x01)}) {
                if (bytes[i] == value) continue;
                std::vector<uint8_t> bad = bytes;
                bad[i] = value;
                loadAndMaybeRun(std::move(bad));
            }
        }
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
