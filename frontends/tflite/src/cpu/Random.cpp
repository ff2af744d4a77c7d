// RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL as TFLite 2.21's kernels draw them:
// a Philox-4x32-10 generator keyed by the options' seed and seed2 (their low 32 bits, as TFLite
// keeps them), its 32-bit words turned into
// floats in [0, 1) (23 mantissa bits), normals by Box-Muller in float (glibc's logf, sqrtf,
// sincosf), categories by an upper bound in the rows' cumulative exp(logit - max) sums (double).
// The generator lives as long as the node's unit: each invoke continues the stream, as TFLite's
// kernels keep theirs from prepare on. MULTINOMIAL draws from a copy and moves the generator a
// fixed distance on, as TFLite's kernel does. Seeds both 0: TFLite seeds from /dev/urandom; so
// does nnemu (std::random_device), so such models give other numbers on every load.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "../RandomSparseAbi.h"
#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

class Philox {
public:
    using Block = std::array<uint32_t, 4>;
    Philox(uint64_t seedLow, uint64_t seedHigh)
        : counter_{0, 0, static_cast<uint32_t>(seedHigh), static_cast<uint32_t>(seedHigh >> 32)},
          key_{static_cast<uint32_t>(seedLow), static_cast<uint32_t>(seedLow >> 32)} {}

    Block next() {
        Block block = counter_;
        std::array<uint32_t, 2> key = key_;
        for (int round = 0; round < 10; ++round) {
            if (round > 0) {
                key[0] += 0x9E3779B9u;
                key[1] += 0xBB67AE85u;
            }
            const uint64_t product0 = uint64_t{0xD2511F53u} * block[0];
            const uint64_t product1 = uint64_t{0xCD9E8D57u} * block[2];
            block = {static_cast<uint32_t>(product1 >> 32) ^ block[1] ^ key[0], static_cast<uint32_t>(product1),
                     static_cast<uint32_t>(product0 >> 32) ^ block[3] ^ key[1], static_cast<uint32_t>(product0)};
        }
        skip(1);
        return block;
    }
    // Moves the counter `blocks` 128-bit blocks on (carrying into the upper words).
    void skip(uint64_t blocks) {
        uint64_t low = (uint64_t{counter_[1]} << 32 | counter_[0]) + blocks;
        const bool carry = low < blocks;
        counter_[0] = static_cast<uint32_t>(low);
        counter_[1] = static_cast<uint32_t>(low >> 32);
        if (carry && ++counter_[2] == 0) ++counter_[3];
    }

private:
    Block counter_;
    std::array<uint32_t, 2> key_;
};

float unitFloat(uint32_t x) {
    const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value - 1.0f;
}

double unitDouble(uint32_t high, uint32_t low) {
    const uint64_t bits = (uint64_t{1023} << 52) | (uint64_t{high & 0xfffffu} << 32) | low;
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value - 1.0;
}

void boxMuller(uint32_t x0, uint32_t x1, float* f0, float* f1) {
    const float u1 = std::max(unitFloat(x0), 1.0e-7f);
    const auto v1 = static_cast<float>(2.0f * 3.14159265358979323846 * unitFloat(x1));
    const float u2 = sqrtf(-2.0f * logf(u1));
    sincosf(v1, f0, f1);
    *f0 *= u2;
    *f1 *= u2;
}

// The node's generator: from the options' seeds, or random ones when both are 0.
Philox& generatorOf(const CpuKernelCall& call) {
    if (*call.state == nullptr) {
        const auto* params = call.params<TfLiteRandomParams>();
        // TFLite's int seeds, sign-extended (the file's seeds truncated to 32 bits).
        uint64_t seed = params != nullptr ? static_cast<uint64_t>(int64_t{params->seed}) : 0;
        uint64_t seed2 = params != nullptr ? static_cast<uint64_t>(int64_t{params->seed2}) : 0;
        if (seed == 0 && seed2 == 0) {
            std::random_device device("/dev/urandom");
            std::mt19937_64 seeds(device());
            seed = seeds();
            seed2 = seeds();
        }
        *call.state = std::make_shared<Philox>(seed, seed2);
    }
    return *static_cast<Philox*>(call.state->get());
}

// RANDOM_*: the output's shape is input 0's int32 values.
bool outputShapeOf(const CpuKernelCall& call, bool* known, std::vector<int32_t>* shape) {
    if (call.in(0).type() != ElementType::INT32) return call.fail("shape of type " + std::string(elementTypeName(call.in(0).type())) + " is not supported");
    if (call.in(0).rank() != 1) return call.fail("shape must be 1-D");
    std::vector<int64_t> values;
    if (!call.ints(0, &values, known)) return false;
    shape->clear();
    for (int64_t dim : values) {
        if (dim < 0) return call.fail("shape has the negative dimension " + std::to_string(dim));
        shape->push_back(static_cast<int32_t>(dim));
    }
    return true;
}

bool prepareRandom(const CpuKernelCall& call) {
    bool known = false;
    std::vector<int32_t> shape;
    if (!call.expectCounts(1, 1, 1) || !outputShapeOf(call, &known, &shape)) return false;
    if (!call.expectType(call.out(0), {ElementType::FLOAT32}, "output")) return false;
    return !known || call.expectOutputShape(0, shape);
}

template <bool normal>
bool runRandom(const CpuKernelCall& call) {
    bool known = false;
    std::vector<int32_t> shape;
    if (!prepareRandom(call) || !outputShapeOf(call, &known, &shape) || !call.resizeOutput(0, shape)) return false;
    Philox& rng = generatorOf(call);
    const size_t count = call.out(0).count();
    for (size_t done = 0; done < count; done += 4) {
        const Philox::Block block = rng.next();
        const size_t n = std::min<size_t>(4, count - done);
        if constexpr (normal) {
            for (size_t i = 0; i < n; i += 2) {
                float pair[2];
                boxMuller(block[i], block[i + 1], &pair[0], &pair[1]);
                call.out(0).set<float>(done + i, pair[0]);
                if (i + 1 < n) call.out(0).set<float>(done + i + 1, pair[1]);
            }
        } else {
            for (size_t i = 0; i < n; ++i) call.out(0).set<float>(done + i, unitFloat(block[i]));
        }
    }
    return true;
}

// MULTINOMIAL: [batch, classes] float logits, an int32 scalar sample count; [batch, samples] out.
bool multinomialShape(const CpuKernelCall& call, bool* known, std::vector<int32_t>* shape) {
    if (!call.expectCounts(2, 2, 1) || !call.expectType(call.in(0), {ElementType::FLOAT32}, "logits") ||
        !call.expectType(call.in(1), {ElementType::INT32}, "num_samples") ||
        !call.expectType(call.out(0), {ElementType::INT32, ElementType::INT64}, "output")) {
        return false;
    }
    if (call.in(0).rank() != 2) return call.fail("logits must be 2-D");
    if (call.in(0).shape()[1] <= 0) return call.fail("logits must have at least one class");
    if (call.in(1).rank() != 0) return call.fail("num_samples must be a scalar");
    *known = call.in(1).known();
    if (!*known) return true;
    const int32_t samples = call.in(1).at<int32_t>(0);
    if (samples < 0) return call.fail("num_samples " + std::to_string(samples) + " is negative");
    *shape = {call.in(0).shape()[0], samples};
    return true;
}

bool prepareMultinomial(const CpuKernelCall& call) {
    bool known = false;
    std::vector<int32_t> shape;
    if (!multinomialShape(call, &known, &shape)) return false;
    return !known || call.expectOutputShape(0, shape);
}

bool runMultinomial(const CpuKernelCall& call) {
    bool known = false;
    std::vector<int32_t> shape;
    if (!multinomialShape(call, &known, &shape) || !call.resizeOutput(0, shape)) return false;
    Philox& rng = generatorOf(call);
    const auto batches = static_cast<size_t>(shape[0]), samples = static_cast<size_t>(shape[1]);
    const auto classes = static_cast<size_t>(call.in(0).shape()[1]);
    Philox draw = rng;
    rng.skip(static_cast<uint64_t>(batches) * ((samples + 3) / 4 * 4) * 2 * 256);
    Philox::Block block{};
    size_t used = 4;
    std::vector<double> cdf(classes);
    for (size_t b = 0; b < batches; ++b) {
        float max = std::numeric_limits<float>::lowest();
        for (size_t c = 0; c < classes; ++c) {
            const float logit = call.in(0).at<float>(b * classes + c);
            if (std::isfinite(logit)) max = std::max(max, logit);
        }
        double total = 0.0;
        for (size_t c = 0; c < classes; ++c) {
            const float logit = call.in(0).at<float>(b * classes + c);
            if (std::isfinite(logit)) total += std::exp(logit - static_cast<double>(max));
            cdf[c] = total;
        }
        for (size_t s = 0; s < samples; ++s) {
            if (used == 4) {
                block = draw.next();
                used = 0;
            }
            const double target = unitDouble(block[used], block[used + 1]) * total;
            used += 2;
            setIndex(call.out(0), b * samples + s, std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
        }
    }
    return true;
}

}  // namespace

void addRandomKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_RANDOM_UNIFORM, {prepareRandom, runRandom<false>});
    table.add(fb::BuiltinOperator_RANDOM_STANDARD_NORMAL, {prepareRandom, runRandom<true>});
    table.add(fb::BuiltinOperator_MULTINOMIAL, {prepareMultinomial, runMultinomial});
}

}  // namespace nnemu::tflite
