// Eigen's summation orders for TFLite's float GEMM (see FloatGemmEigen.h): the blocking, the
// scalar orders of the last channels and of the small products, and the dispatch to the lane
// kernels (FloatGemmEigenTile.h).
#include "FloatGemmEigen.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace nnemu::tflite::kernels::floatgemm {
namespace {

// Kept apart so that no compiler fuses them (the file also builds with -ffp-contract=off).
inline float product(float a, float b) { return a * b; }

// Eigen's row-major matrix-vector order for one row: lanes of depth modulo 4, then the rest.
float gemvRow(const float* w, const float* x, size_t depth) {
    float lane[4] = {0, 0, 0, 0};
    const size_t whole = depth / 4 * 4;
    for (size_t d = 0; d < whole; d += 4) {
        for (size_t l = 0; l < 4; ++l) lane[l] = lane[l] + product(w[d + l], x[d + l]);
    }
    float sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    for (size_t d = whole; d < depth; ++d) sum = sum + product(w[d], x[d]);
    return sum;
}

// Eigen's inner product (one channel, one pixel): four packets, folded 3 into 2, 2 into 1, 1 into 0.
float innerProduct(const float* w, const float* x, size_t depth) {
    if (depth < 4) {
        float sum = product(w[0], x[0]);
        for (size_t d = 1; d < depth; ++d) sum = sum + product(w[d], x[d]);
        return sum;
    }
    const size_t packets = depth / 4, quadEnd = depth / 16 * 16, rest = (depth / 4 * 4 - quadEnd) / 4;
    float p[4][4];
    const auto load = [&](float* to, size_t d) {
        for (size_t l = 0; l < 4; ++l) to[l] = product(w[d + l], x[d + l]);
    };
    const auto add = [&](float* to, size_t d) {
        for (size_t l = 0; l < 4; ++l) to[l] = to[l] + product(w[d + l], x[d + l]);
    };
    const auto fold = [](float* to, const float* from) {
        for (size_t l = 0; l < 4; ++l) to[l] = to[l] + from[l];
    };
    load(p[0], 0);
    if (packets >= 2) {
        load(p[1], 4);
        if (packets >= 3) {
            load(p[2], 8);
            if (packets >= 4) {
                load(p[3], 12);
                for (size_t d = 16; d < quadEnd; d += 16) {
                    for (size_t i = 0; i < 4; ++i) add(p[i], d + 4 * i);
                }
                for (size_t i = 0; i < rest; ++i) add(p[i], quadEnd + 4 * i);
                fold(p[2], p[3]);
            }
            fold(p[1], p[2]);
        }
        fold(p[0], p[1]);
    }
    float sum = (p[0][0] + p[0][2]) + (p[0][1] + p[0][3]);
    for (size_t d = packets * 4; d < depth; ++d) sum = sum + product(w[d], x[d]);
    return sum;
}

// Eigen's coefficient-wise product (tiny products): a reduction over two packets.
float lazyProduct(const float* w, const float* x, size_t depth) {
    const size_t whole = depth / 4 * 4, pairs = depth / 8 * 8;
    if (whole == 0) {
        float sum = product(w[0], x[0]);
        for (size_t d = 1; d < depth; ++d) sum = sum + product(w[d], x[d]);
        return sum;
    }
    float p0[4], p1[4];
    for (size_t l = 0; l < 4; ++l) p0[l] = product(w[l], x[l]);
    if (whole > 4) {
        for (size_t l = 0; l < 4; ++l) p1[l] = product(w[4 + l], x[4 + l]);
        for (size_t d = 8; d < pairs; d += 8) {
            for (size_t l = 0; l < 4; ++l) {
                p0[l] = p0[l] + product(w[d + l], x[d + l]);
                p1[l] = p1[l] + product(w[d + 4 + l], x[d + 4 + l]);
            }
        }
        for (size_t l = 0; l < 4; ++l) p0[l] = p0[l] + p1[l];
        if (whole > pairs) {
            for (size_t l = 0; l < 4; ++l) p0[l] = p0[l] + product(w[pairs + l], x[pairs + l]);
        }
    }
    float sum = (p0[0] + p0[2]) + (p0[1] + p0[3]);
    for (size_t d = whole; d < depth; ++d) sum = sum + product(w[d], x[d]);
    return sum;
}

// One depth block of a channel past the groups of 8: the group of 4 (`four`) or the last 1-3,
// for a pixel in a group of 4 (`grouped`) or among the last ones.
float blockSum(const float* w, const float* x, size_t length, bool four, bool grouped) {
    if (!grouped) {
        float sum = 0;
        for (size_t d = 0; d < length; ++d) sum = sum + product(w[d], x[d]);
        return sum;
    }
    if (four) {
        const size_t peeled = length / 8 * 8;
        float even = 0, odd = 0;
        for (size_t d = 0; d < peeled; d += 2) {
            even = even + product(w[d], x[d]);
            odd = odd + product(w[d + 1], x[d + 1]);
        }
        float sum = even + odd;
        for (size_t d = peeled; d < length; ++d) sum = sum + product(w[d], x[d]);
        return sum;
    }
    const size_t whole = length / 4 * 4;
    float lane[4] = {0, 0, 0, 0};
    for (size_t d = 0; d < whole; d += 4) {
        for (size_t l = 0; l < 4; ++l) lane[l] = lane[l] + product(w[d + l], x[d + l]);
    }
    float sum = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (size_t d = whole; d < length; ++d) sum = sum + product(w[d], x[d]);
    return sum;
}

inline float finish(float sum, const float* bias, size_t c, float low, float high) {
    const float value = bias != nullptr ? sum + bias[c] : sum;
    return std::min(std::max(value, low), high);
}

LaneKernels bestKernels() {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx512f")) return avx512Kernels();
#endif
    return portableKernels();
}

// The general product: channel blocks of kLanes over tiles of pixels in the sequential
// order of Eigen's groups of 8 channels; the channels past them redone in their own orders.
void runBlocked(const Plan& plan, const LaneKernels& kernels, const float* in, size_t pixels, const float* bias, float low,
                float high, float* out) {
    const size_t units = plan.units, depth = plan.depth;
    const size_t kc = depthBlock(depth, units, pixels, eigenL1CacheBytes());
    float acc[kMaxPixels * kLanes];
    const float* rows[kMaxPixels];
    for (size_t first = 0; first < pixels; first += kernels.pixels) {
        const size_t count = std::min(kernels.pixels, pixels - first);
        for (size_t i = 0; i < count; ++i) rows[i] = in + (first + i) * depth;
        for (size_t b = 0; b < plan.blocks; ++b) {
            std::fill(acc, acc + count * kLanes, 0.0f);
            const float* packed = plan.packed.data() + b * depth * kLanes;
            for (size_t k = 0; k < depth; k += kc) kernels.tile(packed, rows, count, k, std::min(kc, depth - k), acc);
            const size_t lanes = std::min(kLanes, units - b * kLanes);
            for (size_t i = 0; i < count; ++i) {
                float* to = out + (first + i) * units + b * kLanes;
                for (size_t l = 0; l < lanes; ++l) to[l] = finish(acc[i * kLanes + l], bias, b * kLanes + l, low, high);
            }
        }
    }
    const size_t groups8 = units / 8 * 8, groups4 = groups8 + (units - groups8) / 4 * 4, grouped = pixels / 4 * 4;
    for (size_t c = groups8; c < units; ++c) {
        const float* w = plan.rows.data() + c * depth;
        for (size_t p = 0; p < pixels; ++p) {
            float sum = 0;
            for (size_t k = 0; k < depth; k += kc) {
                sum = sum + blockSum(w + k, in + p * depth + k, std::min(kc, depth - k), c < groups4, p < grouped);
            }
            out[p * units + c] = finish(sum, bias, c, low, high);
        }
    }
}

}  // namespace

void makePlan(const float* filters, size_t units, size_t depth, Plan* plan) {
    plan->units = units;
    plan->depth = depth;
    plan->blocks = (units + kLanes - 1) / kLanes;
    plan->rows.assign(filters, filters + units * depth);
    plan->packed.assign(plan->blocks * depth * kLanes, 0.0f);
    for (size_t c = 0; c < units; ++c) {
        float* block = plan->packed.data() + (c / kLanes) * depth * kLanes + c % kLanes;
        for (size_t d = 0; d < depth; ++d) block[d * kLanes] = filters[c * depth + d];
    }
}

size_t eigenL1CacheBytes() {
    static const size_t bytes = [] {
        long l1 = 0;
#if defined(__x86_64__) || defined(__i386__)
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (__get_cpuid(0, &a, &b, &c, &d)) {
            // "AuthenticAMD" / "AMDisbetter!": the extended leaf; any other vendor: leaf 4, as Eigen.
            const bool amd = (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163) ||
                             (b == 0x69444d41 && d == 0x74656273 && c == 0x21726574);
            if (amd) {
                if (__get_cpuid(0x80000005, &a, &b, &c, &d)) l1 = static_cast<long>(c >> 24) * 1024;
            } else {
                for (unsigned id = 0; id < 16; ++id) {
                    __cpuid_count(4, id, a, b, c, d);
                    const unsigned type = a & 0x0F;
                    if (type == 0) break;
                    if ((type == 1 || type == 3) && ((a & 0xE0) >> 5) == 1) {
                        l1 = static_cast<long>(((b & 0xFFC00000) >> 22) + 1) * (((b & 0x003FF000) >> 12) + 1) *
                             ((b & 0x00000FFF) + 1) * (static_cast<long>(c) + 1);
                    }
                }
            }
        }
#endif
        return static_cast<size_t>(l1 > 0 ? l1 : 32 * 1024);
    }();
    return bytes;
}

size_t depthBlock(size_t depth, size_t units, size_t pixels, size_t l1Bytes) {
    if (std::max({depth, units, pixels}) < 48) return depth;
    // Eigen's register block for float without FMA: 8 rows (mr) by 4 columns (nr).
    constexpr long kDiv = 8 * sizeof(float) + 4 * sizeof(float), kSub = 8 * 4 * sizeof(float), kPeel = 8;
    const long maxKc = std::max<long>(((static_cast<long>(l1Bytes) - kSub) / kDiv) & ~(kPeel - 1), 1);
    const long k = static_cast<long>(depth);
    if (k <= maxKc) return depth;
    if (k % maxKc == 0) return static_cast<size_t>(maxKc);
    return static_cast<size_t>(maxKc - kPeel * ((maxKc - 1 - k % maxKc) / (kPeel * (k / maxKc + 1))));
}

void run(const Plan& plan, const float* in, size_t pixels, const float* bias, float low, float high, float* out) {
    const size_t units = plan.units, depth = plan.depth;
    if (units == 0 || pixels == 0) return;
    if (depth == 0) {
        for (size_t p = 0; p < pixels; ++p) {
            for (size_t c = 0; c < units; ++c) out[p * units + c] = finish(0.0f, bias, c, low, high);
        }
        return;
    }
    static const LaneKernels kernels = bestKernels();
    const float* w = plan.rows.data();
    if (pixels == 1 && units == 1) {
        out[0] = finish(innerProduct(w, in, depth), bias, 0, low, high);
    } else if (pixels == 1) {
        float sums[kLanes];
        for (size_t b = 0; b < plan.blocks; ++b) {
            kernels.gemv(plan.packed.data() + b * depth * kLanes, in, depth, sums);
            for (size_t l = 0; l < kLanes && b * kLanes + l < units; ++l) {
                out[b * kLanes + l] = finish(sums[l], bias, b * kLanes + l, low, high);
            }
        }
    } else if (units == 1) {
        for (size_t p = 0; p < pixels; ++p) out[p] = finish(gemvRow(w, in + p * depth, depth), bias, 0, low, high);
    } else if (depth + units + pixels < 20) {
        for (size_t p = 0; p < pixels; ++p) {
            for (size_t c = 0; c < units; ++c) {
                out[p * units + c] = finish(lazyProduct(w + c * depth, in + p * depth, depth), bias, c, low, high);
            }
        }
    } else {
        runBlocked(plan, kernels, in, pixels, bias, low, high, out);
    }
}

}  // namespace nnemu::tflite::kernels::floatgemm
