// Reference kernel of INSTANCE_NORMALIZATION: every (batch, channel) plane of H x W values is
// centred on its own mean and divided by a spread measure of the plane,
//   out = (x - mean) * gamma / sqrt(spread + epsilon) + beta.
// Feature level 29 as Android 10 shipped it: the spread is the plane's mean square E[x^2], which
// is what Android 10's CTS goldens (and so every FL29 driver that passed it) compute. The NDK
// text says "variance"; Android 11's tests (feature level 30) have goldens of the variance
// E[(x - mean)^2]. nnemu reports feature level 29, so it computes what FL29 devices compute.
#include <cmath>
#include <vector>

#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

struct InstanceNormParams {
    double gamma = 1.0;
    double beta = 0.0;
    double epsilon = 0.0;
};

// Normalises plane (b, c) of `image` from `in` into `out`.
void normalizePlane(const std::vector<float>& in, std::vector<float>& out, const hal::Image4& image,
                    uint32_t b, uint32_t c, const InstanceNormParams& p) {
    const double count = static_cast<double>(image.height) * image.width;
    double sum = 0.0;
    for (uint32_t y = 0; y < image.height; ++y) {
        for (uint32_t x = 0; x < image.width; ++x) sum += in[image.at(b, y, x, c)];
    }
    const double mean = sum / count;
    double squares = 0.0;
    for (uint32_t y = 0; y < image.height; ++y) {
        for (uint32_t x = 0; x < image.width; ++x) {
            const double value = in[image.at(b, y, x, c)];
            squares += value * value;
        }
    }
    const double scale = p.gamma / std::sqrt(squares / count + p.epsilon);
    for (uint32_t y = 0; y < image.height; ++y) {
        for (uint32_t x = 0; x < image.width; ++x) {
            const size_t at = image.at(b, y, x, c);
            out[at] = static_cast<float>((in[at] - mean) * scale + p.beta);
        }
    }
}

}  // namespace

bool kernels::instanceNormalization(OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    NN_RET_CHECK(isFloatTensor(input.type) && output.type == input.type && input.rank() == 4);
    NN_RET_CHECK(output.length >= input.elements() * hal::elementSize(output.type));
    const InstanceNormParams params{context.scalar<float>(1), context.scalar<float>(2),
                                    context.scalar<float>(3)};
    const hal::Image4 image = hal::makeImage4(input.dims, context.scalar<bool>(4));
    const std::vector<float> in = readFloats(input);
    std::vector<float> out(in.size());
    for (uint32_t b = 0; b < image.batches; ++b) {
        for (uint32_t c = 0; c < image.channels; ++c) normalizePlane(in, out, image, b, c, params);
    }
    writeFloats(out, output);
    return true;
}

}  // namespace nnemu::cpu
