// Quantized CONV_2D and FULLY_CONNECTED whose requantization multiplier input x filter / output
// exceeds 1 (NNAPI feature level 29 lifted the older output_scale > input x filter rule), built
// through the C API and run on nnapi-reference and on synap-npu, against an independent
// double-precision evaluation: sum the real products, divide by the output scale, round half
// away from zero, add the zero point, clamp.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "Compilation.h"

#include "NnapiDevices.h"

namespace nnemu {
namespace {

using test::deviceNamed;


struct Quant {
    float scale;
    int32_t zeroPoint;
};

// One quantized layer: CONV_2D (VALID, stride 1, no activation) or FULLY_CONNECTED, with a
// per-tensor or per-channel filter.
struct Layer {
    int32_t operation = ANEURALNETWORKS_CONV_2D;
    std::vector<uint32_t> inputDims, filterDims, outputDims;
    Quant input{0.5f, 128}, filter{0.5f, 128}, output{0.1f, 128};
    std::vector<float> channelScales;   // non-empty: per-channel int8 filter
    std::vector<uint8_t> filterData;    // uint8, or int8 bytes when per channel
    std::vector<int32_t> bias;

    uint32_t outChannels() const { return filterDims[0]; }
    float filterScale(uint32_t c) const { return channelScales.empty() ? filter.scale : channelScales[c]; }
    int32_t filterValue(size_t i) const {
        return channelScales.empty() ? filterData[i] - filter.zeroPoint : static_cast<int8_t>(filterData[i]);
    }
};

class RequantizedModel {
public:
    explicit RequantizedModel(const Layer& layer) : layer_(layer) { build(); }
    ~RequantizedModel() { ANeuralNetworksModel_free(model_); }
    RequantizedModel(const RequantizedModel&) = delete;
    RequantizedModel& operator=(const RequantizedModel&) = delete;

    ANeuralNetworksModel* get() const { return model_; }

private:
    void build() {
        ASSERT_EQ(ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR);
        const Layer& l = layer_;
        const bool perChannel = !l.channelScales.empty();
        const uint32_t biasDims[1] = {l.outChannels()};
        const ANeuralNetworksOperandType input{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM,
                                               static_cast<uint32_t>(l.inputDims.size()), l.inputDims.data(),
                                               l.input.scale, l.input.zeroPoint};
        ANeuralNetworksOperandType filter{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, static_cast<uint32_t>(l.filterDims.size()),
                                          l.filterDims.data(), l.filter.scale, l.filter.zeroPoint};
        if (perChannel) filter = {ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, 4, l.filterDims.data(), 0.0f, 0};
        const ANeuralNetworksOperandType bias{ANEURALNETWORKS_TENSOR_INT32, 1, biasDims,
                                              perChannel ? 0.0f : l.input.scale * l.filter.scale, 0};
        const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
        const ANeuralNetworksOperandType output{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM,
                                                static_cast<uint32_t>(l.outputDims.size()), l.outputDims.data(),
                                                l.output.scale, l.output.zeroPoint};
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &input), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &filter), 0);
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &bias), 0);
        if (perChannel) {
            const ANeuralNetworksSymmPerChannelQuantParams params{0, l.outChannels(), l.channelScales.data()};
            ASSERT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model_, 1, &params), 0);
        }
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 1, l.filterData.data(), l.filterData.size()), 0);
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, 2, l.bias.data(), l.bias.size() * sizeof(int32_t)), 0);
        // CONV_2D: padding VALID, strides 1, 1, fuse NONE; FULLY_CONNECTED: fuse NONE.
        const std::vector<int32_t> scalars = l.operation == ANEURALNETWORKS_CONV_2D
                                                     ? std::vector<int32_t>{ANEURALNETWORKS_PADDING_VALID, 1, 1, 0}
                                                     : std::vector<int32_t>{0};
        std::vector<uint32_t> inputs = {0, 1, 2};
        for (int32_t value : scalars) {
            const auto index = static_cast<uint32_t>(inputs.size());
            ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &scalar), 0);
            ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, index, &value, sizeof value), 0);
            inputs.push_back(index);
        }
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model_, &output), 0);
        const uint32_t outputIndex = static_cast<uint32_t>(inputs.size());
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, l.operation, static_cast<uint32_t>(inputs.size()),
                                                    inputs.data(), 1, &outputIndex),
                  0);
        const uint32_t modelInput = 0;
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, &modelInput, 1, &outputIndex), 0);
        ASSERT_EQ(ANeuralNetworksModel_finish(model_), 0);
    }

    Layer layer_;
    ANeuralNetworksModel* model_ = nullptr;
};

size_t elements(const std::vector<uint32_t>& dims) {
    size_t n = 1;
    for (uint32_t d : dims) n *= d;
    return n;
}

// The independent evaluation. CONV_2D here is VALID with stride 1 on NHWC; FULLY_CONNECTED
// reads the input as [batch, inputSize].
std::vector<uint8_t> expectedOutput(const Layer& l, const std::vector<uint8_t>& input) {
    std::vector<uint8_t> out(elements(l.outputDims));
    const uint32_t oc = l.outChannels();
    auto finish = [&](size_t index, uint32_t c, double sum) {
        const double real = sum + l.bias[c] * (double{l.input.scale} * l.filterScale(c));
        const long q = std::lround(real / l.output.scale) + l.output.zeroPoint;
        out[index] = static_cast<uint8_t>(std::clamp<long>(q, 0, 255));
    };
    auto product = [&](size_t in, size_t f, uint32_t c) {
        return (double{l.input.scale} * (input[in] - l.input.zeroPoint)) * (double{l.filterScale(c)} * l.filterValue(f));
    };
    if (l.operation == ANEURALNETWORKS_FULLY_CONNECTED) {
        const uint32_t size = l.filterDims[1];
        for (size_t b = 0; b < input.size() / size; ++b) {
            for (uint32_t u = 0; u < oc; ++u) {
                double sum = 0;
                for (uint32_t i = 0; i < size; ++i) sum += product(b * size + i, u * size + i, u);
                finish(b * oc + u, u, sum);
            }
        }
        return out;
    }
    const uint32_t inW = l.inputDims[2], inC = l.inputDims[3];
    const uint32_t kH = l.filterDims[1], kW = l.filterDims[2];
    const uint32_t outH = l.outputDims[1], outW = l.outputDims[2];
    for (uint32_t y = 0; y < outH; ++y) {
        for (uint32_t x = 0; x < outW; ++x) {
            for (uint32_t c = 0; c < oc; ++c) {
                double sum = 0;
                for (uint32_t ky = 0; ky < kH; ++ky) {
                    for (uint32_t kx = 0; kx < kW; ++kx) {
                        for (uint32_t i = 0; i < inC; ++i) {
                            sum += product(((y + ky) * inW + x + kx) * inC + i, ((c * kH + ky) * kW + kx) * inC + i, c);
                        }
                    }
                }
                finish((y * outW + x) * oc + c, c, sum);
            }
        }
    }
    return out;
}

std::vector<uint8_t> inputFor(const Layer& l) {
    std::vector<uint8_t> input(elements(l.inputDims));
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>((i * 37 + 11) % 13 + 122);   // 122..134
    return input;
}

// Compiles for `devices` (empty: default partitioning), runs once and names the step devices.
std::vector<uint8_t> runOn(const RequantizedModel& model, const Layer& l, const std::vector<const char*>& devices,
                           std::vector<std::string>* stepDevices) {
    ANeuralNetworksCompilation* compilation = nullptr;
    if (devices.empty()) {
        EXPECT_EQ(ANeuralNetworksCompilation_create(model.get(), &compilation), 0);
    } else {
        std::vector<const ANeuralNetworksDevice*> handles;
        for (const char* name : devices) handles.push_back(deviceNamed(name));
        EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), handles.data(),
                                                              static_cast<uint32_t>(handles.size()), &compilation),
                  0);
    }
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    const auto* plan = reinterpret_cast<runtime::Compilation*>(compilation)->plan();
    for (size_t i = 0; i < plan->stepCount(); ++i) stepDevices->push_back(plan->step(i).device->name);
    const std::vector<uint8_t> input = inputFor(l);
    std::vector<uint8_t> output(elements(l.outputDims), 0);
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, input.data(), input.size()), 0);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output.data(), output.size()), 0);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution), 0);
    ANeuralNetworksExecution_free(execution);
    ANeuralNetworksCompilation_free(compilation);
    return output;
}

bool npuClaims(const RequantizedModel& model) {
    const ANeuralNetworksDevice* npu[1] = {deviceNamed("synap-npu")};
    bool supported[1] = {false};
    EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), npu, 1, supported), 0);
    return supported[0];
}

// At most `tolerance` apart everywhere; returns how many elements differ at all.
size_t expectWithin(const std::vector<uint8_t>& expected, const std::vector<uint8_t>& actual, int tolerance,
                    const char* what) {
    EXPECT_EQ(expected.size(), actual.size()) << what;
    size_t differing = 0;
    for (size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
        EXPECT_LE(std::abs(expected[i] - actual[i]), tolerance) << what << " element " << i;
        differing += expected[i] != actual[i];
    }
    return differing;
}

// Filter values in a small deterministic spread around the zero point (uint8) or 0 (int8).
std::vector<uint8_t> filterValues(size_t count, bool signedValues, int32_t zeroPoint) {
    std::vector<uint8_t> values(count);
    for (size_t i = 0; i < count; ++i) {
        const int v = static_cast<int>((i * 5 + 3) % 7) - 3;   // -3..3
        values[i] = signedValues ? static_cast<uint8_t>(static_cast<int8_t>(v)) : static_cast<uint8_t>(v + zeroPoint);
    }
    return values;
}

Layer convLayer() {
    Layer l;   // input 0.5, filter 0.5, output 0.1: multiplier 2.5
    l.inputDims = {1, 4, 4, 3};
    l.filterDims = {2, 2, 2, 3};
    l.outputDims = {1, 3, 3, 2};
    l.filterData = filterValues(elements(l.filterDims), false, l.filter.zeroPoint);
    l.bias = {7, -12};
    return l;
}

Layer fullyConnectedLayer() {
    Layer l;
    l.operation = ANEURALNETWORKS_FULLY_CONNECTED;
    l.inputDims = {2, 6};
    l.filterDims = {3, 6};
    l.outputDims = {2, 3};
    l.input = {0.5f, 125};
    l.filter = {0.5f, 131};
    l.filterData = filterValues(elements(l.filterDims), false, l.filter.zeroPoint);
    l.bias = {-5, 20, 3};
    return l;
}

Layer perChannelConvLayer() {
    Layer l = convLayer();
    l.channelScales = {0.5f, 0.3f};   // multipliers 2.5 and 1.5
    l.filterData = filterValues(elements(l.filterDims), true, 0);
    return l;
}

void checkOnBothDevices(const Layer& layer) {
    RequantizedModel model(layer);
    const std::vector<uint8_t> expected = expectedOutput(layer, inputFor(layer));
    // The values must not all sit at a clamp, or the check would prove little.
    EXPECT_GT(std::count_if(expected.begin(), expected.end(), [](uint8_t v) { return v > 0 && v < 255; }),
              static_cast<long>(expected.size() / 2));
    std::vector<std::string> steps;
    const std::vector<uint8_t> reference = runOn(model, layer, {"nnapi-reference"}, &steps);
    EXPECT_EQ(expectWithin(expected, reference, 0, "nnapi-reference"), 0u);
    ASSERT_TRUE(npuClaims(model));
    steps.clear();
    const std::vector<uint8_t> npu = runOn(model, layer, {"synap-npu"}, &steps);
    EXPECT_EQ(steps, std::vector<std::string>{"synap-npu"});
    // The NPU core requantizes in float with ties to even: one step off at exact halves.
    expectWithin(expected, npu, 1, "synap-npu");
}

TEST(RequantizationAboveOne, ConvolutionOnBothDevices) { checkOnBothDevices(convLayer()); }

TEST(RequantizationAboveOne, PerChannelConvolutionOnBothDevices) { checkOnBothDevices(perChannelConvLayer()); }

TEST(RequantizationAboveOne, FullyConnectedOnBothDevices) { checkOnBothDevices(fullyConnectedLayer()); }

TEST(RequantizationAboveOne, BeyondTheCoreFallsBackToTheReference) {
    // 0.5 x 0.5 / 0.0008 = 312.5: the NPU core takes factors below 256 only.
    for (Layer layer : {convLayer(), fullyConnectedLayer()}) {
        layer.output = {0.0008f, 128};
        RequantizedModel model(layer);
        EXPECT_FALSE(npuClaims(model));
        std::vector<std::string> steps;
        const std::vector<uint8_t> actual = runOn(model, layer, {}, &steps);
        EXPECT_EQ(steps, std::vector<std::string>{"nnapi-reference"});
        expectWithin(expectedOutput(layer, inputFor(layer)), actual, 0, "default partitioning");
    }
}

}  // namespace
}  // namespace nnemu
