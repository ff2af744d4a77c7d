// The quantized GEMM in plain C++: the reference's requantization helpers, one output at a time.
#include <cstring>

#include "GemmArgs.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::kernels {

void gemmPortable(const GemmArgs& a) {
    const size_t depth = a.depthGroups * 4;
    const uint8_t flip = a.signedValues ? 0x80 : 0;
    for (size_t r = 0; r < a.rowCount; ++r) {
        const uint8_t* row = a.rows + r * a.rowStride;
        uint32_t rowSum = 0;
        for (size_t k = 0; k < depth && a.rowTerms == nullptr && a.rowFactor != 0; ++k) rowSum += row[k];
        const uint32_t rowTerm = a.rowTerms != nullptr ? static_cast<uint32_t>(a.rowTerms[r])
                                                       : rowSum * static_cast<uint32_t>(a.rowFactor);
        for (size_t c = 0; c < a.channels; ++c) {
            const int8_t* w = a.weights + (c / kGemmBlock) * a.depthGroups * 64 + (c % kGemmBlock) * 4;
            uint32_t sum = 0;  // wraps like the vector kernels: the true total fits in 32 bits
            for (size_t k = 0; k < depth; k += 4) {
                for (size_t i = 0; i < 4; ++i) sum += static_cast<uint32_t>((row[k + i] ^ flip) * w[k / 4 * 64 + i]);
            }
            sum += rowTerm + static_cast<uint32_t>(a.colTerms[c]);
            const int32_t x = quant::saturatingAdd(static_cast<int32_t>(sum), a.bias[c]);
            const int32_t scaled = quant::multiplyByQuantizedMultiplier(x, a.multipliers[c],
                                                                      a.leftShifts[c] - a.rightShifts[c]);
            const int32_t value = std::clamp(quant::saturatingAdd(scaled, a.outputZeroPoint), a.low, a.high);
            a.output[r * a.outputStride + c] = static_cast<uint8_t>(value);
        }
    }
}

}  // namespace nnemu::synap::kernels
