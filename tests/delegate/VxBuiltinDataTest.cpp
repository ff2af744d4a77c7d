// builtin_data through the ABI: one-node graphs whose result depends on the node's params struct
// (stride, filter size, activation, axis, beta, ...), delegated and run on the NPU. A misread
// struct shows as a refused node, a shape mismatch or a wrong value.
#include <cmath>
#include <cstring>

#include "VxTestHost.h"

namespace {

using vxtest::Host;
using vxtest::NodeSpec;
using vxtest::TensorSpec;

template <typename T>
std::vector<uint8_t> bytes(std::vector<T> values) {
    std::vector<uint8_t> out(values.size() * sizeof(T));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

TensorSpec f32(std::vector<int> dims, std::vector<float> constant = {}) {
    return {kTfLiteFloat32, std::move(dims), bytes(std::move(constant))};
}

TensorSpec i32(std::vector<int> dims, std::vector<int32_t> constant) {
    return {kTfLiteInt32, std::move(dims), bytes(std::move(constant))};
}

class VxBuiltinData : public vxtest::VxAbi {
protected:
    // Delegates the single node of `host` (inputs given per non-constant input tensor in
    // order), runs it and returns the bytes of `output`; empty (with a failure) when the node was
    // not delegated.
    std::vector<uint8_t> run(Host& host, const std::vector<std::vector<float>>& inputs, int output) {
        TfLiteDelegate* delegate = create({});
        EXPECT_NE(delegate, nullptr) << reported_;
        if (delegate == nullptr) return {};
        std::vector<uint8_t> result;
        EXPECT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
        EXPECT_EQ(host.replaced, std::vector<int>{0});
        if (host.kernelNode.user_data != nullptr && host.kernelPrepare == kTfLiteOk) {
            size_t next = 0;
            for (int i = 0; i < host.nodes[0].inputs->size; ++i) {
                const int t = host.nodes[0].inputs->data[i];
                if (t < 0 || host.tensors[t].allocation_type == kTfLiteMmapRo || next >= inputs.size()) continue;
                const std::vector<uint8_t> data = bytes(inputs[next++]);
                EXPECT_EQ(data.size(), host.data[t].size());
                std::memcpy(host.data[t].data(), data.data(), std::min(data.size(), host.data[t].size()));
            }
            EXPECT_EQ(host.kernel.invoke(&host.context, &host.kernelNode), kTfLiteOk);
            result = host.data[output];
        }
        destroy_(delegate);
        return result;
    }
    // The single node stays with the host, with the board's warning.
    void expectFallback(Host& host, int builtinCode) {
        TfLiteDelegate* delegate = create({});
        ASSERT_NE(delegate, nullptr);
        testing::internal::CaptureStderr();
        EXPECT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
        const std::string log = testing::internal::GetCapturedStderr();
        EXPECT_TRUE(host.replaced.empty());
        const std::string warning = "WARNING: Fallback unsupported op " + std::to_string(builtinCode) + " to TfLite\n";
        EXPECT_NE(log.find(warning), std::string::npos) << log;
        destroy_(delegate);
    }
    std::vector<float> runFloat(Host& host, const std::vector<std::vector<float>>& inputs, int output) {
        const std::vector<uint8_t> out = run(host, inputs, output);
        std::vector<float> values(out.size() / sizeof(float));
        std::memcpy(values.data(), out.data(), values.size() * sizeof(float));
        return values;
    }
};

using F = std::vector<float>;

TEST_F(VxBuiltinData, Conv2DStrideAndActivation) {
    TfLiteConvParams params{.padding = kTfLitePaddingValid, .stride_width = 2, .stride_height = 2,
                            .activation = kTfLiteActNone, .dilation_width_factor = 1, .dilation_height_factor = 1};
    Host host({f32({1, 3, 3, 1}), f32({1, 2, 2, 1}, {1, 1, 1, 1}), f32({1}, {0.5f}), f32({1, 1, 1, 1})},
              {NodeSpec{3, &params, {0, 1, 2}, {3}}});
    EXPECT_EQ(runFloat(host, {{1, 2, 3, 4, 5, 6, 7, 8, 9}}, 3), (F{12.5f}));
    params.activation = kTfLiteActRelu6;
    Host relu6({f32({1, 3, 3, 1}), f32({1, 2, 2, 1}, {1, 1, 1, 1}), f32({1}, {0.5f}), f32({1, 1, 1, 1})},
               {NodeSpec{3, &params, {0, 1, 2}, {3}}});
    EXPECT_EQ(runFloat(relu6, {{1, 2, 3, 4, 5, 6, 7, 8, 9}}, 3), (F{6}));
}

// TFLite's own order, written as the host's memory (padding, strides, activation, dilations):
// a header that swapped the activation and the dilations would read a width dilation of 3 here.
TEST_F(VxBuiltinData, Conv2DParamsAreReadInTfLitesFieldOrder) {
    const int32_t raw[6] = {kTfLitePaddingValid, 1, 1, kTfLiteActRelu6, 1, 1};
    static_assert(sizeof raw == sizeof(TfLiteConvParams));
    TfLiteConvParams params;
    std::memcpy(&params, raw, sizeof raw);
    Host host({f32({1, 3, 3, 1}), f32({1, 2, 2, 1}, {1, 1, 1, 1}), f32({1}, {0.5f}), f32({1, 2, 2, 1})},
              {NodeSpec{3, &params, {0, 1, 2}, {3}}});
    EXPECT_EQ(runFloat(host, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}, 3), (F{2.5f, 1.5f, 1.5f, 2.5f}));
    Host relu6({f32({1, 3, 3, 1}), f32({1, 2, 2, 1}, {1, 1, 1, 1}), f32({1}, {0.5f}), f32({1, 2, 2, 1})},
               {NodeSpec{3, &params, {0, 1, 2}, {3}}});
    EXPECT_EQ(runFloat(relu6, {{1, 2, 3, 4, 5, 6, 7, 8, 9}}, 3), (F{6, 6, 6, 6}));
}

TEST_F(VxBuiltinData, DepthwiseConv2DDepthMultiplier) {
    TfLiteDepthwiseConvParams params{kTfLitePaddingValid, 1, 1, 2, kTfLiteActNone, 1, 1};
    Host host({f32({1, 1, 2, 2}), f32({1, 1, 1, 4}, {1, 2, 3, 4}), f32({4}, {0, 0, 0, 0}), f32({1, 1, 2, 4})},
              {NodeSpec{4, &params, {0, 1, 2}, {3}}});
    EXPECT_EQ(runFloat(host, {{1, 2, 3, 4}}, 3), (F{1, 2, 6, 8, 3, 6, 12, 16}));
}

TEST_F(VxBuiltinData, FullyConnectedActivation) {
    TfLiteFullyConnectedParams params{kTfLiteActRelu, kTfLiteFullyConnectedWeightsFormatDefault, false, false};
    Host host({f32({1, 3}), f32({2, 3}, {1, 1, 1, 1, -1, 0}), f32({2}, {0, 0.5f}), f32({1, 2})},
              {NodeSpec{9, &params, {0, 1, 2}, {3}}});
    EXPECT_EQ(runFloat(host, {{1, 2, 3}}, 3), (F{6, 0}));
}

TEST_F(VxBuiltinData, PoolingFilterAndStride) {
    TfLitePoolParams params{kTfLitePaddingValid, 2, 2, 2, 2, kTfLiteActNone, {}};
    Host average({f32({1, 2, 4, 1}), f32({1, 1, 2, 1})}, {NodeSpec{1, &params, {0}, {1}}});
    EXPECT_EQ(runFloat(average, {{1, 2, 3, 4, 5, 6, 7, 8}}, 1), (F{3.5f, 5.5f}));
    Host max({f32({1, 2, 4, 1}), f32({1, 1, 2, 1})}, {NodeSpec{17, &params, {0}, {1}}});
    EXPECT_EQ(runFloat(max, {{1, 2, 3, 4, 5, 6, 7, 8}}, 1), (F{6, 8}));
}

TEST_F(VxBuiltinData, AddSubMulFusedActivation) {
    TfLiteAddParams add{kTfLiteActRelu6, false};
    TfLiteSubParams sub{kTfLiteActReluN1To1, false};
    TfLiteMulParams mul{kTfLiteActRelu6};
    const std::vector<TensorSpec> tensors{f32({1, 4}), f32({1, 4}, {4, 4, 4, 4}), f32({1, 4})};
    Host addHost(tensors, {NodeSpec{0, &add, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(addHost, {{1, 2, 3, 4}}, 2), (F{5, 6, 6, 6}));
    Host subHost(tensors, {NodeSpec{41, &sub, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(subHost, {{1, 2, 3, 4.5f}}, 2), (F{-1, -1, -1, 0.5f}));
    Host mulHost(tensors, {NodeSpec{18, &mul, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(mulHost, {{1, 2, 3, 4}}, 2), (F{4, 6, 6, 6}));
}

TEST_F(VxBuiltinData, ConcatenationAxis) {
    TfLiteConcatenationParams params{1, kTfLiteActNone};
    Host host({f32({2, 2}), f32({2, 2}, {5, 6, 7, 8}), f32({2, 4})}, {NodeSpec{2, &params, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(host, {{1, 2, 3, 4}}, 2), (F{1, 2, 5, 6, 3, 4, 7, 8}));
}

TEST_F(VxBuiltinData, ReshapeAndSqueeze) {
    TfLiteReshapeParams reshape{{2, 2}, 2};
    Host host({f32({1, 4}), i32({2}, {2, 2}), f32({2, 2})}, {NodeSpec{22, &reshape, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(host, {{1, 2, 3, 4}}, 2), (F{1, 2, 3, 4}));
}

TEST_F(VxBuiltinData, SoftmaxBeta) {
    TfLiteSoftmaxParams params{2.0f};  // exp(2 * logit): 1, 1, 1, 3
    Host host({f32({1, 4}), f32({1, 4})}, {NodeSpec{25, &params, {0}, {1}}});
    const F out = runFloat(host, {{0, 0, 0, 0.5f * std::log(3.0f)}}, 1);
    ASSERT_EQ(out.size(), 4u);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(out[i], i == 3 ? 0.5f : 1.0f / 6, 1e-5f) << i;
}

TEST_F(VxBuiltinData, ResizeBilinearFlags) {
    TfLiteResizeBilinearParams params{false, false};
    const std::vector<TensorSpec> tensors{f32({1, 2, 2, 1}), i32({2}, {4, 4}), f32({1, 4, 4, 1})};
    Host host(tensors, {NodeSpec{23, &params, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(host, {{0, 4, 8, 12}}, 2), (F{0, 2, 4, 4, 4, 6, 8, 8, 8, 10, 12, 12, 8, 10, 12, 12}));
    // align_corners is read: the NPU has no such resize, so the node stays with the host.
    params.align_corners = true;
    Host aligned(tensors, {NodeSpec{23, &params, {0, 1}, {2}}});
    expectFallback(aligned, 23);
}

TEST_F(VxBuiltinData, PadAndMeanKeepDims) {
    Host pad({f32({1, 2}), i32({2, 2}, {0, 0, 1, 1}), f32({1, 4})}, {NodeSpec{34, nullptr, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(pad, {{3, 4}}, 2), (F{0, 3, 4, 0}));
    TfLiteReducerParams keep{true};
    Host mean({f32({1, 2, 2, 1}), i32({2}, {1, 2}), f32({1, 1, 1, 1})}, {NodeSpec{40, &keep, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(mean, {{1, 2, 3, 6}}, 2), (F{3}));
}

TEST_F(VxBuiltinData, ArgMaxOutputType) {
    TfLiteArgMaxParams params{kTfLiteInt32};
    Host host({f32({1, 4}), i32({1}, {1}), TensorSpec{kTfLiteInt32, {1}, {}, 0.0f, 0}}, {NodeSpec{56, &params, {0, 1}, {2}}});
    EXPECT_EQ(run(host, {{1, 7, 3, 2}}, 2), bytes(std::vector<int32_t>{1}));
}

TEST_F(VxBuiltinData, TransposeConvStride) {
    TfLiteTransposeConvParams params{kTfLitePaddingValid, 2, 2, kTfLiteActNone};
    Host host({i32({4}, {1, 3, 3, 1}), f32({1, 1, 1, 1}, {2}), f32({1, 2, 2, 1}), f32({1, 3, 3, 1})},
              {NodeSpec{67, &params, {0, 1, 2}, {3}}});
    // Stride 2 with a 1x1 kernel: the inputs land two apart, zeros between.
    EXPECT_EQ(runFloat(host, {{1, 2, 3, 4}}, 3), (F{2, 0, 4, 0, 0, 0, 6, 0, 8}));
}

TEST_F(VxBuiltinData, OperatorsWithoutParams) {
    Host maximum({f32({1, 3}), f32({1, 3}, {2, 2, 2}), f32({1, 3})}, {NodeSpec{55, nullptr, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(maximum, {{1, 2, 3}}, 2), (F{2, 2, 3}));
    Host prelu({f32({1, 3}), f32({3}, {0.5f, 0.5f, 0.5f}), f32({1, 3})}, {NodeSpec{54, nullptr, {0, 1}, {2}}});
    EXPECT_EQ(runFloat(prelu, {{-2, 0, 3}}, 2), (F{-1, 0, 3}));
}

// Params the mapping cannot express keep the node with the host, with the board's warning.
TEST_F(VxBuiltinData, UnknownPaddingFallsBackToTheHost) {
    TfLiteConvParams params{.padding = kTfLitePaddingUnknown, .stride_width = 1, .stride_height = 1,
                            .activation = kTfLiteActNone, .dilation_width_factor = 1, .dilation_height_factor = 1};
    Host host({f32({1, 2, 2, 1}), f32({1, 1, 1, 1}, {1}), f32({1}, {0}), f32({1, 2, 2, 1})},
              {NodeSpec{3, &params, {0, 1, 2}, {3}}});
    expectFallback(host, 3);
}

}  // namespace
