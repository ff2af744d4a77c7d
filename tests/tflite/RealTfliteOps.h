// One-operator models for the differential suite against real TensorFlow Lite
// (RealTfliteDiff*Test.cpp): each tensor described once (shape, type, quantization, constant
// data or the value range a model input is filled over), the inputs filled deterministically.
#pragma once

#include <cmath>
#include <limits>

#include "RealTflite.h"

namespace nnemu::tflite::test {

// One tensor of a one-operator model. No `constant`: a model input, filled over [low, high] in
// the element's own domain (integers as stored); NaN bounds: the type's default range.
struct Spec {
    std::vector<int32_t> shape;
    fb::TensorType type = fb::TensorType_FLOAT32;
    float scale = 0;             // > 0: quantized (per tensor)
    int64_t zeroPoint = 0;
    std::vector<uint8_t> constant = {};
    double low = std::numeric_limits<double>::quiet_NaN(), high = std::numeric_limits<double>::quiet_NaN();
    std::vector<float> channelScales = {};   // not empty: quantized per channel along channelAxis, zero points 0
    int32_t channelAxis = 0;
};

inline Spec f32(std::vector<int32_t> shape, double low = -4, double high = 4) {
    return {std::move(shape), fb::TensorType_FLOAT32, 0, 0, {}, low, high};
}
inline Spec u8(std::vector<int32_t> shape, float scale, int64_t zeroPoint) {
    return {std::move(shape), fb::TensorType_UINT8, scale, zeroPoint};
}
inline Spec i8(std::vector<int32_t> shape, float scale, int64_t zeroPoint) {
    return {std::move(shape), fb::TensorType_INT8, scale, zeroPoint};
}
inline Spec i16(std::vector<int32_t> shape, float scale, int64_t zeroPoint) {
    return {std::move(shape), fb::TensorType_INT16, scale, zeroPoint};
}
inline Spec i32(std::vector<int32_t> shape, double low = -50, double high = 50) {
    return {std::move(shape), fb::TensorType_INT32, 0, 0, {}, low, high};
}
inline Spec i64(std::vector<int32_t> shape, double low = -50, double high = 50) {
    return {std::move(shape), fb::TensorType_INT64, 0, 0, {}, low, high};
}
inline Spec boolean(std::vector<int32_t> shape) { return {std::move(shape), fb::TensorType_BOOL, 0, 0, {}, 0, 1}; }
// The same tensor with other input bounds / as a constant.
inline Spec range(Spec s, double low, double high) {
    s.low = low;
    s.high = high;
    return s;
}
inline Spec constant(Spec s, std::vector<uint8_t> data) {
    s.constant = std::move(data);
    return s;
}
template <typename T>
Spec constantOf(std::vector<int32_t> shape, fb::TensorType type, const std::vector<T>& values) {
    return constant({std::move(shape), type}, GraphBuilder::bytes(values));
}

inline size_t elementCount(const std::vector<int32_t>& shape) {
    size_t count = 1;
    for (const int32_t d : shape) count *= static_cast<size_t>(d);
    return count;
}

// A model input's bytes over its bounds (or the type's default range).
inline std::vector<uint8_t> inputBytes(const Spec& s) {
    const size_t n = elementCount(s.shape);
    const auto bound = [&](double value, double fallback) { return std::isnan(value) ? fallback : value; };
    switch (s.type) {
        case fb::TensorType_FLOAT32: return rampBytes<float>(n, bound(s.low, -4), bound(s.high, 4));
        case fb::TensorType_UINT8: return rampBytes<uint8_t>(n, bound(s.low, 0), bound(s.high, 255));
        case fb::TensorType_INT8: return rampBytes<int8_t>(n, bound(s.low, -128), bound(s.high, 127));
        case fb::TensorType_INT16: return rampBytes<int16_t>(n, bound(s.low, -32768), bound(s.high, 32767));
        case fb::TensorType_INT32: return rampBytes<int32_t>(n, bound(s.low, -50), bound(s.high, 50));
        case fb::TensorType_INT64: return rampBytes<int64_t>(n, bound(s.low, -50), bound(s.high, 50));
        case fb::TensorType_BOOL: {
            std::vector<uint8_t> values(n);
            for (size_t i = 0; i < n; ++i) values[i] = static_cast<uint8_t>((i * 7919 + i / 3) % 2);
            return values;
        }
        default: break;
    }
    ADD_FAILURE() << "no input data for tensor type " << s.type;
    return {};
}

// Adds one operator to `g`: every non-constant input spec becomes a model input (in order),
// every output spec a model output (a model of many independent operators: one oracle run).
inline void addOp(GraphBuilder& g, fb::BuiltinOperator code, const std::vector<Spec>& ins, const std::vector<Spec>& outs,
                  fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, GraphBuilder::Options options = nullptr) {
    const auto add = [&](const Spec& s) {
        if (!s.channelScales.empty()) return g.tensor(s.shape, s.type, s.constant, s.channelScales, {}, s.channelAxis);
        const std::vector<float> scales = s.scale > 0 ? std::vector<float>{s.scale} : std::vector<float>{};
        const std::vector<int64_t> zeros = s.scale > 0 ? std::vector<int64_t>{s.zeroPoint} : std::vector<int64_t>{};
        return g.tensor(s.shape, s.type, s.constant, scales, zeros);
    };
    std::vector<int32_t> inputs, outputs;
    for (const Spec& s : ins) {
        const int32_t t = add(s);
        inputs.push_back(t);
        if (s.constant.empty()) g.inputs.push_back(t);
    }
    for (const Spec& s : outs) {
        outputs.push_back(add(s));
        g.outputs.push_back(outputs.back());
    }
    g.op(code, inputs, outputs, optionsType, std::move(options));
}

// The one-operator model.
inline GraphBuilder oneOp(fb::BuiltinOperator code, const std::vector<Spec>& ins, const std::vector<Spec>& outs,
                          fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, GraphBuilder::Options options = nullptr) {
    GraphBuilder g;
    addOp(g, code, ins, outs, optionsType, std::move(options));
    return g;
}

// Runs the one-operator model on deterministic inputs through nnemu (every mode) and real TFLite.
inline void expectOp(fb::BuiltinOperator code, const std::vector<Spec>& ins, const std::vector<Spec>& outs,
                     fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, GraphBuilder::Options options = nullptr,
                     int floatUlps = 4) {
    std::vector<std::vector<uint8_t>> inputs;
    for (const Spec& s : ins) {
        if (s.constant.empty()) inputs.push_back(inputBytes(s));
    }
    expectSameAsRealTflite(oneOp(code, ins, outs, optionsType, std::move(options)), inputs, floatUlps);
}

// The model is refused when it is prepared, in every interpreter mode, with `reason` in the message.
inline void expectModelRefused(const GraphBuilder& g, const std::string& reason) {
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(g.buildBytes()));
    ASSERT_NE(model, nullptr);
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        const std::string error = failureOf(Interpreter::create(*model, mode.options));
        EXPECT_NE(error.find(reason), std::string::npos) << error;
    }
}

}  // namespace nnemu::tflite::test
