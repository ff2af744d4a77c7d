#include "QuantPool.h"

namespace nnemu::synap::kernels {
namespace {

const PoolLoops& loopsFor(Isa isa) {
    switch (baseIsa(isa)) {
        case Isa::Avx512Vnni: return kPoolLoopsAvx512;
        case Isa::Avx2: return kPoolLoopsAvx2;
        default: return kPoolLoopsPortable;
    }
}

}  // namespace

void runMaxPoolRows(Isa isa, const MaxPoolSpec& spec, const uint8_t* input, uint8_t* output, size_t begin,
                    size_t end) {
    loopsFor(isa).maxRows(spec, input, output, begin, end);
}

void runGlobalAverage(Isa isa, const GlobalAverageSpec& spec, const uint8_t* input, uint8_t* output,
                      std::vector<int32_t>* sums) {
    sums->resize(spec.channels);
    const PoolLoops& loops = loopsFor(isa);
    const size_t image = size_t{spec.pixels} * spec.channels;
    for (size_t b = 0; b < spec.batches; ++b) {
        loops.sumPixels(spec.signedValues, input + b * image, spec.pixels, spec.channels, sums->data());
        loops.averages(spec, sums->data(), output + b * spec.channels);
    }
}

}  // namespace nnemu::synap::kernels
