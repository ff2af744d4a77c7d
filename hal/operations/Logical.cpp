// LOGICAL_AND, LOGICAL_OR (two TENSOR_BOOL8 with numpy-style broadcasting) and LOGICAL_NOT.
#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateAndOr(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kB8}));
    NN_RET_CHECK(inputTypeIs(context, 1, {kB8}));
    NN_RET_CHECK(context.output(0).type == kB8);
    return true;
}

bool signatures::validateNot(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kB8}));
    NN_RET_CHECK(context.output(0).type == kB8);
    return true;
}

bool signatures::prepareNot(OperationContext& context) {
    context.output(0).dims = context.input(0).dims;
    return true;
}

}  // namespace nnemu::hal
