// Differential test against real TensorFlow Lite 2.21: quantized MEAN (uint8, int8; int16 on the
// height-width forms and large counts) on random
// shapes, axes (negative, repeated, in any order), keep_dims and quantizations, each model run on
// random bytes through nnemu's CPU path and through tflite_run's builtin kernels, byte for byte.
// The cases cover both integer paths TFLite's reduce.cc takes (the 4-D height-width one and the
// reference QuantizedMeanOrSum) with and without a rescale; the generator's seed is fixed, so a
// failure names a case that reproduces.
#include <algorithm>
#include <random>

#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

struct MeanCase {
    fb::TensorType type = fb::TensorType_UINT8;
    std::vector<int32_t> shape, axes;
    bool keepDims = false;
    float scaleIn = 0, scaleOut = 0;
    int64_t zeroIn = 0, zeroOut = 0;
};

std::string describe(const MeanCase& c) {
    std::string text = c.type == fb::TensorType_UINT8  ? "uint8 ["
                       : c.type == fb::TensorType_INT8 ? "int8 ["
                                                       : "int16 [";
    for (size_t i = 0; i < c.shape.size(); ++i) text += (i ? "," : "") + std::to_string(c.shape[i]);
    text += "] axes {";
    for (size_t i = 0; i < c.axes.size(); ++i) text += (i ? "," : "") + std::to_string(c.axes[i]);
    text += "}" + std::string(c.keepDims ? " keep_dims" : "") + " in " + std::to_string(c.scaleIn) + "/" +
            std::to_string(c.zeroIn) + " out " + std::to_string(c.scaleOut) + "/" + std::to_string(c.zeroOut);
    return text;
}

// TFLite's output shape: each axis resolved once; reduced dimensions kept as 1 or dropped.
std::vector<int32_t> outputShape(const MeanCase& c) {
    const auto rank = static_cast<int32_t>(c.shape.size());
    std::vector<int32_t> shape;
    for (int32_t d = 0; d < rank; ++d) {
        const bool reduced = std::any_of(c.axes.begin(), c.axes.end(), [&](int32_t a) { return (a < 0 ? a + rank : a) == d; });
        if (!reduced) {
            shape.push_back(c.shape[static_cast<size_t>(d)]);
        } else if (c.keepDims) {
            shape.push_back(1);
        }
    }
    return shape;
}

class MeanCases {
public:
    explicit MeanCases(uint32_t seed) : random_(seed) {}

    MeanCase next() {
        MeanCase c;
        c.type = pick(2) == 0 ? fb::TensorType_UINT8 : fb::TensorType_INT8;
        const int32_t rank = 1 + pick(4);
        for (int32_t d = 0; d < rank; ++d) c.shape.push_back(1 + pick(d == 0 ? 3 : 9));
        for (int32_t d = 0; d < rank; ++d) {
            if (pick(2) == 0) c.axes.push_back(pick(2) == 0 ? d - rank : d);
        }
        if (c.axes.empty()) c.axes.push_back(pick(rank));
        std::shuffle(c.axes.begin(), c.axes.end(), random_);
        if (pick(8) == 0) c.axes.push_back(c.axes.front());   // repeated: TFLite reduces it once
        c.keepDims = pick(2) == 0;
        quantize(&c);
        return c;
    }

    // Random scales (same in and out one time in four) and zero points for the case's type (0 for
    // int16, symmetric in TFLite).
    void quantize(MeanCase* c) {
        const bool signedType = c->type == fb::TensorType_INT8;
        const bool wide = c->type == fb::TensorType_INT16;
        const auto zero = [&] { return wide ? 0 : static_cast<int64_t>(pick(256)) - (signedType ? 128 : 0); };
        c->scaleIn = static_cast<float>(std::exp(std::uniform_real_distribution<double>(std::log(0.002), std::log(0.5))(random_)));
        c->zeroIn = zero();
        if (pick(4) == 0) {
            c->scaleOut = c->scaleIn;
            c->zeroOut = c->zeroIn;
            return;
        }
        c->scaleOut = c->scaleIn * static_cast<float>(std::exp(std::uniform_real_distribution<double>(std::log(0.2), std::log(5.0))(random_)));
        c->zeroOut = zero();
    }

    std::vector<uint8_t> bytes(size_t count) {
        std::vector<uint8_t> data(count);
        for (uint8_t& b : data) b = static_cast<uint8_t>(pick(256));
        return data;
    }

    int32_t pick(int32_t n) { return std::uniform_int_distribution<int32_t>(0, n - 1)(random_); }

private:
    std::mt19937 random_;
};

void expectMeanAsTflite(const MeanCase& c, MeanCases& random) {
    SCOPED_TRACE(describe(c));
    const Spec in{c.shape, c.type, c.scaleIn, c.zeroIn};
    const Spec axes = constantOf<int32_t>({static_cast<int32_t>(c.axes.size())}, fb::TensorType_INT32, c.axes);
    const Spec out{outputShape(c), c.type, c.scaleOut, c.zeroOut};
    const GraphBuilder g = oneOp(fb::BuiltinOperator_MEAN, {in, axes}, {out}, fb::BuiltinOptions_ReducerOptions,
                                 [keep = c.keepDims](flatbuffers::FlatBufferBuilder& b) {
                                     return fb::CreateReducerOptions(b, keep).Union();
                                 });
    const size_t width = c.type == fb::TensorType_INT16 ? 2 : 1;
    expectCpuPathAsRealTflite(g.buildBytes(), {random.bytes(elementCount(c.shape) * width)});
}

// 48 random cases.
TEST(RealTfliteMeanRandom, RandomShapesAxesAndScales) {
    NNEMU_REQUIRE_REAL_TFLITE();
    MeanCases random(2421);
    for (int i = 0; i < 48; ++i) expectMeanAsTflite(random.next(), random);
}

// The forms that choose TFLite's path: a 4-D input over height and width with keep_dims (the
// axes as written, either order, negative), without keep_dims, and a large reduced count (the
// reference path's multiplier loses precision to the count as TFLite's does); int16 takes the
// reference path on all of them.
TEST(RealTfliteMeanRandom, HeightWidthFormsAndLargeCounts) {
    NNEMU_REQUIRE_REAL_TFLITE();
    MeanCases random(77);
    const std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> forms = {
            {{2, 5, 7, 3}, {1, 2}},   {{2, 5, 7, 3}, {2, 1}},     {{2, 5, 7, 3}, {-3, -2}},
            {{2, 5, 7, 3}, {1, -2}},  {{1, 7, 7, 16}, {1, 2}},    {{1, 48, 40, 2}, {1, 2}},
            {{1, 48, 40, 2}, {0, 1, 2}}, {{3, 1000}, {1}},        {{70000}, {0}}};
    for (const auto& [shape, axes] : forms) {
        for (const fb::TensorType type : {fb::TensorType_UINT8, fb::TensorType_INT8, fb::TensorType_INT16}) {
            for (const bool keep : {true, false}) {
                MeanCase c;
                c.type = type;
                c.shape = shape;
                c.axes = axes;
                c.keepDims = keep;
                random.quantize(&c);
                expectMeanAsTflite(c, random);
            }
        }
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
