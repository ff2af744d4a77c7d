#include "CoreLimits.h"

#include <cmath>

namespace nnemu::synap {

bool ratioWithin(double numerator, double denominator, double low, double high) {
    const double ratio = numerator / denominator;
    return ratio >= low && ratio < high;
}

bool requantizationFactorSupported(float inputScale, float filterScale, float outputScale) {
    const float coreFactor = inputScale * filterScale / outputScale;
    return coreFactor < 256.0f && coreFactor >= 0x1p-32f &&
           ratioWithin(double{inputScale} * filterScale, outputScale, std::ldexp(1.0, -32), 256.0);
}

}  // namespace nnemu::synap
