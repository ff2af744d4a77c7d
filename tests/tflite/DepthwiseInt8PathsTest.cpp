// The CPU path's 8-bit depthwise has two paths for a depth multiplier of 1: row passes over int16
// copies of the input rows, and with AVX-512BW the sums in registers from the input's bytes, the
// zero point taken off through the bias (DepthwiseInt8Lanes.h). Real TFLite checks whichever
// path this CPU takes (RealTfliteQuantConvRandom, RealTfliteConv); here the register sums are
// checked against a plain loop, and whole nodes on random shapes give the same bytes both ways.
#include <limits>
#include <random>

#include "GraphBuilder.h"
#include "TestSupport.h"
#include "cpu/DepthwiseInt8Lanes.h"

namespace nnemu::tflite::test {
namespace {

TEST(DepthwiseInt8Paths, RegisterSumsAreThePlainSums) {
    if (!kernels::depthwise_int8::registerPathAvailable()) GTEST_SKIP() << "no AVX-512BW and VL on this CPU";
    std::mt19937 random(31);
    for (int i = 0; i < 300; ++i) {
        const size_t channels = 1 + random() % 90, count = 1 + random() % 12, pixels = 1 + random() % 5;
        const bool unsignedInput = i % 2 == 0;
        std::vector<uint8_t> image(channels * 8), padding(channels, static_cast<uint8_t>(random()));
        for (uint8_t& v : image) v = static_cast<uint8_t>(random());
        std::vector<const uint8_t*> taps(pixels * count);
        for (const uint8_t*& t : taps) t = random() % 4 == 0 ? padding.data() : image.data() + (random() % 8) * channels;
        std::vector<int32_t> filter(count * channels), bias(channels);
        for (int32_t& w : filter) w = static_cast<int32_t>(random() % 511) - 255;
        // Biases near the int32 limits: the sums wrap, as TFLite's do on x86.
        for (int32_t& b : bias) b = static_cast<int32_t>(random());
        std::vector<int32_t> sums(pixels * channels + 16, 7);
        kernels::depthwise_int8::rowSumsAvx512(taps.data(), pixels, count, filter.data(), bias.data(), channels,
                                               unsignedInput, sums.data());
        for (size_t p = 0; p < pixels; ++p) {
            for (size_t c = 0; c < channels; ++c) {
                uint32_t want = static_cast<uint32_t>(bias[c]);
                for (size_t t = 0; t < count; ++t) {
                    const uint8_t byte = taps[p * count + t][c];
                    const int32_t value = unsignedInput ? int32_t{byte} : int32_t{static_cast<int8_t>(byte)};
                    want += static_cast<uint32_t>(value * filter[t * channels + c]);
                }
                ASSERT_EQ(static_cast<uint32_t>(sums[p * channels + c]), want)
                        << "case " << i << ", pixel " << p << ", channel " << c;
            }
        }
        for (size_t k = pixels * channels; k < sums.size(); ++k) ASSERT_EQ(sums[k], 7) << "case " << i << ": wrote past the end";
    }
}

// The register sums requantized in registers give the bytes of requantizeFp32Rows on those sums:
// every channel count (the masked last vector, the 64-channel steps), scales that overflow,
// vanish or are NaN; nothing written past the last pixel.
TEST(DepthwiseInt8Paths, RegisterSumsRequantizedInRegistersGiveTheRowBytes) {
    if (!kernels::depthwise_int8::registerPathAvailable()) GTEST_SKIP() << "no AVX-512BW and VL on this CPU";
    std::mt19937 random(33);
    const float odd[] = {0.0f, 1e-38f, 3e38f, std::numeric_limits<float>::infinity(), 1.0f, 0.5f};
    for (int i = 0; i < 300; ++i) {
        const size_t channels = 1 + random() % 150, count = 1 + random() % 12, pixels = 1 + random() % 5;
        const bool unsignedInput = i % 2 == 0;
        std::vector<uint8_t> image(channels * 8), padding(channels, static_cast<uint8_t>(random()));
        for (uint8_t& v : image) v = static_cast<uint8_t>(random());
        std::vector<const uint8_t*> taps(pixels * count);
        for (const uint8_t*& t : taps) t = random() % 4 == 0 ? padding.data() : image.data() + (random() % 8) * channels;
        std::vector<int32_t> filter(count * channels), bias(channels);
        for (int32_t& w : filter) w = static_cast<int32_t>(random() % 511) - 255;
        for (int32_t& b : bias) b = i % 3 == 0 ? static_cast<int32_t>(random()) : static_cast<int32_t>(random() % 20001) - 10000;
        std::vector<float> scale(channels);
        for (float& s : scale) s = random() % 10 == 0 ? odd[random() % 6] : 1e-4f + static_cast<float>(random() % 1000) * 1e-5f;
        const int32_t zeroPoint = static_cast<int32_t>(random() % 256) - (unsignedInput ? 0 : 128);
        const kernels::conv::Fp32Requantization r{nullptr, scale.data(), zeroPoint, unsignedInput ? 0 : -128,
                                                  unsignedInput ? 255 : 127};
        std::vector<int32_t> sums(pixels * channels + 16);
        kernels::depthwise_int8::rowSumsAvx512(taps.data(), pixels, count, filter.data(), bias.data(), channels,
                                               unsignedInput, sums.data());
        std::vector<uint8_t> want(pixels * channels), got(pixels * channels + 1, 77);
        if (unsignedInput) {
            kernels::conv::requantizeFp32Rows(sums.data(), pixels, channels, channels, r, want.data());
        } else {
            kernels::conv::requantizeFp32Rows(sums.data(), pixels, channels, channels, r,
                                              reinterpret_cast<int8_t*>(want.data()));
        }
        kernels::depthwise_int8::rowRequantizedAvx512(taps.data(), pixels, count, filter.data(), bias.data(), channels,
                                                      unsignedInput, r, got.data());
        EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end() - 1), want) << "case " << i;
        EXPECT_EQ(got.back(), 77) << "case " << i << ": wrote past the end";
    }
}

// One DEPTHWISE_CONV_2D node on random shapes, zero points, scales and geometry, run on the CPU
// path in both semantics with the register path allowed and not: the same output bytes.
TEST(DepthwiseInt8Paths, BothPathsGiveTheSameBytes) {
    std::mt19937 random(32);
    const auto pick = [&](int32_t low, int32_t high) { return low + static_cast<int32_t>(random() % (high - low + 1)); };
    for (int i = 0; i < 40; ++i) {
        const bool unsignedForm = i % 3 == 0;
        const fb::TensorType type = unsignedForm ? fb::TensorType_UINT8 : fb::TensorType_INT8;
        const int32_t k = pick(1, 5), stride = pick(1, 2), dilation = i % 5 == 0 ? 2 : 1, c = pick(1, 70);
        const int32_t h = pick(k * dilation, 11), w = pick(k * dilation, 11);
        const fb::Padding padding = pick(0, 1) ? fb::Padding_SAME : fb::Padding_VALID;
        const auto outSize = [&](int32_t in) {
            return padding == fb::Padding_SAME ? (in + stride - 1) / stride : (in - (k - 1) * dilation - 1) / stride + 1;
        };
        const int32_t low = unsignedForm ? 0 : -128;
        std::vector<uint8_t> weights(static_cast<size_t>(k) * k * c), input(static_cast<size_t>(h) * w * c);
        for (uint8_t& v : weights) v = static_cast<uint8_t>(unsignedForm ? random() : pick(-127, 127));
        for (uint8_t& v : input) v = static_cast<uint8_t>(random());
        std::vector<int32_t> biasValues(static_cast<size_t>(c));
        for (int32_t& b : biasValues) b = pick(-5000, 5000);
        GraphBuilder g;
        const int32_t in = g.tensor({1, h, w, c}, type, {}, {0.02f + 0.001f * static_cast<float>(i)}, {pick(low, low + 255)});
        const int32_t filter = unsignedForm ? g.tensor({1, k, k, c}, type, weights, {0.01f}, {pick(0, 255)})
                                            : g.tensor({1, k, k, c}, type, weights, {0.01f}, {0});
        const int32_t bias = g.tensor({c}, fb::TensorType_INT32, GraphBuilder::bytes(biasValues), {0.0002f}, {0});
        const int32_t out = g.tensor({1, outSize(h), outSize(w), c}, type, {}, {0.05f}, {pick(low, low + 255)});
        const auto act = static_cast<fb::ActivationFunctionType>(i % 2 == 0 ? fb::ActivationFunctionType_RELU6
                                                                             : fb::ActivationFunctionType_NONE);
        g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {in, filter, bias}, {out}, fb::BuiltinOptions_DepthwiseConv2DOptions,
             [=](flatbuffers::FlatBufferBuilder& fbb) {
                 return fb::CreateDepthwiseConv2DOptions(fbb, padding, stride, stride, 1, act, dilation, dilation).Union();
             });
        g.inputs = {in};
        g.outputs = {out};
        const std::vector<uint8_t> bytes = g.buildBytes();
        std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
        ASSERT_NE(model, nullptr);
        for (const bool xnnpack : {true, false}) {
            SCOPED_TRACE("case " + std::to_string(i) + (xnnpack ? ", XNNPACK's arithmetic" : ", builtin arithmetic"));
            DelegateOptions options;
            options.xnnpack = xnnpack;
            std::vector<std::vector<uint8_t>> outputs;
            for (const bool registers : {true, false}) {
                kernels::depthwise_int8::allowRegisterPath(registers);
                std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, options));
                kernels::depthwise_int8::allowRegisterPath(true);
                ASSERT_NE(interpreter, nullptr);
                std::memcpy(interpreter->inputData(0), input.data(), input.size());
                kernels::depthwise_int8::allowRegisterPath(registers);
                const Status ran = interpreter->invoke();
                kernels::depthwise_int8::allowRegisterPath(true);
                ASSERT_TRUE(isOk(ran)) << ran.message();
                outputs.emplace_back(interpreter->outputData(0), interpreter->outputData(0) + interpreter->outputTensor(0).byteSize());
            }
            EXPECT_EQ(outputs[0], outputs[1]);
        }
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
