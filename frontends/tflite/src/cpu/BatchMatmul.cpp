// BATCH_MATMUL's forms NNAPI's operation does not take: float32 and int8 whose batch dimensions
// broadcast or whose ranks differ or pass 4, and int16 (NNAPI has no form). The plain float32 and
// int8 forms are lowered to NNAPI's BATCH_MATMUL.
// float32: TFLite 2.21's x86 build (its builtin kernel, without XNNPACK) sums each output from 0
// in the depth's order, each product rounded before its addition, whatever the shapes (measured
// against tflite_run: not the Eigen GEMM order of its FULLY_CONNECTED), as NNAPI's reference does
// for the forms it takes. No bias, no clamp.
// TFLite 2.21's quantized arithmetic: sum over the depth of (lhs - its zero point) * (rhs - its zero point),
// requantized by lhs_scale * rhs_scale (a float product) / out_scale; int8 with int32 sums and
// the rounding of its MultiplyByQuantizedMultiplier (halves away from zero; ruy's ties-up
// requantization, which the int8 CONV_2D takes, is a step off on some values here), int16 (zero
// points 0) on its reference kernel with int64 sums and the 64-bit requantization. No fused
// activation: the type's full range.
// adj_x with both ranks above 2, the right side's third dimension from the end 1 and the left
// side's not: TFLite folds that dimension away there and writes the first left batch's product
// only; the rest of its output keeps what its arena held before (measured: other operators' values
// of the same model), which no kernel can reproduce. The tools compute the product there, which is
// what TFLite gives when the right side's unit dimension is tiled to the left side's.
#include <algorithm>
#include <cstdint>

#include "ConvInt8.h"
#include "ConvInt8Gemm.h"
#include "CpuKernelList.h"
#include "nnemu/base/Clones.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite::kernels::batch_matmul {
namespace {


// The shapes of one node: each input extended to the output's rank with leading 1s, the output
// batch dimensions (broadcast), rows m, depth k, columns n.
struct Geometry {
    std::vector<int32_t> lhs, rhs, batch;
    size_t m = 0, k = 0, n = 0;
    bool adjX = false, adjY = false;
};

bool geometry(const CpuKernelCall& call, Geometry* g) {
    const auto* options = call.params<TfLiteBatchMatMulParams>();
    if (options == nullptr) return call.fail("missing BatchMatMulOptions");
    const std::vector<int32_t> &x = call.in(0).shape(), &y = call.in(1).shape();
    if (x.size() < 2 || x.size() > 5 || y.size() < 2 || y.size() > 5) {
        return call.fail("inputs of ranks " + std::to_string(x.size()) + " and " + std::to_string(y.size()) +
                         " (2 to 5 are supported)");
    }
    const size_t rank = std::max(x.size(), y.size());
    g->lhs.assign(rank - x.size(), 1);
    g->lhs.insert(g->lhs.end(), x.begin(), x.end());
    g->rhs.assign(rank - y.size(), 1);
    g->rhs.insert(g->rhs.end(), y.begin(), y.end());
    g->batch.clear();
    for (size_t d = 0; d + 2 < rank; ++d) {
        const int32_t a = g->lhs[d], b = g->rhs[d];
        if (a != b && a != 1 && b != 1) {
            return call.fail("batch dimensions " + shapeText(x) + " and " + shapeText(y) + " do not broadcast");
        }
        g->batch.push_back(a == 1 ? b : a);
    }
    g->adjX = options->adj_x;
    g->adjY = options->adj_y;
    const int32_t lhsRows = g->lhs[rank - 2], lhsCols = g->lhs[rank - 1];
    const int32_t rhsRows = g->rhs[rank - 2], rhsCols = g->rhs[rank - 1];
    const int32_t depthX = g->adjX ? lhsRows : lhsCols, depthY = g->adjY ? rhsCols : rhsRows;
    if (depthX != depthY) return call.fail("depths " + std::to_string(depthX) + " and " + std::to_string(depthY) + " differ");
    if (std::any_of(g->lhs.begin(), g->lhs.end(), [](int32_t d) { return d < 0; }) ||
        std::any_of(g->rhs.begin(), g->rhs.end(), [](int32_t d) { return d < 0; })) {
        return call.fail("negative dimension");
    }
    g->m = static_cast<size_t>(g->adjX ? lhsCols : lhsRows);
    g->k = static_cast<size_t>(depthX);
    g->n = static_cast<size_t>(g->adjY ? rhsRows : rhsCols);
    std::vector<int32_t> out = g->batch;
    out.push_back(static_cast<int32_t>(g->m));
    out.push_back(static_cast<int32_t>(g->n));
    return call.expectOutputShape(0, out);
}

// TFLite's multiplier: double(lhs_scale * rhs_scale) / double(out_scale).
bool multiplier(const CpuKernelCall& call, int32_t* quantized, int* shift) {
    const Tensor &x = *call.in(0).tensor, &y = *call.in(1).tensor, &out = *call.out(0).tensor;
    if (!(x.scale > 0) || !(y.scale > 0) || !(out.scale > 0)) return call.fail("quantized tensors need positive scales");
    conv::channelMultiplier(conv::MultiplierFrom::FloatProduct, x.scale, y.scale, out.scale, quantized, shift);
    // The int16 form's 64-bit requantization takes shifts below 8 (TFLite's too).
    const int most = call.in(0).type() == ElementType::INT16 ? 7 : 30;
    if (*shift < -31 || *shift > most) return call.fail("requantization multiplier out of range");
    return true;
}

// Calls visit(batch, lhs matrix index, rhs matrix index) for each output matrix, the broadcast
// dimensions repeating the input's one matrix.
template <typename Visit>
void forEachBatch(const Geometry& g, Visit&& visit) {
    const size_t dims = g.batch.size();
    const size_t batches = elementCount(g.batch);
    std::vector<size_t> index(dims, 0);
    for (size_t b = 0; b < batches; ++b) {
        size_t lhs = 0, rhs = 0;
        for (size_t d = 0; d < dims; ++d) {
            lhs = lhs * static_cast<size_t>(g.lhs[d]) + (g.lhs[d] == 1 ? 0 : index[d]);
            rhs = rhs * static_cast<size_t>(g.rhs[d]) + (g.rhs[d] == 1 ? 0 : index[d]);
        }
        visit(b, lhs, rhs);
        for (size_t d = dims; d-- > 0;) {
            if (++index[d] < static_cast<size_t>(g.batch[d])) break;
            index[d] = 0;
        }
    }
}

// int8: each rhs matrix packed for the GEMM (minus its zero point), the lhs rows widened.
void runInt8(const CpuKernelCall& call, const Geometry& g, int32_t multiplier, int shift) {
    using conv::kGemmLanes;
    const auto* lhs = reinterpret_cast<const int8_t*>(call.in(0).data);
    const auto* rhs = reinterpret_cast<const int8_t*>(call.in(1).data);
    auto* output = reinterpret_cast<int8_t*>(call.out(0).out);
    const auto lhsZero = static_cast<int32_t>(call.in(0).tensor->zeroPoint);
    const auto rhsZero = static_cast<int32_t>(call.in(1).tensor->zeroPoint);
    if (g.k == 0) {   // empty sums: the output's zero point
        std::fill(output, output + call.out(0).count(), static_cast<int8_t>(call.out(0).tensor->zeroPoint));
        return;
    }
    const size_t m = g.m, k = g.k, n = g.n, pairs = (k + 1) / 2, blocks = (n + kGemmLanes - 1) / kGemmLanes;
    const size_t stride = blocks * kGemmLanes, packedSize = blocks * pairs * 2 * kGemmLanes;
    const size_t rhsMatrices = elementCount(std::vector<int32_t>(g.rhs.begin(), g.rhs.end() - 2));
    std::vector<int16_t> packed(rhsMatrices * packedSize, 0);
    for (size_t r = 0; r < rhsMatrices; ++r) {
        const int8_t* matrix = rhs + r * k * n;
        int16_t* to = packed.data() + r * packedSize;
        for (size_t c = 0; c < n; ++c) {
            int16_t* block = to + (c / kGemmLanes) * pairs * 2 * kGemmLanes + (c % kGemmLanes) * 2;
            for (size_t d = 0; d < k; ++d) {
                const int8_t v = g.adjY ? matrix[c * k + d] : matrix[d * n + c];
                block[(d / 2) * 2 * kGemmLanes + d % 2] = static_cast<int16_t>(v - rhsZero);
            }
        }
    }
    const auto outZero = static_cast<int32_t>(call.out(0).tensor->zeroPoint);
    constexpr size_t kTile = 48;   // rows per GEMM call
    const size_t depth = 2 * pairs, tile = std::min(kTile, std::max<size_t>(m, 1));
    std::vector<int16_t> rows(tile * depth, 0);
    std::vector<int32_t> sums(tile * stride);
    const conv::Int16Gemm gemm = conv::bestInt16Gemm();
    forEachBatch(g, [&](size_t b, size_t l, size_t r) {
        const int8_t* matrix = lhs + l * m * k;
        for (size_t first = 0; first < m; first += tile) {
            const size_t count = std::min(tile, m - first);
            for (size_t i = 0; i < count; ++i) {
                int16_t* row = rows.data() + i * depth;
                if (!g.adjX) {
                    conv::widenMinusZeroPoint(matrix + (first + i) * k, k, lhsZero, row);
                } else {
                    for (size_t d = 0; d < k; ++d) row[d] = static_cast<int16_t>(matrix[d * m + first + i] - lhsZero);
                }
            }
            gemm(rows.data(), count, packed.data() + r * packedSize, blocks, pairs, sums.data());
            for (size_t i = 0; i < count; ++i) {
                const int32_t* row = sums.data() + i * stride;
                int8_t* to = output + (b * m + first + i) * n;
                for (size_t c = 0; c < n; ++c) {
                    const int32_t value = quant::multiplyByQuantizedMultiplier(row[c], multiplier, shift) + outZero;
                    to[c] = static_cast<int8_t>(std::clamp<int32_t>(value, -128, 127));
                }
            }
        }
    });
}

// int16 (every zero point 0): TFLite's reference kernel, int64 sums.
void runInt16(const CpuKernelCall& call, const Geometry& g, int32_t multiplier, int shift) {
    const auto* lhs = reinterpret_cast<const int16_t*>(call.in(0).data);
    const auto* rhs = reinterpret_cast<const int16_t*>(call.in(1).data);
    auto* output = reinterpret_cast<int16_t*>(call.out(0).out);
    const size_t m = g.m, k = g.k, n = g.n;
    // Each lhs row and rhs column laid out along the depth.
    std::vector<int16_t> row(k), column(k * n);
    forEachBatch(g, [&](size_t b, size_t l, size_t r) {
        const int16_t* x = lhs + l * m * k;
        const int16_t* y = rhs + r * k * n;
        for (size_t c = 0; c < n; ++c) {
            for (size_t d = 0; d < k; ++d) column[c * k + d] = g.adjY ? y[c * k + d] : y[d * n + c];
        }
        for (size_t i = 0; i < m; ++i) {
            for (size_t d = 0; d < k; ++d) row[d] = g.adjX ? x[d * m + i] : x[i * k + d];
            for (size_t c = 0; c < n; ++c) {
                int64_t total = 0;
                const int16_t* col = column.data() + c * k;
                for (size_t d = 0; d < k; ++d) total += int64_t{row[d]} * col[d];
                const int32_t scaled = conv::requantize64(total, multiplier, shift);
                output[(b * m + i) * n + c] = static_cast<int16_t>(std::clamp<int32_t>(scaled, -32768, 32767));
            }
        }
    });
}

// float32: out[i][c] = sum over d of x[i][d] * y[d][c], summed from 0 in the depth's order, each
// product rounded before its addition (the file builds without FMA contraction); a whole output
// row at a time, its columns in vector lanes. x's element (i, d) is x[i * rowStep + d * depthStep];
// y is row-major [k, n].
NNEMU_CLONES void floatProduct(const float* x, size_t rowStep, size_t depthStep, const float* y, size_t m, size_t k,
                               size_t n, float* out) {
    for (size_t i = 0; i < m; ++i) {
        float* to = out + i * n;
        std::fill(to, to + n, 0.0f);
        for (size_t d = 0; d < k; ++d) {
            const float scale = x[i * rowStep + d * depthStep];
            const float* row = y + d * n;
            for (size_t c = 0; c < n; ++c) to[c] = to[c] + scale * row[c];
        }
    }
}

void runFloat(const CpuKernelCall& call, const Geometry& g) {
    const auto* lhs = reinterpret_cast<const float*>(call.in(0).data);
    const auto* rhs = reinterpret_cast<const float*>(call.in(1).data);
    auto* output = reinterpret_cast<float*>(call.out(0).out);
    const size_t m = g.m, k = g.k, n = g.n;
    std::vector<float> columns(g.adjY ? k * n : 0);   // an adj_y matrix laid out [k, n]
    size_t transposed = SIZE_MAX;
    forEachBatch(g, [&](size_t b, size_t l, size_t r) {
        const float* y = rhs + r * k * n;
        if (g.adjY) {
            if (r != transposed) {
                for (size_t c = 0; c < n; ++c) {
                    for (size_t d = 0; d < k; ++d) columns[d * n + c] = y[c * k + d];
                }
                transposed = r;
            }
            y = columns.data();
        }
        floatProduct(lhs + l * m * k, g.adjX ? 1 : k, g.adjX ? m : 1, y, m, k, n, output + b * m * n);
    });
}

}  // namespace

bool prepareBatchMatmul(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::FLOAT32, ElementType::INT8, ElementType::INT16}, "input 0")) {
        return false;
    }
    const ElementType type = call.in(0).type();
    if (call.in(1).type() != type || call.out(0).type() != type) return call.fail("input and output types differ");
    if (type == ElementType::INT16 &&
        (call.in(0).tensor->zeroPoint != 0 || call.in(1).tensor->zeroPoint != 0 || call.out(0).tensor->zeroPoint != 0)) {
        return call.fail("int16 tensors need zero point 0");
    }
    Geometry g;
    int32_t quantized = 0;
    int shift = 0;
    return geometry(call, &g) && (type == ElementType::FLOAT32 || multiplier(call, &quantized, &shift));
}

bool runBatchMatmul(const CpuKernelCall& call) {
    Geometry g;
    int32_t quantized = 0;
    int shift = 0;
    if (!prepareBatchMatmul(call) || !geometry(call, &g)) return false;
    const ElementType type = call.in(0).type();
    if (type == ElementType::FLOAT32) {
        runFloat(call, g);
        return true;
    }
    if (!multiplier(call, &quantized, &shift)) return false;
    if (type == ElementType::INT8) {
        runInt8(call, g, quantized, shift);
    } else {
        runInt16(call, g, quantized, shift);
    }
    return true;
}

}  // namespace nnemu::tflite::kernels::batch_matmul
