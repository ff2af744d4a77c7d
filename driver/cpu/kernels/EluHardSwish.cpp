// Reference kernels of ELU and HARD_SWISH: evaluated in float; quantized HARD_SWISH dequantizes
// the input and requantizes with the output's own scale and zero point.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "MapFloat.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

double hardSwish(double x) { return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0; }

}  // namespace

bool kernels::eluKernel(OperationContext& context) {
    const float alpha = context.scalar<float>(1);
    return mapFloat(context, [alpha](float x) {
        return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x));
    });
}

bool kernels::hardSwishKernel(OperationContext& context) {
    if (!hal::isQuant8Asymm(context.inputType(0))) {
        return mapFloat(context, [](float x) { return static_cast<float>(hardSwish(x)); });
    }
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    const uint64_t n = output.elements();
    NN_RET_CHECK(input.elements() == n);
    for (uint64_t i = 0; i < n; ++i) storeQuant8FromReal(hardSwish(quant8RealValue(input, i)), output, i);
    return true;
}

}  // namespace nnemu::cpu
