// Differential test against real TensorFlow Lite 2.21: the 8-bit CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED (uint8 per tensor; int8 with per-tensor and per-channel weights) on seeded
// random shapes, strides, dilations, depth multipliers, paddings, activations, scales and zero
// points, each model run on random bytes through nnemu's CPU path and through tflite_run's
// builtin kernels, byte for byte. Scales are drawn log-uniformly, never round: with round scales
// (0.02 x 0.01) the float and the double products of the scales give the same multiplier, which
// hides a wrong derivation; here most multipliers differ in their low bits between the two. Such a
// difference moves an output only about once in a million, so each form runs 256 cases (millions
// of outputs for the depthwise and fully connected forms): with NNAPI's float-product multipliers
// the int8 DEPTHWISE_CONV_2D (nnapi-reference) failed 6 of them, per channel and per tensor, and the
// int8 FULLY_CONNECTED with one weight scale (the tools' kernel, then with the double product) 2.
// The generator's seed is fixed, so a failure names a case that reproduces. XnnpackPathAsTflite
// runs the same cases against TFLite's default delegate (tflite_run --xnnpack=1) with nnemu's
// CPU path computing XNNPACK's arithmetic (DelegateOptions::xnnpack).
#include <array>
#include <cmath>
#include <cstdio>
#include <random>

#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

enum class Kind { Conv, Depthwise, FullyConnected };

struct QuantCase {
    Kind kind = Kind::Conv;
    fb::TensorType type = fb::TensorType_INT8;
    bool perChannel = false;
    std::vector<int32_t> input, filter, output;   // NHWC / OHWI / [1, h, w, channels]; FC: [rows, depth], [units, depth]
    int stride = 1, dilation = 1, multiplier = 1;
    bool same = false, hasBias = true;
    fb::ActivationFunctionType activation = fb::ActivationFunctionType_NONE;
    float inScale = 0, outScale = 0;
    std::vector<float> filterScales;
    int64_t inZero = 0, outZero = 0, filterZero = 0;
};

std::string shapeText(const std::vector<int32_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

std::string describe(const QuantCase& c) {
    const char* kinds[] = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"};
    std::string text = std::string(kinds[static_cast<int>(c.kind)]) + (c.type == fb::TensorType_UINT8 ? " uint8" : " int8") +
                       (c.perChannel ? " per-channel" : " per-tensor") + " in " + shapeText(c.input) + " filter " +
                       shapeText(c.filter) + " out " + shapeText(c.output);
    if (c.kind != Kind::FullyConnected) {
        text += " stride " + std::to_string(c.stride) + " dilation " + std::to_string(c.dilation) +
                (c.same ? " SAME" : " VALID");
    }
    if (c.kind == Kind::Depthwise) text += " multiplier " + std::to_string(c.multiplier);
    char scales[160];
    std::snprintf(scales, sizeof scales, " act %d scales in %.9g/%lld filter %.9g/%lld out %.9g/%lld%s",
                  static_cast<int>(c.activation), c.inScale, static_cast<long long>(c.inZero), c.filterScales[0],
                  static_cast<long long>(c.filterZero), c.outScale, static_cast<long long>(c.outZero),
                  c.hasBias ? "" : " no bias");
    return text + scales;
}

int32_t outputSize(bool same, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
    const int32_t effective = (filter - 1) * dilation + 1;
    return same ? (in + stride - 1) / stride : (in - effective + stride) / stride;
}

class QuantCases {
public:
    explicit QuantCases(uint32_t seed) : random_(seed) {}

    QuantCase next(Kind kind, fb::TensorType type, bool perChannel) {
        QuantCase c;
        c.kind = kind;
        c.type = type;
        c.perChannel = perChannel;
        c.activation = std::array{fb::ActivationFunctionType_NONE, fb::ActivationFunctionType_RELU,
                                  fb::ActivationFunctionType_RELU_N1_TO_1, fb::ActivationFunctionType_RELU6}[pick(4)];
        // TFLite 2.21's 8-bit CONV_2D refuses a missing bias and its DEPTHWISE_CONV_2D crashes
        // without one: only FULLY_CONNECTED goes without, one time in six.
        c.hasBias = kind != Kind::FullyConnected || pick(6) != 0;
        // Shapes large enough that a multiplier derived otherwise than TFLite's shows: such a
        // multiplier moves an output across a rounding boundary about once in 10^5 to 10^6 outputs
        // (the float and the double product of two scales are 2^-25 apart on average), so each
        // form's cases hold a few million outputs (the convolutions fewer: their windows are deep).
        int32_t channels = 0, taps = 0;
        if (kind == Kind::FullyConnected) {
            const int32_t rows = 1 + pick(512), depth = 1 + pick(256), units = 1 + pick(512);
            c.input = {rows, depth};
            c.filter = {units, depth};
            c.output = {rows, units};
            channels = units;
            taps = depth;
        } else {
            // A window that fits the input in VALID padding.
            const int32_t kh = 1 + pick(4), kw = 1 + pick(4);
            c.stride = 1 + pick(3);
            c.dilation = pick(3) == 0 ? 2 + pick(2) : 1;
            c.same = pick(2) == 0;
            const int32_t extent = kind == Kind::Depthwise ? 64 : 16;
            const int32_t h = (kh - 1) * c.dilation + 1 + pick(extent), w = (kw - 1) * c.dilation + 1 + pick(extent);
            const int32_t depth = 1 + pick(kind == Kind::Depthwise ? 64 : 24);
            c.input = {1 + pick(2), h, w, depth};
            if (kind == Kind::Depthwise) {
                c.multiplier = pick(3) == 0 ? 2 + pick(2) : 1;
                channels = depth * c.multiplier;
                c.filter = {1, kh, kw, channels};
                taps = kh * kw;
            } else {
                channels = 1 + pick(48);
                c.filter = {channels, kh, kw, depth};
                taps = kh * kw * depth;
            }
            c.output = {c.input[0], outputSize(c.same, h, kh, c.stride, c.dilation),
                        outputSize(c.same, w, kw, c.stride, c.dilation), channels};
        }
        quantize(&c, channels, taps);
        return c;
    }

    std::vector<uint8_t> bytes(size_t count) {
        std::vector<uint8_t> data(count);
        for (uint8_t& b : data) b = static_cast<uint8_t>(pick(256));
        return data;
    }
    // int8 weights as converters write them: [-127, 127].
    std::vector<uint8_t> weights(const QuantCase& c) {
        std::vector<uint8_t> data(elementCount(c.filter));
        for (uint8_t& b : data) b = static_cast<uint8_t>(c.type == fb::TensorType_INT8 ? pick(255) - 127 : pick(256));
        return data;
    }
    std::vector<uint8_t> bias(size_t count) {
        std::vector<int32_t> values(count);
        for (int32_t& v : values) v = pick(40001) - 20000;
        return GraphBuilder::bytes(values);
    }

    int32_t pick(int32_t n) { return std::uniform_int_distribution<int32_t>(0, n - 1)(random_); }
    float logUniform(double low, double high) {
        return static_cast<float>(std::exp(std::uniform_real_distribution<double>(std::log(low), std::log(high))(random_)));
    }

private:
    // Scales log-uniform; the output's chosen so that outputs spread over most of the 8-bit range
    // (times a random factor, some saturating), the zero points anywhere in the type's range.
    void quantize(QuantCase* c, int32_t channels, int32_t taps) {
        const bool isSigned = c->type == fb::TensorType_INT8;
        const auto zero = [&] { return static_cast<int64_t>(pick(256)) - (isSigned ? 128 : 0); };
        c->inScale = logUniform(0.001, 0.5);
        c->inZero = zero();
        const int32_t scales = c->perChannel ? channels : 1;
        for (int32_t i = 0; i < scales; ++i) c->filterScales.push_back(logUniform(0.0005, 0.05));
        c->filterZero = isSigned ? 0 : zero();
        const double spread = std::sqrt(static_cast<double>(taps)) * 75.0 * 75.0 / 80.0;
        c->outScale = static_cast<float>(c->inScale * c->filterScales[0] * spread * logUniform(0.25, 4.0));
        c->outZero = zero();
    }

    std::mt19937 random_;
};

// SAME padding whose total is negative along a dimension (the dilated kernel shorter than the
// stride, the input not a multiple of it): TFLite pads nothing there, while real TFLite's XNNPACK
// delegate gives outputs that do not depend on the input (seen on a uint8 CONV_2D with a 4x1
// kernel at stride 2; int8 ones differ too). nnemu computes TFLite's geometry: such cases are not
// compared against --xnnpack=1 (docs/tflite.md, known gaps).
bool negativeSamePadding(const QuantCase& c) {
    if (c.kind == Kind::FullyConnected || !c.same) return false;
    for (int d = 1; d <= 2; ++d) {
        const int32_t effective = (c.filter[static_cast<size_t>(d)] - 1) * c.dilation + 1;
        if ((c.output[static_cast<size_t>(d)] - 1) * c.stride + effective - c.input[static_cast<size_t>(d)] < 0) return true;
    }
    return false;
}

// xnnpack: against tflite_run --xnnpack=1, nnemu's CPU path as TFLite's default delegate.
void expectAsTflite(const QuantCase& c, QuantCases& random, bool xnnpack = false) {
    SCOPED_TRACE(describe(c));
    const size_t channels = static_cast<size_t>(c.kind == Kind::FullyConnected ? c.filter[0] : c.output[3]);
    GraphBuilder g;
    const int32_t in = g.tensor(c.input, c.type, {}, {c.inScale}, {c.inZero});
    // Per channel along the output channels: dimension 0 of CONV_2D's and FULLY_CONNECTED's
    // weights, 3 of DEPTHWISE_CONV_2D's.
    // Against XNNPACK, a uint8 depthwise filter along dimension 3 is one the delegate leaves
    // (XnnpackForms.cpp): half of those cases (even filter zero points) write dimension 0, which it
    // takes.
    const bool alongDimension3 = !xnnpack || c.type != fb::TensorType_UINT8 || c.filterZero % 2 != 0;
    const int32_t axis = c.kind == Kind::Depthwise && alongDimension3 ? 3 : 0;
    const int32_t filter = g.tensor(c.filter, c.type, random.weights(c), c.filterScales,
                                    std::vector<int64_t>(c.filterScales.size(), c.filterZero), axis);
    std::vector<int32_t> inputs = {in, filter};
    if (c.hasBias) {
        // The bias at input scale x filter scale (the float product, as converters write it).
        std::vector<float> biasScales;
        for (const float s : c.filterScales) biasScales.push_back(c.inScale * s);
        inputs.push_back(g.tensor({static_cast<int32_t>(channels)}, fb::TensorType_INT32, random.bias(channels),
                                  biasScales, std::vector<int64_t>(biasScales.size(), 0)));
    }
    const int32_t out = g.tensor(c.output, c.type, {}, {c.outScale}, {c.outZero});
    const QuantCase k = c;
    switch (c.kind) {
        case Kind::Conv:
            g.op(fb::BuiltinOperator_CONV_2D, inputs, {out}, fb::BuiltinOptions_Conv2DOptions,
                 [k](flatbuffers::FlatBufferBuilder& b) {
                     return fb::CreateConv2DOptions(b, k.same ? fb::Padding_SAME : fb::Padding_VALID, k.stride, k.stride,
                                                    k.activation, k.dilation, k.dilation)
                             .Union();
                 });
            break;
        case Kind::Depthwise:
            g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, inputs, {out}, fb::BuiltinOptions_DepthwiseConv2DOptions,
                 [k](flatbuffers::FlatBufferBuilder& b) {
                     return fb::CreateDepthwiseConv2DOptions(b, k.same ? fb::Padding_SAME : fb::Padding_VALID, k.stride,
                                                             k.stride, k.multiplier, k.activation, k.dilation, k.dilation)
                             .Union();
                 });
            break;
        case Kind::FullyConnected:
            g.op(fb::BuiltinOperator_FULLY_CONNECTED, inputs, {out}, fb::BuiltinOptions_FullyConnectedOptions,
                 [k](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b, k.activation).Union(); });
            break;
    }
    g.inputs = {in};
    g.outputs = {out};
    expectCpuPathAsRealTflite(g.buildBytes(), {random.bytes(elementCount(c.input))}, 4, {}, xnnpack);
}

constexpr int kCasesPerForm = 256;   // a few seconds per form

// One form: a builtin, its type, per-channel weights or not, and the seed of its cases.
struct Form {
    const char* name;
    Kind kind;
    fb::TensorType type;
    bool perChannel;
    uint32_t seed;
};

class RealTfliteQuantConvRandom : public testing::TestWithParam<Form> {};

TEST_P(RealTfliteQuantConvRandom, CpuPathAsTflite) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const Form& form = GetParam();
    QuantCases random(form.seed);
    for (int i = 0; i < kCasesPerForm && !HasFatalFailure(); ++i) {
        expectAsTflite(random.next(form.kind, form.type, form.perChannel), random);
    }
}

// The same cases against TFLite's default delegate, which claims every one of these forms
// (XnnpackForms.cpp): XNNPACK's float requantization, byte for byte.
TEST_P(RealTfliteQuantConvRandom, XnnpackPathAsTflite) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const Form& form = GetParam();
    QuantCases random(form.seed);
    for (int i = 0; i < kCasesPerForm && !HasFatalFailure(); ++i) {
        const QuantCase c = random.next(form.kind, form.type, form.perChannel);
        if (negativeSamePadding(c)) continue;   // drawn all the same: the later cases stay as they are
        expectAsTflite(c, random, true);
    }
}

constexpr fb::TensorType kInt8 = fb::TensorType_INT8, kUint8 = fb::TensorType_UINT8;
INSTANTIATE_TEST_SUITE_P(Forms, RealTfliteQuantConvRandom,
                         testing::Values(Form{"DepthwiseInt8PerChannel", Kind::Depthwise, kInt8, true, 101},
                                         Form{"DepthwiseInt8PerTensor", Kind::Depthwise, kInt8, false, 102},
                                         Form{"DepthwiseUint8", Kind::Depthwise, kUint8, false, 103},
                                         Form{"ConvInt8PerChannel", Kind::Conv, kInt8, true, 201},
                                         Form{"ConvInt8PerTensor", Kind::Conv, kInt8, false, 202},
                                         Form{"ConvUint8", Kind::Conv, kUint8, false, 203},
                                         Form{"FullyConnectedInt8PerChannel", Kind::FullyConnected, kInt8, true, 301},
                                         Form{"FullyConnectedInt8PerTensor", Kind::FullyConnected, kInt8, false, 302},
                                         Form{"FullyConnectedUint8", Kind::FullyConnected, kUint8, false, 303}),
                         [](const testing::TestParamInfo<Form>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nnemu::tflite::test
