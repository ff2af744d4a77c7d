// A .tflite model assembled tensor by tensor and operator by operator, for the lowering tests:
// builtin and custom operators, quantized, constant and variable tensors, further subgraphs.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "nnemu/tflite/tflite_generated.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {

class GraphBuilder {
public:
    using Options = std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>;

    int32_t tensor(std::vector<int32_t> shape, fb::TensorType type, std::vector<uint8_t> data = {},
                   std::vector<float> scales = {}, std::vector<int64_t> zeroPoints = {}, int32_t axis = 0) {
        tensors_.push_back({std::move(shape), type, std::move(data), std::move(scales), std::move(zeroPoints), axis, false, nullptr});
        return static_cast<int32_t>(tensors_.size() - 1);
    }
    // A sparse constant (DENSIFY's input): `data` holds its stored values, `sparsity` its encoding.
    using Sparsity = std::function<flatbuffers::Offset<fb::SparsityParameters>(flatbuffers::FlatBufferBuilder&)>;
    void setSparsity(int32_t t, Sparsity sparsity) { tensors_[t].sparsity = std::move(sparsity); }
    // A state tensor (RNN/LSTM): is_variable, no data.
    int32_t variable(std::vector<int32_t> shape, fb::TensorType type) {
        const int32_t t = tensor(std::move(shape), type);
        tensors_[t].variable = true;
        return t;
    }
    template <typename T>
    static std::vector<uint8_t> bytes(const std::vector<T>& values) {
        std::vector<uint8_t> out(values.size() * sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
        return out;
    }
    void op(fb::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
            fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, Options options = nullptr) {
        ops_.push_back({code, "", std::move(inputs), std::move(outputs), optionsType, std::move(options), {}});
    }
    // The opcode version of the last operator added (1 unless set): TFLite registers some
    // builtins from a later version only (BROADCAST_TO from 2).
    void setVersion(int32_t version) { ops_.back().version = version; }
    void customOp(const std::string& name, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                  std::vector<uint8_t> customOptions) {
        ops_.push_back({fb::BuiltinOperator_CUSTOM, name, std::move(inputs), std::move(outputs), fb::BuiltinOptions_NONE,
                        nullptr, std::move(customOptions)});
    }
    std::vector<int32_t> inputs, outputs;
    // Further subgraphs (CALL_ONCE's init graphs, ...): subgraph 1, 2, ... of the model.
    std::vector<GraphBuilder> subgraphs;

    std::vector<uint8_t> buildBytes() const {
        flatbuffers::FlatBufferBuilder b;
        std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBuffer(b)};
        std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
        std::vector<flatbuffers::Offset<fb::SubGraph>> graphs = {buildSubgraph(b, buffers, codes)};
        for (const GraphBuilder& graph : subgraphs) graphs.push_back(graph.buildSubgraph(b, buffers, codes));
        fb::FinishModelBuffer(b, fb::CreateModelDirect(b, 3, &codes, &graphs, "test", &buffers));
        return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
    }

    std::unique_ptr<Model> build() const {
        const std::vector<uint8_t> bytes = buildBytes();
        dumpForFuzzCorpus(bytes);
        std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
        EXPECT_NE(model, nullptr);
        return model;
    }

private:
    flatbuffers::Offset<fb::SubGraph> buildSubgraph(flatbuffers::FlatBufferBuilder& b,
                                                    std::vector<flatbuffers::Offset<fb::Buffer>>& buffers,
                                                    std::vector<flatbuffers::Offset<fb::OperatorCode>>& codes) const {
        std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
        for (const TensorSpec& t : tensors_) {
            uint32_t buffer = 0;
            if (!t.data.empty()) {
                b.ForceVectorAlignment(t.data.size(), 1, 16);
                buffers.push_back(fb::CreateBuffer(b, b.CreateVector(t.data)));
                buffer = static_cast<uint32_t>(buffers.size() - 1);
            }
            flatbuffers::Offset<fb::QuantizationParameters> quant;
            if (!t.scales.empty()) {
                std::vector<int64_t> zeros = t.zeroPoints.empty() ? std::vector<int64_t>(t.scales.size(), 0) : t.zeroPoints;
                quant = fb::CreateQuantizationParametersDirect(b, nullptr, nullptr, &t.scales, &zeros,
                                                               fb::QuantizationDetails_NONE, 0, t.axis);
            }
            tensors.push_back(fb::CreateTensorDirect(b, &t.shape, t.type, buffer, "t", quant, t.variable,
                                                     t.sparsity ? t.sparsity(b) : 0));
        }
        std::vector<flatbuffers::Offset<fb::Operator>> ops;
        for (const OpSpec& o : ops_) {
            codes.push_back(fb::CreateOperatorCodeDirect(b, static_cast<int8_t>(std::min<int>(o.code, 127)),
                                                         o.customName.empty() ? nullptr : o.customName.c_str(), o.version,
                                                         o.code));
            const flatbuffers::Offset<void> options = o.options ? o.options(b) : 0;
            ops.push_back(fb::CreateOperatorDirect(b, static_cast<uint32_t>(codes.size() - 1), &o.inputs, &o.outputs,
                                                   o.optionsType, options,
                                                   o.customOptions.empty() ? nullptr : &o.customOptions));
        }
        return fb::CreateSubGraphDirect(b, &tensors, &inputs, &outputs, &ops);
    }

    // NNEMU_TEST_MODEL_DUMP_DIR=<dir>: every model a test builds is also written there, named
    // after the test, as seeds for tflite_loader_fuzz (tests/fuzz/make_corpus.sh).
    static void dumpForFuzzCorpus(const std::vector<uint8_t>& bytes) {
        const char* dir = std::getenv("NNEMU_TEST_MODEL_DUMP_DIR");
        const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
        if (dir == nullptr || *dir == '\0' || test == nullptr) return;
        static int counter = 0;
        std::string name = std::string(test->test_suite_name()) + "." + test->name() + "." + std::to_string(counter++);
        for (char& c : name) {
            if (c == '/') c = '_';
        }
        std::ofstream(std::string(dir) + "/" + name + ".tflite", std::ios::binary)
                .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }

    struct TensorSpec {
        std::vector<int32_t> shape;
        fb::TensorType type;
        std::vector<uint8_t> data;
        std::vector<float> scales;
        std::vector<int64_t> zeroPoints;
        int32_t axis;
        bool variable;
        Sparsity sparsity = nullptr;
    };
    struct OpSpec {
        fb::BuiltinOperator code;
        std::string customName;
        std::vector<int32_t> inputs, outputs;
        fb::BuiltinOptions optionsType;
        Options options;
        std::vector<uint8_t> customOptions;
        int32_t version = 1;
    };
    std::vector<TensorSpec> tensors_;
    std::vector<OpSpec> ops_;
};

}  // namespace nnemu::tflite::test
