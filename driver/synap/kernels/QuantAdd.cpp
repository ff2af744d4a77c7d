#include "QuantAdd.h"


#include <algorithm>
#include <cmath>

#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::kernels {
namespace {

constexpr int kLeftShift = 20;  // the reference's headroom

bool hasAvx512Vbmi() {
    static const bool has = [] {
        const auto& isas = supportedIsas();
        return std::find(isas.begin(), isas.end(), Isa::Avx512Vnni) != isas.end() && __builtin_cpu_supports("avx512vbmi");
    }();
    return has;
}

// The reference multiplies (q - zeroPoint) << 20 by a Q31 multiplier with a right shift (the
// input ratio is at most 1/2, so the shift never goes left).
bool prepareInput(bool isSigned, int32_t zeroPoint, double real, bool negate, AddInput* input) {
    int32_t multiplier;
    int shift;
    quant::quantizeMultiplier(real, &multiplier, &shift);
    if (shift > 0) return false;
    if (negate) multiplier = -multiplier;
    input->zeroPoint = zeroPoint;
    input->multiplierHigh = multiplier >> 16;  // arithmetic: multiplier = high * 2^16 + low
    input->multiplierLow = multiplier & 0xFFFF;
    input->rightShift = std::min(-shift, 31);
    for (int byte = 0; byte < 256; ++byte) {
        const int32_t q = isSigned ? static_cast<int8_t>(byte) : byte;
        input->term[byte] = quant::multiplyByQuantizedMultiplier((q - zeroPoint) * (1 << kLeftShift), multiplier, shift);
        for (int k = 0; k < 4; ++k) {
            input->termBytes[k][byte] = static_cast<uint8_t>(static_cast<uint32_t>(input->term[byte]) >> (8 * k));
        }
    }
    return true;
}

}  // namespace

bool prepareQuantAdd(const QuantAddSpec& spec, QuantAddParams* params) {
    for (float scale : {spec.scales[0], spec.scales[1], spec.outputScale}) {
        if (!(scale > 0.0f) || !std::isfinite(scale)) return false;
    }
    const double twiceMaxScale = 2.0 * std::max(spec.scales[0], spec.scales[1]);
    params->signedValues = spec.signedValues;
    for (int i = 0; i < 2; ++i) {
        if (!prepareInput(spec.signedValues, spec.zeroPoints[i], spec.scales[i] / twiceMaxScale,
                          spec.subtract && i == 1, &params->inputs[i])) {
            return false;
        }
    }
    int shift;
    quant::quantizeMultiplier(twiceMaxScale / ((1 << kLeftShift) * static_cast<double>(spec.outputScale)),
                            &params->outputMultiplier, &shift);
    if (shift > 0) return false;
    params->outputRightShift = std::min(-shift, 31);
    params->outputZeroPoint = spec.outputZeroPoint;
    params->low = spec.low;
    params->high = spec.high;
    params->byteLookups = hasAvx512Vbmi();
    prepareWordTables(params);
    return true;
}

uint8_t addOutput(const QuantAddParams& p, int32_t sum) {
    const int32_t scaled = quant::roundingDivideByPOT(
            quant::saturatingRoundingDoublingHighMul(sum, p.outputMultiplier), p.outputRightShift);
    return static_cast<uint8_t>(std::clamp(scaled + p.outputZeroPoint, p.low, p.high));
}

void addRowPortable(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                    uint8_t* out, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        out[i] = addOutput(p, p.inputs[0].term[a[i * aStep]] + p.inputs[1].term[b[i * bStep]]);
    }
}

void runQuantAddRow(Isa isa, const QuantAddParams& params, const uint8_t* a, size_t aStep, const uint8_t* b,
                    size_t bStep, uint8_t* out, size_t count) {
    switch (baseIsa(isa)) {
        case Isa::Avx512Vnni:
            if (params.byteLookups) return addRowAvx512Vbmi(params, a, aStep, b, bStep, out, count);
            return addRowAvx512(params, a, aStep, b, bStep, out, count);
        case Isa::Avx2: return addRowAvx2(params, a, aStep, b, bStep, out, count);
        default: return addRowPortable(params, a, aStep, b, bStep, out, count);
    }
}

namespace {

// Dims right-aligned to rank 4, with each input's step per output dim (0 where it broadcasts),
// adjacent dims merged where both inputs step alike.
struct Walk {
    std::vector<size_t> sizes, aSteps, bSteps;
};

bool planWalk(const std::vector<uint32_t>& aDims, const std::vector<uint32_t>& bDims,
              const std::vector<uint32_t>& outDims, Walk* walk) {
    const size_t rank = outDims.size();
    if (rank == 0 || aDims.size() > rank || bDims.size() > rank) return false;
    size_t aStride = 1, bStride = 1;
    for (size_t k = rank; k-- > 0;) {  // innermost first
        const size_t n = outDims[k];
        const size_t ad = k + aDims.size() >= rank ? aDims[k + aDims.size() - rank] : 1;
        const size_t bd = k + bDims.size() >= rank ? bDims[k + bDims.size() - rank] : 1;
        if ((ad != n && ad != 1) || (bd != n && bd != 1)) return false;
        const size_t as = ad == 1 ? 0 : aStride, bs = bd == 1 ? 0 : bStride;
        aStride *= ad;
        bStride *= bd;
        if (n == 1) continue;
        const bool merges = !walk->sizes.empty() &&
                            (as == 0) == (walk->aSteps.back() == 0) && (bs == 0) == (walk->bSteps.back() == 0) &&
                            (as == 0 || as == walk->aSteps.back() * walk->sizes.back()) &&
                            (bs == 0 || bs == walk->bSteps.back() * walk->sizes.back());
        if (merges) {
            walk->sizes.back() *= n;
        } else {
            walk->sizes.push_back(n);
            walk->aSteps.push_back(as);
            walk->bSteps.push_back(bs);
        }
    }
    if (walk->sizes.empty()) {  // a single element
        walk->sizes = {1};
        walk->aSteps = {0};
        walk->bSteps = {0};
    }
    return true;
}

}  // namespace

bool forEachBroadcastRow(const std::vector<uint32_t>& aDims, const std::vector<uint32_t>& bDims,
                         const std::vector<uint32_t>& outDims, const BroadcastRow& row) {
    Walk walk;
    if (!planWalk(aDims, bDims, outDims, &walk)) return false;
    if (std::find(outDims.begin(), outDims.end(), 0u) != outDims.end()) return true;  // nothing to compute
    // walk.sizes[0] is the innermost run; the others are walked as an odometer.
    const size_t inner = walk.sizes[0], outer = walk.sizes.size();
    std::vector<size_t> index(outer, 0);
    size_t aOffset = 0, bOffset = 0;
    for (size_t done = 0;;) {
        row(aOffset, walk.aSteps[0] != 0, bOffset, walk.bSteps[0] != 0, done, inner);
        done += inner;
        size_t k = 1;
        for (; k < outer; ++k) {
            aOffset += walk.aSteps[k];
            bOffset += walk.bSteps[k];
            if (++index[k] < walk.sizes[k]) break;
            aOffset -= walk.aSteps[k] * walk.sizes[k];
            bOffset -= walk.bSteps[k] * walk.sizes[k];
            index[k] = 0;
        }
        if (k == outer) return true;
    }
}

bool runQuantAdd(Isa isa, const QuantAddParams& params, const std::vector<uint32_t>& aDims, const uint8_t* a,
                 const std::vector<uint32_t>& bDims, const uint8_t* b, const std::vector<uint32_t>& outDims,
                 uint8_t* out) {
    return forEachBroadcastRow(aDims, bDims, outDims,
                               [&](size_t aOffset, bool aSteps, size_t bOffset, bool bSteps, size_t o, size_t count) {
        runQuantAddRow(isa, params, a + aOffset, aSteps, b + bOffset, bSteps, out + o, count);
    });
}

}  // namespace nnemu::synap::kernels
