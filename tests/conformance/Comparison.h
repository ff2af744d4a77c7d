// Comparison of actual outputs against golden data, following the CTS rules described in
// ../shared/conformance/README.md ("Comparison rules used by the CTS").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Variant.h"

namespace nnemu::conformance {

// Absolute and relative float tolerance: |expected - actual| <= atol + rtol * |expected|.
struct FloatTolerance {
    float atol = 0.0f;
    float rtol = 0.0f;
};

// Five fp32 epsilons, resp. five fp16 epsilons.
inline constexpr FloatTolerance kStrictFloatTolerance{1e-5f, 5.0f * 1.1920928955078125e-7f};
inline constexpr FloatTolerance kRelaxedFloatTolerance{5.0f * 0.0009765625f,
                                                       5.0f * 0.0009765625f};

// Tolerances in effect for one example.
struct Tolerances {
    FloatTolerance floats = kStrictFloatTolerance;  // float32 outputs (and float16 before V1_3)
    FloatTolerance halfs = kStrictFloatTolerance;   // float16 outputs
    int int32 = 0;    // int32 outputs: exact before V1_3, +-1 in V1_3
    int quant8 = 1;   // uint8 / int8 outputs: 1, or 2 (V1_3: 3) for "mobilenet" tests
    int quant16 = 1;  // int16 / uint16 outputs
    // V1_3 (Android 11 harness): compare only prod(golden dims) elements, fp16 differences in
    // double precision.
    bool android11 = false;
};

// Tracks the float tolerance of a variant across its examples: the loose one applies from the
// first example that is relaxed or has a non-empty float16 input, and stays (as in the CTS).
// V1_3 variants follow the Android 11 harness instead: loose when relaxed or when any
// TENSOR_FLOAT16 operand exists in the model or its referenced subgraphs; float16 outputs always
// loose; int32 +-1.
class ToleranceTracker {
public:
    explicit ToleranceTracker(const Variant& variant);
    // Tolerances for the next example of the variant (call once per example, in order).
    Tolerances next(const Example& example);

private:
    const Variant& mVariant;
    bool mLoose = false;
    int mQuant8 = 1;
};

struct Mismatch {
    size_t outputPosition = 0;
    size_t index = 0;
    std::string expected;
    std::string actual;
    std::string allowed;  // the tolerance, as text
};

// Compares `golden.count` elements of type `kind` of `actual` (at least that many bytes)
// against the golden data. Returns the number of mismatching elements; the first one is stored
// in *first when that is still empty.
size_t compareOutput(ElementKind kind, const TensorData& golden, const uint8_t* actual,
                     size_t outputPosition, const Tolerances& tolerances,
                     std::optional<Mismatch>* first);

// RANDOM_MULTINOMIAL check: the histogram of the sampled class indexes in `samples`
// (int32, [batches, samplesPerBatch]) must be within `tolerance` of softmax(logits) for each
// class. `logits` is input 0 of the example (float32 or float16, [batches, classes]).
// Returns an error description, or nothing when the distribution matches.
std::optional<std::string> checkMultinomial(ElementKind logitKind, const TensorData& logits,
                                            const uint8_t* samples, size_t sampleCount,
                                            const std::vector<uint32_t>& sampleDims,
                                            double tolerance);

std::string dimsToString(const std::vector<uint32_t>& dims);

}  // namespace nnemu::conformance
