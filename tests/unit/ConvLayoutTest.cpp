// The reference device's convolution kernels have fast NHWC paths (CONV_2D with one group: the
// blocked GEMM of ConvGemm.h, 16 output channels and up to 4 pixels at a time; grouped: channels
// as contiguous runs, quantized sums as 8-bit dot products) and the generic per-element path,
// which NCHW still takes.
// Random CONV_2D, GROUPED_CONV_2D and DEPTHWISE_CONV_2D operations (padding, strides, dilation,
// depth multipliers, fused activations, float32 / quant8 / signed quant8) run in both layouts
// must give the same bytes: both paths add the same products in the same order per element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "SingleOperation.h"

namespace nnemu::testing {
namespace {

using hal::OperandType;
using hal::OperationType;

struct ConvCase {
    OperationType type = OperationType::CONV_2D;
    OperandType dataType = OperandType::TENSOR_FLOAT32;
    uint32_t batches = 1, height = 1, width = 1, inChannels = 1, outChannels = 1;
    uint32_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1, groups = 1, multiplier = 1;
    int32_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0, activation = 0;
};

uint32_t outSize(uint32_t in, int32_t padA, int32_t padB, uint32_t kernel, uint32_t dilation, uint32_t stride) {
    const int64_t span = static_cast<int64_t>(in) + padA + padB - ((kernel - 1) * dilation + 1);
    return span < 0 ? 0 : static_cast<uint32_t>(span / stride + 1);
}

// NHWC data of `dims` to NCHW.
std::vector<uint8_t> toNchw(const std::vector<uint8_t>& nhwc, const std::vector<uint32_t>& dims, size_t element) {
    const uint32_t n = dims[0], h = dims[1], w = dims[2], c = dims[3];
    std::vector<uint8_t> out(nhwc.size());
    for (uint32_t b = 0; b < n; ++b)
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x)
                for (uint32_t k = 0; k < c; ++k) {
                    const size_t from = (((static_cast<size_t>(b) * h + y) * w + x) * c + k) * element;
                    const size_t to = (((static_cast<size_t>(b) * c + k) * h + y) * w + x) * element;
                    std::memcpy(out.data() + to, nhwc.data() + from, element);
                }
    return out;
}

std::vector<uint8_t> randomBytes(std::mt19937& random, OperandType type, size_t count) {
    std::vector<uint8_t> bytes;
    if (type == OperandType::TENSOR_FLOAT32) {
        std::uniform_real_distribution<float> value(-2.0f, 2.0f);
        std::vector<float> values(count);
        for (float& v : values) v = value(random);
        return bytesOf(values);
    }
    if (type == OperandType::TENSOR_INT32) {
        std::uniform_int_distribution<int32_t> value(-3000, 3000);
        std::vector<int32_t> values(count);
        for (int32_t& v : values) v = value(random);
        return bytesOf(values);
    }
    std::uniform_int_distribution<int> value(0, 255);
    bytes.resize(count);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(value(random));
    return bytes;
}

RunResult runCase(const ConvCase& c, bool nchw, const std::vector<uint8_t>& inputNhwc,
                  const std::vector<uint8_t>& filter, const std::vector<uint8_t>& bias) {
    const bool quant = c.dataType != OperandType::TENSOR_FLOAT32;
    const OperandType biasType = quant ? OperandType::TENSOR_INT32 : OperandType::TENSOR_FLOAT32;
    const int32_t zero = !quant ? 0 : c.dataType == OperandType::TENSOR_QUANT8_ASYMM ? 120 : -7;
    const float inScale = quant ? 0.05f : 0.0f, filterScale = quant ? 0.02f : 0.0f;
    const std::vector<uint32_t> inDims = {c.batches, c.height, c.width, c.inChannels};
    const uint32_t outH = outSize(c.height, c.padTop, c.padBottom, c.kernelH, c.dilationH, c.strideH);
    const uint32_t outW = outSize(c.width, c.padLeft, c.padRight, c.kernelW, c.dilationW, c.strideW);
    const std::vector<uint32_t> outDims = {c.batches, outH, outW, c.outChannels};
    const size_t element = quant ? 1 : 4;
    const auto layout = [&](std::vector<uint32_t> d) {
        return nchw ? std::vector<uint32_t>{d[0], d[3], d[1], d[2]} : d;
    };
    const std::vector<uint32_t> filterDims = c.type == OperationType::DEPTHWISE_CONV_2D
                                                     ? std::vector<uint32_t>{1, c.kernelH, c.kernelW, c.outChannels}
                                                     : std::vector<uint32_t>{c.outChannels, c.kernelH, c.kernelW,
                                                                             c.inChannels / c.groups};
    std::vector<TestOperand> inputs = {
        {c.dataType, layout(inDims), nchw ? toNchw(inputNhwc, inDims, element) : inputNhwc, inScale, zero, true, false},
        {c.dataType, filterDims, filter, filterScale, quant ? zero / 2 : 0, false, false},
        {biasType, {c.outChannels}, bias, inScale * filterScale, 0, false, false},
        scalar(OperandType::INT32, c.padLeft), scalar(OperandType::INT32, c.padRight),
        scalar(OperandType::INT32, c.padTop), scalar(OperandType::INT32, c.padBottom),
        scalar(OperandType::INT32, static_cast<int32_t>(c.strideW)),
        scalar(OperandType::INT32, static_cast<int32_t>(c.strideH))};
    if (c.type == OperationType::DEPTHWISE_CONV_2D) {
        inputs.push_back(scalar(OperandType::INT32, static_cast<int32_t>(c.multiplier)));
    }
    if (c.type == OperationType::GROUPED_CONV_2D) inputs.push_back(scalar(OperandType::INT32, static_cast<int32_t>(c.groups)));
    inputs.push_back(scalar(OperandType::INT32, c.activation));
    inputs.push_back(scalar(OperandType::BOOL, static_cast<uint8_t>(nchw ? 1 : 0)));
    if (c.type != OperationType::GROUPED_CONV_2D) {
        inputs.push_back(scalar(OperandType::INT32, static_cast<int32_t>(c.dilationW)));
        inputs.push_back(scalar(OperandType::INT32, static_cast<int32_t>(c.dilationH)));
    }
    // An output scale that keeps most sums inside the 8-bit range (products summed per output).
    const uint32_t perOutput = c.kernelH * c.kernelW *
                               (c.type == OperationType::DEPTHWISE_CONV_2D ? 1 : c.inChannels / c.groups);
    const float outScale = quant ? inScale * filterScale * 150.0f * static_cast<float>(perOutput) : 0.0f;
    const int32_t outZero = c.dataType == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0;
    return runSingleOperation(c.type, inputs, {sizedOutput(c.dataType, layout(outDims), outScale, outZero)});
}

ConvCase randomCase(std::mt19937& random, OperationType type, OperandType dataType) {
    const auto pick = [&](uint32_t low, uint32_t high) { return std::uniform_int_distribution<uint32_t>(low, high)(random); };
    ConvCase c;
    c.type = type;
    c.dataType = dataType;
    c.batches = pick(1, 2);
    c.height = pick(3, 9);
    c.width = pick(3, 14);   // runs of 4 pixels with windows inside the input, and borders
    c.kernelH = pick(1, 3);
    c.kernelW = pick(1, 3);
    c.strideH = pick(1, 2);
    c.strideW = pick(1, 2);
    c.dilationH = type == OperationType::GROUPED_CONV_2D ? 1 : pick(1, 2);
    c.dilationW = type == OperationType::GROUPED_CONV_2D ? 1 : pick(1, 2);
    c.groups = type == OperationType::GROUPED_CONV_2D ? pick(2, 3) : 1;
    c.multiplier = type == OperationType::DEPTHWISE_CONV_2D ? pick(1, 2) : 1;
    c.inChannels = c.groups * pick(1, 20);
    // CONV_2D: whole blocks of 16 output channels and a partial one.
    c.outChannels = type == OperationType::DEPTHWISE_CONV_2D ? c.inChannels * c.multiplier
                    : type == OperationType::CONV_2D         ? pick(1, 40)
                                                             : c.groups * pick(1, 6);
    c.padLeft = static_cast<int32_t>(pick(0, 2));
    c.padRight = static_cast<int32_t>(pick(0, 2));
    c.padTop = static_cast<int32_t>(pick(0, 2));
    c.padBottom = static_cast<int32_t>(pick(0, 2));
    c.activation = static_cast<int32_t>(pick(0, 3));
    return c;
}

void expectLayoutsAgree(OperationType type, OperandType dataType) {
    std::mt19937 random(20261129u + static_cast<uint32_t>(type) * 7 + static_cast<uint32_t>(dataType));
    int compared = 0;
    size_t saturated = 0, total = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const ConvCase c = randomCase(random, type, dataType);
        const bool quant = dataType != OperandType::TENSOR_FLOAT32;
        const size_t filterCount = static_cast<size_t>(c.kernelH) * c.kernelW *
                                   (type == OperationType::DEPTHWISE_CONV_2D ? c.outChannels
                                                                             : c.outChannels * (c.inChannels / c.groups));
        const std::vector<uint8_t> input =
                randomBytes(random, dataType, static_cast<size_t>(c.batches) * c.height * c.width * c.inChannels);
        const std::vector<uint8_t> filter = randomBytes(random, dataType, filterCount);
        const std::vector<uint8_t> bias =
                randomBytes(random, quant ? OperandType::TENSOR_INT32 : OperandType::TENSOR_FLOAT32, c.outChannels);
        const RunResult nhwc = runCase(c, false, input, filter, bias);
        const RunResult nchw = runCase(c, true, input, filter, bias);
        ASSERT_EQ(nhwc.status, nchw.status) << "trial " << trial << ": " << nhwc.why << " / " << nchw.why;
        if (nhwc.status != hal::ErrorStatus::NONE) continue;  // a window larger than the padded input
        const std::vector<uint32_t>& d = nhwc.dims[0];
        EXPECT_EQ(toNchw(nhwc.outputs[0], d, quant ? 1 : 4), nchw.outputs[0]) << "trial " << trial;
        ++compared;
        if (quant) saturated += std::count_if(nhwc.outputs[0].begin(), nhwc.outputs[0].end(), [&](uint8_t v) {
            return dataType == OperandType::TENSOR_QUANT8_ASYMM ? (v == 0 || v == 255) : (v == 0x80 || v == 0x7f);
        });
        if (quant) total += nhwc.outputs[0].size();
    }
    EXPECT_GT(compared, 20);
    EXPECT_LT(saturated * 4, total + 1) << "most outputs saturate: the comparison would see little";
}

TEST(ConvLayout, Conv2DFloat) { expectLayoutsAgree(OperationType::CONV_2D, OperandType::TENSOR_FLOAT32); }
TEST(ConvLayout, Conv2DQuant8) { expectLayoutsAgree(OperationType::CONV_2D, OperandType::TENSOR_QUANT8_ASYMM); }
TEST(ConvLayout, Conv2DQuant8Signed) {
    expectLayoutsAgree(OperationType::CONV_2D, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
}
TEST(ConvLayout, GroupedConv2DFloat) { expectLayoutsAgree(OperationType::GROUPED_CONV_2D, OperandType::TENSOR_FLOAT32); }
TEST(ConvLayout, GroupedConv2DQuant8) {
    expectLayoutsAgree(OperationType::GROUPED_CONV_2D, OperandType::TENSOR_QUANT8_ASYMM);
}
TEST(ConvLayout, DepthwiseFloat) { expectLayoutsAgree(OperationType::DEPTHWISE_CONV_2D, OperandType::TENSOR_FLOAT32); }
TEST(ConvLayout, DepthwiseQuant8Signed) {
    expectLayoutsAgree(OperationType::DEPTHWISE_CONV_2D, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
}

}  // namespace
}  // namespace nnemu::testing
