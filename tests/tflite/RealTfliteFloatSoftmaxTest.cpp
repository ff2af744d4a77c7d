// Float SOFTMAX on the CPU path gives real TensorFlow Lite 2.21's bits exactly
// (src/cpu/SoftmaxFloat.cpp): Eigen's exp on whole packets and the C library's on the tail of the
// flat tensor, each row summed in Eigen's order at its address (rows that start off a 16-byte
// boundary, rows shorter than a packet), beta, ranks 2 to 4; compared byte for byte with
// tflite_run --xnnpack=0.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

std::vector<uint8_t> logits(size_t count, uint32_t seed) {
    std::vector<float> values(count);
    for (float& v : values) {
        seed = seed * 1664525u + 1013904223u;
        v = static_cast<float>(12.0 * ((seed >> 8) / 16777216.0) - 6.0);
    }
    return GraphBuilder::bytes(values);
}

TEST(RealTfliteFloatSoftmax, EigenOrderOverRowsAndTails) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const std::vector<std::pair<std::vector<int32_t>, float>> cases = {
            {{1, 1001}, 1.0f}, {{1, 10}, 1.0f}, {{3, 7}, 1.0f},    {{5, 13}, 1.0f},       {{2, 33}, 0.5f},
            {{7, 3}, 2.0f},    {{4, 16}, 1.0f}, {{1, 1}, 1.0f},    {{2, 3, 2, 5}, 1.0f},  {{12, 128}, 0.125f}};
    uint32_t seed = 3;
    for (const auto& [shape, beta] : cases) {
        SCOPED_TRACE("shape [" + std::to_string(shape.front()) + ", ..., " + std::to_string(shape.back()) + "], beta " +
                     std::to_string(beta));
        GraphBuilder g;
        const int32_t in = g.tensor(shape, fb::TensorType_FLOAT32), out = g.tensor(shape, fb::TensorType_FLOAT32);
        const float b = beta;
        g.op(fb::BuiltinOperator_SOFTMAX, {in}, {out}, fb::BuiltinOptions_SoftmaxOptions,
             [b](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateSoftmaxOptions(fbb, b).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        expectCpuPathAsRealTflite(g.buildBytes(), {logits(elementCount(shape), seed += 7)}, 0);
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
