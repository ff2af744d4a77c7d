// int8 CONV_2D on the CPU path with TFLite's x86 rounding (ruy's: the requantization's final
// rounding shift takes ties up) against a plain convolution, on random shapes and data; the
// delegate on nnapi-reference keeps NNAPI's rounding (ties away from zero) on the same models.
#include <limits>
#include <random>

#include "CpuKernelHarness.h"
#include "cpu/ConvInt8.h"
#include "cpu/ConvInt8Gemm.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

// x * m * 2^shift in exact steps: (x 2^left) m / 2^31 rounded to nearest with ties up (as both
// gemmlowp's and ruy's doubling high multiply round), then divided by 2^right rounded to nearest
// with ties up (ruy) or away from zero (NNAPI, TFLite's reference kernels).
int32_t requantizeReference(int32_t x, int32_t m, int shift, bool tiesUp) {
    const int left = std::max(shift, 0), right = std::max(-shift, 0);
    const int64_t product = (int64_t{x} * (int64_t{1} << left)) * m;
    const auto floorDiv = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    const int64_t high = floorDiv(product + (int64_t{1} << 30), int64_t{1} << 31);
    if (right == 0) return static_cast<int32_t>(high);
    const int64_t divisor = int64_t{1} << right, half = divisor / 2;
    if (tiesUp || high >= 0) return static_cast<int32_t>(floorDiv(high + half, divisor));
    return static_cast<int32_t>(-floorDiv(-high + half, divisor));
}

TEST(ConvInt8Kernel, RequantizationRoundsTiesUp) {
    // 2^30 is one half: -3 / 2 / 2 = -0.75 first rounds to -1 ... the ties of the final shift go up.
    EXPECT_EQ(kernels::conv::ruyRequantize(-6, 1 << 30, -1), -1);    // -6 / 4 = -1.5 -> -1
    EXPECT_EQ(requantizeReference(-6, 1 << 30, -1, false), -2);       // NNAPI: -2
    EXPECT_EQ(kernels::conv::ruyRequantize(6, 1 << 30, -1), 2);       // 1.5 -> 2 in both
    EXPECT_EQ(kernels::conv::ruyRequantize(-5, 1 << 30, 0), -2);      // -2.5 -> -2 (first step)
    EXPECT_EQ(kernels::conv::ruyRequantize(3, 1 << 30, 2), 6);        // left shift
    std::mt19937 random(24);
    std::uniform_int_distribution<int32_t> sums(-(1 << 20), 1 << 20), multipliers(1 << 30, INT32_MAX);
    std::uniform_int_distribution<int> shifts(-20, 4);
    for (int i = 0; i < 20000; ++i) {
        const int32_t x = i < 64 ? -(i << 3) : sums(random), m = i < 64 ? (1 << 30) : multipliers(random);
        const int shift = i < 64 ? -(i % 5) : shifts(random);
        ASSERT_EQ(kernels::conv::ruyRequantize(x, m, shift), requantizeReference(x, m, shift, true))
                << x << " " << m << " " << shift;
    }
}

// Every GEMM build this CPU runs gives the portable build's sums, on odd pixel and block counts.
TEST(ConvInt8Kernel, EveryGemmBuildGivesThePortableSums) {
    using namespace kernels::conv;
    std::vector<std::pair<const char*, Int16Gemm>> builds = {{"portable", &gemmInt16Portable}};
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) builds.emplace_back("avx2", &gemmInt16Avx2);
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) builds.emplace_back("avx512", &gemmInt16Avx512);
    std::mt19937 random(7);
    std::uniform_int_distribution<int> value(-255, 255), weight(-127, 127);
    for (const auto& [pixels, blocks, pairs] : std::vector<std::tuple<size_t, size_t, size_t>>{
                 {1, 1, 1}, {5, 3, 7}, {6, 2, 64}, {13, 1, 9}, {48, 4, 33}}) {
        std::vector<int16_t> rows(pixels * 2 * pairs), packed(blocks * pairs * 2 * kGemmLanes);
        for (int16_t& v : rows) v = static_cast<int16_t>(value(random));
        for (int16_t& v : packed) v = static_cast<int16_t>(weight(random));
        std::vector<int32_t> want(pixels * blocks * kGemmLanes);
        gemmInt16Portable(rows.data(), pixels, packed.data(), blocks, pairs, want.data());
        for (const auto& build : builds) {
            std::vector<int32_t> got(want.size(), -1);
            build.second(rows.data(), pixels, packed.data(), blocks, pairs, got.data());
            EXPECT_EQ(got, want) << build.first << " " << pixels << "x" << blocks << "x" << pairs;
        }
    }
}

// The VNNI build of the byte GEMM gives the portable build's sums (wrapping) on odd pixel and
// block counts and on depths long enough to wrap a sum, and the byte rows hold the int16 rows
// plus the offset.
TEST(ConvInt8Kernel, EveryByteGemmBuildGivesThePortableSums) {
    using namespace kernels::conv;
    if (!hasAvx512Vnni()) GTEST_SKIP() << "this CPU has no AVX-512 VNNI: the int8 GEMM runs on int16 pairs here";
    std::mt19937 random(17);
    std::uniform_int_distribution<int> byte(0, 255), weight(-128, 127);
    for (const auto& [pixels, blocks, quads] : std::vector<std::tuple<size_t, size_t, size_t>>{
                 {1, 1, 1}, {5, 3, 7}, {6, 2, 64}, {13, 1, 9}, {48, 4, 33}, {7, 2, 20000}}) {
        std::vector<uint8_t> rows(pixels * 4 * quads);
        std::vector<int8_t> packed(blocks * quads * 4 * kGemmLanes);
        for (uint8_t& v : rows) v = static_cast<uint8_t>(quads > 1000 ? 255 : byte(random));
        for (int8_t& v : packed) v = static_cast<int8_t>(quads > 1000 ? -128 : weight(random));
        std::vector<int32_t> want(pixels * blocks * kGemmLanes), got(want.size(), -1);
        gemmUint8Int8Portable(rows.data(), pixels, packed.data(), blocks, quads, want.data());
        gemmUint8Int8Vnni(rows.data(), pixels, packed.data(), blocks, quads, got.data());
        EXPECT_EQ(got, want) << pixels << "x" << blocks << "x" << quads;
        if (quads > 1000) {
            EXPECT_EQ(want[0], static_cast<int32_t>(uint32_t{255} * 128 * 4 * 20000 * 0xFFFFFFFFu));
        }
    }
    const std::vector<int16_t> wide = {-255, 0, 127, -128, 255, 1};
    std::vector<uint8_t> bytes(8, 9);
    narrowRows(wide.data(), 2, 3, 128, bytes.data(), 4);
    EXPECT_EQ(bytes, (std::vector<uint8_t>{129, 128, 255, 9, 0, 127, 129, 9}));
}

// The byte GEMM with XNNPACK's requantization in its registers gives the bytes of its sums
// requantized by the portable loop: every channel count across the 16-channel blocks and their
// pairs (the last block masked), 1-13 pixels (the 6-pixel tiles and their tails), scales that
// overflow, vanish or are NaN, wrapping biases; nothing written past the channels or the pixels.
TEST(ConvInt8Kernel, ByteGemmRequantizedInRegistersGivesThePortableBytes) {
    using namespace kernels::conv;
    if (!hasAvx512Vnni()) GTEST_SKIP() << "this CPU has no AVX-512 VNNI: the byte GEMM does not run here";
    std::mt19937 random(19);
    std::uniform_int_distribution<int> byte(0, 255), weight(-128, 127), pick(0, 9);
    std::uniform_int_distribution<int32_t> wide(INT32_MIN, INT32_MAX), narrow(-20000, 20000);
    std::uniform_real_distribution<float> usual(1e-4f, 1e-2f);
    const float odd[] = {0.0f, 1e-38f, 3e38f, std::numeric_limits<float>::infinity(), 1.0f, 0.5f};
    for (int trial = 0; trial < 120; ++trial) {
        const size_t channels = 1 + static_cast<size_t>(random() % 70), pixels = 1 + static_cast<size_t>(random() % 13),
                     quads = 1 + static_cast<size_t>(random() % 12), blocks = (channels + kGemmLanes - 1) / kGemmLanes;
        std::vector<uint8_t> rows(pixels * 4 * quads);
        std::vector<int8_t> packed(blocks * quads * 4 * kGemmLanes);
        for (uint8_t& v : rows) v = static_cast<uint8_t>(byte(random));
        for (int8_t& v : packed) v = static_cast<int8_t>(weight(random));
        std::vector<int32_t> bias(blocks * kGemmLanes);
        std::vector<float> scale(blocks * kGemmLanes);
        for (size_t c = 0; c < channels; ++c) {
            bias[c] = trial % 4 == 3 ? wide(random) : narrow(random);
            scale[c] = pick(random) >= 8 ? odd[static_cast<size_t>(pick(random)) % 6] : usual(random);
        }
        const Fp32Requantization r{trial % 5 == 4 ? nullptr : bias.data(), scale.data(),
                                   static_cast<int32_t>(narrow(random) % 128), -128 + trial % 3 * 20, 127 - trial % 4 * 10};
        std::vector<int32_t> sums(pixels * blocks * kGemmLanes);
        gemmUint8Int8Portable(rows.data(), pixels, packed.data(), blocks, quads, sums.data());
        std::vector<int8_t> want(pixels * channels), got(pixels * channels + 1, 77);
        for (size_t p = 0; p < pixels; ++p) {
            requantizeFp32Portable(sums.data() + p * blocks * kGemmLanes, channels, r, want.data() + p * channels);
        }
        gemmUint8Int8VnniFp32(rows.data(), pixels, packed.data(), blocks, quads, r, channels, got.data());
        EXPECT_EQ(std::vector<int8_t>(got.begin(), got.end() - 1), want)
                << pixels << " pixels, " << channels << " channels, " << quads << " quads";
        EXPECT_EQ(got.back(), 77) << "a byte past the last pixel was written";
    }
}

// The AVX-512 build of XNNPACK's float requantization gives the portable loop's bytes, for every
// channel count (the masked last step) and for scales whose products overflow, vanish or are NaN
// (an infinite scale times a zero sum), with and without a bias, both output types.
TEST(ConvInt8Kernel, EveryFp32RequantizationBuildGivesThePortableBytes) {
    using namespace kernels::conv;
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))) {
        GTEST_SKIP() << "this CPU has no AVX-512BW: only the portable build runs here";
    }
    std::mt19937 random(13);
    std::uniform_int_distribution<int32_t> wide(INT32_MIN, INT32_MAX), narrow(-5000, 5000), pick(0, 9);
    std::uniform_real_distribution<float> usual(1e-5f, 1e-1f);
    const float odd[] = {0.0f, 1e-38f, 3e38f, std::numeric_limits<float>::infinity(), 1.0f, 0.5f};
    for (size_t count = 1; count <= 70; ++count) {
        for (int trial = 0; trial < 4; ++trial) {
            std::vector<int32_t> sums(count), bias(count);
            std::vector<float> scale(count);
            for (size_t c = 0; c < count; ++c) {
                const int32_t kind = pick(random);
                sums[c] = kind == 0 ? 0 : kind == 1 ? wide(random) : narrow(random);
                bias[c] = trial == 3 ? wide(random) : narrow(random);
                scale[c] = pick(random) >= 6 ? odd[static_cast<size_t>(pick(random)) % 6] : usual(random);
            }
            const bool withBias = trial % 2 == 1;
            const int32_t zeroPoint = trial == 2 ? 127 : static_cast<int32_t>(narrow(random) % 100);
            const Fp32Requantization r{withBias ? bias.data() : nullptr, scale.data(), zeroPoint, -128 + trial * 20,
                                       127 - trial * 10};
            std::vector<int8_t> want(count), got(count + 1, 77);
            requantizeFp32Portable(sums.data(), count, r, want.data());
            requantizeFp32Avx512(sums.data(), count, r, got.data());
            EXPECT_EQ(std::vector<int8_t>(got.begin(), got.begin() + static_cast<ptrdiff_t>(count)), want)
                    << "int8, " << count << " channels, trial " << trial;
            EXPECT_EQ(got[count], 77) << "a byte past the last channel was written";
            const Fp32Requantization u{r.bias, r.scale, zeroPoint + 128, 0, 255 - trial * 10};
            std::vector<uint8_t> wantU(count), gotU(count);
            requantizeFp32Portable(sums.data(), count, u, wantU.data());
            requantizeFp32Avx512(sums.data(), count, u, gotU.data());
            EXPECT_EQ(gotU, wantU) << "uint8, " << count << " channels, trial " << trial;
            // Three pixels at once, their sums count + 5 apart (a GEMM tile's stride).
            std::vector<int32_t> rows(3 * (count + 5), 0);
            for (size_t p = 0; p < 3; ++p) std::copy(sums.begin(), sums.end(), rows.begin() + static_cast<ptrdiff_t>(p * (count + 5)));
            std::vector<int8_t> gotRows(3 * count + 1, 77);
            requantizeFp32RowsAvx512(rows.data(), 3, count + 5, count, r, gotRows.data());
            for (size_t p = 0; p < 3; ++p) {
                EXPECT_EQ(std::vector<int8_t>(gotRows.begin() + static_cast<ptrdiff_t>(p * count),
                                              gotRows.begin() + static_cast<ptrdiff_t>((p + 1) * count)),
                          want)
                        << "rows, pixel " << p << ", " << count << " channels, trial " << trial;
            }
            EXPECT_EQ(gotRows[3 * count], 77) << "a byte past the last pixel was written";
        }
    }
}

// The vector requantization gives ruyRequantize's results, clamped, for any channel count.
TEST(ConvInt8Kernel, VectorRequantizationIsTheScalarOne) {
    using namespace kernels::conv;
    std::mt19937 random(11);
    std::uniform_int_distribution<int32_t> sums(-(1 << 22), 1 << 22), multipliers(1 << 30, INT32_MAX);
    std::uniform_int_distribution<int> shifts(-24, 3);
    for (size_t count : {1u, 7u, 8u, 13u, 64u}) {
        const size_t padded = (count + 7) / 8 * 8;
        std::vector<int32_t> s(padded), bias(padded), m(padded), left(padded), right(padded);
        std::vector<int> shift(padded);
        for (size_t c = 0; c < padded; ++c) {
            s[c] = sums(random), bias[c] = sums(random) / 8, m[c] = multipliers(random), shift[c] = shifts(random);
            left[c] = std::max(shift[c], 0), right[c] = std::max(-shift[c], 0);
        }
        const RuyRequantization r{bias.data(), m.data(), left.data(), right.data(), -3, -100, 120};
        std::vector<int8_t> got(count);
        requantizeRuy(s.data(), count, r, got.data());
        for (size_t c = 0; c < count; ++c) {
            const int32_t want = std::clamp(ruyRequantize(s[c] + bias[c], m[c], shift[c]) - 3, -100, 120);
            EXPECT_EQ(got[c], want) << "channel " << c << " of " << count;
        }
    }
}

struct ConvCase {
    std::vector<int32_t> input, filter;   // NHWC, OHWI
    int stride = 1, dilation = 1;
    bool same = true;
    std::vector<float> filterScales;
    float inputScale = 0, outputScale = 0;
    int32_t inputZero = 0, outputZero = 0;
    fb::ActivationFunctionType activation = fb::ActivationFunctionType_NONE;
};

// The plain convolution: exact sums, then requantizeReference per output channel.
std::vector<int8_t> referenceConv(const ConvCase& c, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                  const std::vector<int32_t>& bias, const std::vector<int32_t>& outShape, bool tiesUp) {
    const int32_t inH = c.input[1], inW = c.input[2], inC = c.input[3], kH = c.filter[1], kW = c.filter[2];
    const int32_t outH = outShape[1], outW = outShape[2], outC = outShape[3];
    const auto pad = [&](int32_t in, int32_t out, int32_t k) {
        return c.same ? std::max((out - 1) * c.stride + (k - 1) * c.dilation + 1 - in, 0) / 2 : 0;
    };
    const int32_t padTop = pad(inH, outH, kH), padLeft = pad(inW, outW, kW);
    const int32_t low = c.activation == fb::ActivationFunctionType_RELU ? std::max(-128, c.outputZero) : -128, high = 127;
    std::vector<int8_t> out;
    for (int32_t b = 0; b < c.input[0]; ++b) {
        for (int32_t oy = 0; oy < outH; ++oy) {
            for (int32_t ox = 0; ox < outW; ++ox) {
                for (int32_t oc = 0; oc < outC; ++oc) {
                    int64_t acc = bias[oc];
                    for (int32_t ky = 0; ky < kH; ++ky) {
                        for (int32_t kx = 0; kx < kW; ++kx) {
                            const int32_t iy = oy * c.stride - padTop + ky * c.dilation;
                            const int32_t ix = ox * c.stride - padLeft + kx * c.dilation;
                            if (iy < 0 || iy >= inH || ix < 0 || ix >= inW) continue;
                            for (int32_t ic = 0; ic < inC; ++ic) {
                                acc += (int64_t{x[((b * inH + iy) * inW + ix) * inC + ic]} - c.inputZero) *
                                       w[((oc * kH + ky) * kW + kx) * inC + ic];
                            }
                        }
                    }
                    // The Q31 multiplier and exponent of the real one, as TFLite's QuantizeMultiplier.
                    int shift = 0;
                    const double q = std::frexp(static_cast<double>(c.inputScale) * c.filterScales[oc] / c.outputScale, &shift);
                    int64_t q31 = std::llround(q * 2147483648.0);
                    if (q31 == (int64_t{1} << 31)) q31 /= 2, ++shift;
                    const auto m = static_cast<int32_t>(q31);
                    const int32_t v = requantizeReference(static_cast<int32_t>(acc), m, shift, tiesUp) + c.outputZero;
                    out.push_back(static_cast<int8_t>(std::clamp(v, low, high)));
                }
            }
        }
    }
    return out;
}

template <typename T>
std::vector<T> randomValues(std::mt19937& random, size_t count, int low, int high) {
    std::uniform_int_distribution<int> d(low, high);
    std::vector<T> values(count);
    for (T& v : values) v = static_cast<T>(d(random));
    return values;
}

TEST(ConvInt8Kernel, RandomShapesMatchAPlainConvolutionWithEitherRounding) {
    std::mt19937 random(2021);
    const auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
    int tiesSeen = 0;
    for (int trial = 0; trial < 40; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        ConvCase c;
        const int32_t k = pick(1, 3), inC = pick(1, 20), outC = pick(1, 21);
        c.input = {pick(1, 2), pick(k, 12), pick(k, 12), inC};
        c.filter = {outC, k, pick(1, 3), inC};
        c.stride = pick(1, 2);
        c.dilation = trial % 5 == 4 ? 2 : 1;
        c.same = trial % 2 == 0;
        if (!c.same && (c.input[1] < (k - 1) * c.dilation + 1 || c.input[2] < (c.filter[2] - 1) * c.dilation + 1)) {
            c.same = true;
        }
        // Powers of two on every other trial: many exact ties in the final rounding.
        const bool powers = trial % 2 == 1;
        c.inputScale = powers ? 0.5f : 0.02f + 0.01f * static_cast<float>(pick(0, 5));
        c.outputScale = powers ? 4.0f : 0.05f + 0.05f * static_cast<float>(pick(0, 5));
        for (int32_t o = 0; o < outC; ++o) {
            c.filterScales.push_back(powers ? std::ldexp(1.0f, -pick(0, 4)) : 0.003f * static_cast<float>(pick(1, 9)));
        }
        c.inputZero = pick(-20, 20);
        c.outputZero = pick(-10, 10);
        c.activation = trial % 3 == 0 ? fb::ActivationFunctionType_RELU : fb::ActivationFunctionType_NONE;
        const size_t inCount = elementCount(c.input), wCount = elementCount(c.filter);
        const std::vector<int8_t> x = randomValues<int8_t>(random, inCount, -128, 127);
        const std::vector<int8_t> w = randomValues<int8_t>(random, wCount, -127, 127);
        const std::vector<int32_t> bias = randomValues<int32_t>(random, outC, -2000, 2000);
        const int32_t effH = (c.filter[1] - 1) * c.dilation + 1, effW = (c.filter[2] - 1) * c.dilation + 1;
        const auto outSize = [&](int32_t in, int32_t eff) {
            return c.same ? (in + c.stride - 1) / c.stride : (in - eff + c.stride) / c.stride;
        };
        const std::vector<int32_t> outShape = {c.input[0], outSize(c.input[1], effH), outSize(c.input[2], effW), outC};

        GB g;
        const int32_t in = g.tensor(c.input, fb::TensorType_INT8, {}, {c.inputScale}, {c.inputZero});
        std::vector<float> biasScales;
        for (float s : c.filterScales) biasScales.push_back(s * c.inputScale);
        const int32_t filter = g.tensor(c.filter, fb::TensorType_INT8, GB::bytes(w), c.filterScales,
                                        std::vector<int64_t>(outC, 0), 0);
        const int32_t b = g.tensor({outC}, fb::TensorType_INT32, GB::bytes(bias), biasScales, std::vector<int64_t>(outC, 0));
        const int32_t out = g.tensor(outShape, fb::TensorType_INT8, {}, {c.outputScale}, {c.outputZero});
        const ConvCase options = c;
        g.op(fb::BuiltinOperator_CONV_2D, {in, filter, b}, {out}, fb::BuiltinOptions_Conv2DOptions,
             [options](flatbuffers::FlatBufferBuilder& fbb) {
                 return fb::CreateConv2DOptions(fbb, options.same ? fb::Padding_SAME : fb::Padding_VALID, options.stride,
                                                options.stride, options.activation, options.dilation, options.dilation)
                         .Union();
             });
        g.inputs = {in};
        g.outputs = {out};
        const std::unique_ptr<Model> model = g.build();
        ASSERT_NE(model, nullptr);
        const std::vector<int8_t> tiesUp = referenceConv(c, x, w, bias, outShape, true);
        const std::vector<int8_t> away = referenceConv(c, x, w, bias, outShape, false);
        tiesSeen += tiesUp != away;
        for (const RunMode& mode : runModes()) {
            SCOPED_TRACE(mode.name);
            const std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, mode.options);
            ASSERT_NE(interpreter, nullptr);
            std::memcpy(interpreter->inputData(0), x.data(), x.size());
            ASSERT_TRUE(isOk(interpreter->invoke()));
            const std::vector<int8_t> got = valuesOf<int8_t>(interpreter->outputData(0), tiesUp.size());
            // The CPU path computes TFLite's x86 results, the delegate NNAPI's.
            EXPECT_EQ(got, mode.options.useNnapi ? away : tiesUp);
        }
    }
    EXPECT_GT(tiesSeen, 5);   // the cases do tell the roundings apart
}

}  // namespace
}  // namespace nnemu::tflite::test
