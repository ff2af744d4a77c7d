// A quantized RELU, LOGISTIC or TANH output takes the quantization the operation gives (the RELU
// family the input's, LOGISTIC and TANH a fixed one), as in Android's CPU executor: a temporary
// declared otherwise is given it and later operations read it; a model output declared otherwise
// fails the execution (OP_FAILED). Both models build and compile: validation reads types only.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

struct Quant {
    float scale;
    int32_t zeroPoint;
};

// input [4] uint8 (0.5, 10) -> `op` -> result declared `declared`; with `consumer`, the result is
// a temporary and ADD(result, zeros of `consumerQuant`) writes the output, quantized (0.5, 10).
struct Model {
    ANeuralNetworksModel* model = nullptr;
    ANeuralNetworksCompilation* compilation = nullptr;

    Model(int32_t op, Quant declared, bool consumer) {
        EXPECT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
        const uint32_t four[1] = {4};
        const ANeuralNetworksOperandType input{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 1, four, 0.5f, 10};
        const ANeuralNetworksOperandType result{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 1, four, declared.scale,
                                                declared.zeroPoint};
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &input), 0);
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &result), 0);
        const uint32_t in[1] = {0}, out[1] = {1};
        EXPECT_EQ(ANeuralNetworksModel_addOperation(model, op, 1, in, 1, out), 0);
        uint32_t modelOutput = 1;
        if (consumer) {
            const ANeuralNetworksOperandType fuse{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
            EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &result), 0);   // 2: zeros
            EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &fuse), 0);     // 3
            EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &input), 0);    // 4: the output
            const std::vector<uint8_t> zeros(4, static_cast<uint8_t>(declared.zeroPoint));
            EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model, 2, zeros.data(), zeros.size()), 0);
            const int32_t none = ANEURALNETWORKS_FUSED_NONE;
            EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model, 3, &none, sizeof none), 0);
            const uint32_t addIn[3] = {1, 2, 3}, addOut[1] = {4};
            EXPECT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, addIn, 1, addOut), 0);
            modelOutput = 4;
        }
        EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, in, 1, &modelOutput), 0);
        EXPECT_EQ(ANeuralNetworksModel_finish(model), 0);
        uint32_t count = 0;
        EXPECT_EQ(ANeuralNetworks_getDeviceCount(&count), 0);
        const ANeuralNetworksDevice* reference = nullptr;
        for (uint32_t i = 0; i < count; ++i) {
            ANeuralNetworksDevice* device = nullptr;
            const char* name = nullptr;
            ANeuralNetworks_getDevice(i, &device);
            ANeuralNetworksDevice_getName(device, &name);
            if (std::strcmp(name, "nnapi-reference") == 0) reference = device;
        }
        EXPECT_NE(reference, nullptr);
        EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model, &reference, 1, &compilation), 0);
        EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    }
    ~Model() {
        ANeuralNetworksCompilation_free(compilation);
        ANeuralNetworksModel_free(model);
    }

    int run(const std::vector<uint8_t>& input, std::vector<uint8_t>* output) const {
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        ANeuralNetworksExecution_setInput(execution, 0, nullptr, input.data(), input.size());
        ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output->data(), output->size());
        const int status = ANeuralNetworksExecution_compute(execution);
        ANeuralNetworksExecution_free(execution);
        return status;
    }
};

const std::vector<uint8_t> kInput = {0, 9, 10, 200};

TEST(PreparedQuantization, ATemporaryReluOutputTakesTheInputsQuantization) {
    // Declared (0.25, 0), given (0.5, 10): the ADD reads max(x, 10) at (0.5, 10) and writes it at
    // the same quantization. Read at the declared one it would write other values.
    const Model m(ANEURALNETWORKS_RELU, {0.25f, 0}, true);
    std::vector<uint8_t> out(4);
    ASSERT_EQ(m.run(kInput, &out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(out, (std::vector<uint8_t>{10, 10, 10, 200}));
}

TEST(PreparedQuantization, AReluModelOutputDeclaredOtherwiseFailsTheExecution) {
    std::vector<uint8_t> out(4);
    for (int32_t op : {ANEURALNETWORKS_RELU, ANEURALNETWORKS_RELU1, ANEURALNETWORKS_RELU6}) {
        EXPECT_EQ(Model(op, {0.25f, 0}, false).run(kInput, &out), ANEURALNETWORKS_OP_FAILED) << op;
        EXPECT_EQ(Model(op, {0.5f, 10}, false).run(kInput, &out), ANEURALNETWORKS_NO_ERROR) << op;
    }
}

TEST(PreparedQuantization, LogisticAndTanhGiveTheirFixedQuantization) {
    std::vector<uint8_t> out(4);
    // A model output: only the fixed quantization runs.
    EXPECT_EQ(Model(ANEURALNETWORKS_LOGISTIC, {0.5f, 10}, false).run(kInput, &out), ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(Model(ANEURALNETWORKS_LOGISTIC, {1.0f / 256, 0}, false).run(kInput, &out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(Model(ANEURALNETWORKS_TANH, {0.5f, 10}, false).run(kInput, &out), ANEURALNETWORKS_OP_FAILED);
    // A temporary declared otherwise takes (1/256, 0): the ADD after it then gives what the
    // fixed quantization gives, requantized to (0.5, 10).
    std::vector<uint8_t> logistic(4);
    ASSERT_EQ(Model(ANEURALNETWORKS_LOGISTIC, {0.5f, 10}, true).run(kInput, &logistic), ANEURALNETWORKS_NO_ERROR);
    std::vector<uint8_t> declaredFixed(4);
    ASSERT_EQ(Model(ANEURALNETWORKS_LOGISTIC, {1.0f / 256, 0}, true).run(kInput, &declaredFixed),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(logistic, declaredFixed);
}

}  // namespace
