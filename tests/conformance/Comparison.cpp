// Output comparison for the conformance runner.
#include "Comparison.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "Fp16.h"

namespace nnemu::conformance {
namespace {

template <typename T>
T load(const uint8_t* base, size_t index) {
    T value;
    std::memcpy(&value, base + index * sizeof(T), sizeof(T));
    return value;
}

std::string floatText(double value) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return buffer;
}

std::string integerText(int64_t value) { return std::to_string(value); }

bool isFp16Input(const Operand& operand) { return operand.kind == ElementKind::Float16; }

constexpr int32_t kTensorFloat16 = 8;

bool hasTensorFloat16(const std::vector<Operand>& operands) {
    return std::any_of(operands.begin(), operands.end(),
                       [](const Operand& op) { return op.typeCode == kTensorFloat16; });
}

// Android 11's rule: any TENSOR_FLOAT16 operand anywhere loosens the float32 tolerance.
bool usesFloat16Anywhere(const Variant& v) {
    if (hasTensorFloat16(v.operands)) return true;
    return std::any_of(v.referenced.begin(), v.referenced.end(),
                       [](const Subgraph& g) { return hasTensorFloat16(g.operands); });
}

uint64_t elementCount(const std::vector<uint32_t>& dims) {
    uint64_t count = 1;
    for (uint32_t d : dims) count *= d;
    return count;
}

}  // namespace

std::string dimsToString(const std::vector<uint32_t>& dims) {
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) text += ",";
        text += std::to_string(dims[i]);
    }
    return text + "]";
}

ToleranceTracker::ToleranceTracker(const Variant& variant)
    : mVariant(variant), mLoose(variant.relaxed) {
    const bool mobilenet = variant.testName.find("mobilenet") != std::string::npos;
    mQuant8 = mobilenet ? (variant.android11 ? 3 : 2) : 1;
    if (variant.android11 && usesFloat16Anywhere(variant)) mLoose = true;
}

Tolerances ToleranceTracker::next(const Example& example) {
    for (size_t p = 0; p < example.inputs.size() && p < mVariant.inputs.size(); ++p) {
        if (example.inputs[p].count != 0 && isFp16Input(mVariant.operands[mVariant.inputs[p]])) {
            mLoose = true;  // never reset for the later examples of this variant
        }
    }
    Tolerances t;
    t.floats = mLoose ? kRelaxedFloatTolerance : kStrictFloatTolerance;
    t.halfs = mVariant.android11 ? kRelaxedFloatTolerance : t.floats;
    t.int32 = mVariant.android11 ? 1 : 0;
    t.quant8 = mQuant8;
    t.quant16 = 1;
    t.android11 = mVariant.android11;
    return t;
}

size_t compareOutput(ElementKind kind, const TensorData& golden, const uint8_t* actual,
                     size_t outputPosition, const Tolerances& tolerances,
                     std::optional<Mismatch>* first) {
    size_t mismatches = 0;
    auto record = [&](size_t index, std::string expected, std::string got, std::string allowed) {
        ++mismatches;
        if (first && !first->has_value()) {
            *first = Mismatch{outputPosition, index, std::move(expected), std::move(got),
                              std::move(allowed)};
        }
    };
    const uint8_t* expected = golden.bytes.data();
    // Android 11 compares prod(golden dims) elements: a zero-sized output compares nothing.
    const size_t count = tolerances.android11
                                 ? static_cast<size_t>(std::min<uint64_t>(
                                           golden.count, elementCount(golden.dims)))
                                 : golden.count;

    // Integer types: |e - a| <= limit (0 = exact).
    auto compareIntegers = [&](auto tag, int64_t limit) {
        using T = decltype(tag);
        for (size_t i = 0; i < count; ++i) {
            const int64_t e = load<T>(expected, i);
            const int64_t a = load<T>(actual, i);
            if (std::llabs(e - a) > limit) {
                record(i, integerText(e), integerText(a),
                       limit == 0 ? std::string("exact") : "+-" + std::to_string(limit));
            }
        }
    };

    switch (kind) {
        case ElementKind::Float32: {
            const FloatTolerance& tol = tolerances.floats;
            for (size_t i = 0; i < count; ++i) {
                const float e = load<float>(expected, i);
                const float a = load<float>(actual, i);
                const float allowed = tol.atol + tol.rtol * std::fabs(e);
                const double diff = std::fabs(static_cast<double>(e) - static_cast<double>(a));
                if (!(diff <= static_cast<double>(allowed))) {  // NaN fails
                    record(i, floatText(e), floatText(a), "+-" + floatText(allowed));
                }
            }
            break;
        }
        case ElementKind::Float16: {
            const FloatTolerance& tol = tolerances.halfs;
            for (size_t i = 0; i < count; ++i) {
                const float e = fp16BitsToFloat(load<uint16_t>(expected, i));
                const float a = fp16BitsToFloat(load<uint16_t>(actual, i));
                const float allowed = tol.atol + tol.rtol * std::fabs(e);
                // Android 10 takes the difference in fp16, Android 11 in double.
                const double diff =
                        tolerances.android11
                                ? std::fabs(static_cast<double>(e) - static_cast<double>(a))
                                : std::fabs(roundToFp16(e - a));
                if (!(diff <= static_cast<double>(allowed))) {
                    record(i, floatText(e), floatText(a), "+-" + floatText(allowed));
                }
            }
            break;
        }
        case ElementKind::Int32:
            compareIntegers(int32_t{}, tolerances.int32);
            break;
        case ElementKind::UInt32:
            compareIntegers(uint32_t{}, 0);
            break;
        case ElementKind::Quant8Asymm:
            compareIntegers(uint8_t{}, tolerances.quant8);
            break;
        case ElementKind::Quant8Symm:
        case ElementKind::Quant8AsymmSigned:
            compareIntegers(int8_t{}, tolerances.quant8);
            break;
        case ElementKind::Quant16Symm:
            compareIntegers(int16_t{}, tolerances.quant16);
            break;
        case ElementKind::Quant16Asymm:
            compareIntegers(uint16_t{}, tolerances.quant16);
            break;
        case ElementKind::Bool8:
            compareIntegers(uint8_t{}, 0);
            break;
    }
    return mismatches;
}

std::optional<std::string> checkMultinomial(ElementKind logitKind, const TensorData& logits,
                                            const uint8_t* samples, size_t sampleCount,
                                            const std::vector<uint32_t>& sampleDims,
                                            double tolerance) {
    if (logitKind != ElementKind::Float32 && logitKind != ElementKind::Float16) {
        return std::string("multinomial check: input 0 is not a float tensor");
    }
    if (logits.dims.size() != 2 || sampleDims.size() != 2 || logits.dims[0] != sampleDims[0] ||
        logits.dims[0] == 0 || logits.dims[1] == 0 || sampleDims[1] == 0 ||
        static_cast<uint64_t>(logits.dims[0]) * logits.dims[1] != logits.count ||
        static_cast<uint64_t>(sampleDims[0]) * sampleDims[1] != sampleCount) {
        return "multinomial check: unexpected shapes: logits " + dimsToString(logits.dims) +
               ", samples " + dimsToString(sampleDims);
    }
    const size_t batches = logits.dims[0];
    const size_t classes = logits.dims[1];
    const size_t perBatch = sampleDims[1];
    for (size_t b = 0; b < batches; ++b) {
        std::vector<double> probability(classes);
        double maxLogit = -INFINITY;
        for (size_t c = 0; c < classes; ++c) {
            const size_t at = b * classes + c;
            probability[c] = logitKind == ElementKind::Float32
                                     ? load<float>(logits.bytes.data(), at)
                                     : fp16BitsToFloat(load<uint16_t>(logits.bytes.data(), at));
            maxLogit = std::max(maxLogit, probability[c]);
        }
        double sum = 0.0;
        for (double& p : probability) {
            p = std::exp(p - maxLogit);
            sum += p;
        }
        std::vector<size_t> histogram(classes, 0);
        for (size_t s = 0; s < perBatch; ++s) {
            const int32_t sample = load<int32_t>(samples, b * perBatch + s);
            if (sample < 0 || static_cast<size_t>(sample) >= classes) {
                return "output 0 index " + std::to_string(b * perBatch + s) + ": sampled class " +
                       std::to_string(sample) + " is outside [0, " + std::to_string(classes) +
                       ")";
            }
            ++histogram[static_cast<size_t>(sample)];
        }
        for (size_t c = 0; c < classes; ++c) {
            const double expected = probability[c] / sum;
            const double actual = static_cast<double>(histogram[c]) / static_cast<double>(perBatch);
            if (!(std::fabs(expected - actual) <= tolerance)) {
                return "output 0 batch " + std::to_string(b) + " class " + std::to_string(c) +
                       ": sampled frequency " + floatText(actual) + " (" +
                       std::to_string(histogram[c]) + "/" + std::to_string(perBatch) +
                       "), expected probability " + floatText(expected) + " +-" +
                       floatText(tolerance);
            }
        }
    }
    return std::nullopt;
}

}  // namespace nnemu::conformance
