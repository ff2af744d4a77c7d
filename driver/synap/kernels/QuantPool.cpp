#include "QuantPool.h"

#include <algorithm>
#include <cmath>

namespace nnemu::synap::kernels {
namespace {

const PoolLoops& loopsFor(Isa isa) {
    switch (isa) {
        case Isa::Avx512Vnni: return kPoolLoopsAvx512;
        case Isa::Avx2: return kPoolLoopsAvx2;
        default: return kPoolLoopsPortable;
    }
}

// The reference's division of a raw sum by the pixel count, per rounding.
int32_t average(const GlobalAverageSpec& s, int32_t sum, float scale, float bias) {
    const auto n = static_cast<int32_t>(s.pixels);
    switch (s.rounding) {
        case AverageRounding::HalfAway:
            return std::clamp((sum >= 0 ? sum + n / 2 : sum - n / 2) / n, s.low, s.high);
        case AverageRounding::MeanTruncate:
            return sum / n;
        case AverageRounding::MeanRequantize: {
            const float mean = static_cast<float>(sum) / static_cast<float>(n);
            const float value = std::round(mean * scale + bias) + static_cast<float>(s.outputZeroPoint);
            const float qmin = s.signedValues ? -128.0f : 0.0f;
            return static_cast<int32_t>(std::clamp(value, qmin, qmin + 255.0f));
        }
    }
    return 0;
}

}  // namespace

void runMaxPoolRows(Isa isa, const MaxPoolSpec& spec, const uint8_t* input, uint8_t* output, size_t begin,
                    size_t end) {
    loopsFor(isa).maxRows(spec, input, output, begin, end);
}

void runGlobalAverage(Isa isa, const GlobalAverageSpec& spec, const uint8_t* input, uint8_t* output,
                      std::vector<int32_t>* sums) {
    sums->resize(spec.channels);
    const float scale = spec.inputScale / spec.outputScale;
    const float bias = -static_cast<float>(spec.inputZeroPoint) * scale;
    const size_t image = size_t{spec.pixels} * spec.channels;
    for (size_t b = 0; b < spec.batches; ++b) {
        loopsFor(isa).sumPixels(spec.signedValues, input + b * image, spec.pixels, spec.channels, sums->data());
        uint8_t* out = output + b * spec.channels;
        for (size_t c = 0; c < spec.channels; ++c) {
            out[c] = static_cast<uint8_t>(average(spec, (*sums)[c], scale, bias));
        }
    }
}

}  // namespace nnemu::synap::kernels
