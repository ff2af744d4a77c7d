// BATCH_MATMUL (feature level 6): x [..., r_x, c_x] times y [..., r_y, c_y], each optionally
// transposed in its last two dimensions (adj_x, adj_y); rank 2 to 4, same batch dimensions.
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool adjoint(const OperationContext& context, uint32_t i) {
    return i < context.numInputs() && context.hasValue(i) && context.scalar<bool>(i);
}

}  // namespace

bool signatures::validateBatchMatmul(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2, 3, 4}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32,
                              OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(context.inputType(1) == type && context.output(0).type == type);
    for (uint32_t i = 2; i < context.numInputs(); ++i) NN_RET_CHECK(inputTypeIs(context, i, {OperandType::BOOL}));
    for (uint32_t i = 0; i < 2; ++i) {
        const uint32_t rank = context.input(i).rank();
        NN_RET_CHECK(rank == 0 || (rank >= 2 && rank <= 4));
    }
    return true;
}

bool signatures::prepareBatchMatmul(OperationContext& context) {
    const std::vector<uint32_t>& x = context.input(0).dims;
    const std::vector<uint32_t>& y = context.input(1).dims;
    NN_RET_CHECK(x.size() >= 2 && x.size() <= 4 && x.size() == y.size());
    const size_t n = x.size();
    for (size_t i = 0; i + 2 < n; ++i) NN_RET_CHECK(x[i] == y[i]);
    const bool adjX = adjoint(context, 2), adjY = adjoint(context, 3);
    const uint32_t rows = adjX ? x[n - 1] : x[n - 2];
    const uint32_t inner = adjX ? x[n - 2] : x[n - 1];
    const uint32_t innerY = adjY ? y[n - 1] : y[n - 2];
    const uint32_t cols = adjY ? y[n - 2] : y[n - 1];
    NN_RET_CHECK(inner == innerY);
    std::vector<uint32_t> out(x.begin(), x.end() - 2);
    out.push_back(rows);
    out.push_back(cols);
    context.output(0).dims = std::move(out);
    return true;
}

}  // namespace nnemu::hal
