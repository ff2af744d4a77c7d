#include "Compiler.h"

#include "Lowering.h"
#include "ProgramBuilder.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::synap {

Result<std::vector<uint8_t>> compileProgram(const hal::Model& model, const std::vector<std::vector<uint32_t>>& inputDims) {
    // Shapes first: every operand's actual dims, inferred through the operations' signatures.
    std::vector<hal::Operand> operands = model.operands;
    for (size_t i = 0; i < model.inputIndexes.size(); ++i) operands[model.inputIndexes[i]].dimensions = inputDims[i];
    const hal::ConstantLookup constantOf = [&](uint32_t index) { return hal::constantData(model, model.operands[index]); };
    std::vector<hal::OperationContext> contexts;
    for (const auto& operation : model.operations) {
        const char* name = hal::operationName(operation.type);
        const hal::OperationSignature* signature = hal::findSignature(operation.type);
        hal::OperationContext context = hal::makeOperationContext(operation, operands, constantOf);
        if (signature == nullptr || !hal::prepareOperation(*signature, context)) {
            return badData(std::string("cannot infer the output shape of ") + name);
        }
        for (size_t i = 0; i < operation.outputs.size(); ++i) {
            hal::Operand& output = operands[operation.outputs[i]];
            const auto& dims = context.outputs[i].dims;
            if (!hal::dimsCompatible(output.dimensions, dims) || hal::elementCount(dims) == 0) {
                return badData(std::string(name) + " output shape " + hal::dimsToString(dims) +
                               " is zero-sized or contradicts the model's " + hal::dimsToString(output.dimensions));
            }
            output.dimensions = dims;
        }
        contexts.push_back(std::move(context));
    }
    // Shapes that data chose (a resize, a pad) can pass what an operand may hold; the core takes
    // no tensor over 4 GiB (the execution fails rather than allocate it).
    std::vector<std::vector<uint32_t>> dims;
    for (size_t i = 0; i < operands.size(); ++i) {
        if (hal::byteSize(operands[i].type, operands[i].dimensions) > UINT32_MAX) {
            return badData("operand " + std::to_string(i) + " of shape " + hal::dimsToString(operands[i].dimensions) +
                           " is larger than 4 GiB");
        }
        dims.push_back(operands[i].dimensions);
    }

    ProgramBuilder builder(model, dims);
    for (size_t i = 0; i < model.operations.size(); ++i) {
        const hal::Operation& operation = model.operations[i];
        const LoweringRule* rule = findLowering(operation.type);
        builder.beginOperation(static_cast<uint32_t>(i), operation);
        if (rule == nullptr || !rule->lower(contexts[i], builder)) {
            return badData(std::string("the NPU cannot run ") + hal::operationName(operation.type) + " (operation " +
                           std::to_string(i) + ") with these operands");
        }
    }
    return builder.finish();
}

}  // namespace nnemu::synap
