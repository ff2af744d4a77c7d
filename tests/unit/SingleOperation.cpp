#include "SingleOperation.h"

namespace nnemu::testing {

hal::Model singleOperationModel(hal::OperationType type, const std::vector<TestOperand>& inputs,
                                const std::vector<TestOperand>& outputs) {
    hal::Model model;
    hal::Operation operation{type, {}, {}};
    auto add = [&](const TestOperand& from, hal::OperandLifeTime lifetime) {
        hal::Operand operand;
        operand.type = from.type;
        operand.dimensions = from.dims;
        operand.scale = from.scale;
        operand.zeroPoint = from.zeroPoint;
        operand.lifetime = lifetime;
        if (lifetime == hal::OperandLifeTime::CONSTANT_COPY) {
            const size_t offset = (model.operandValues.size() + 7) / 8 * 8;
            model.operandValues.resize(offset);
            model.operandValues.insert(model.operandValues.end(), from.bytes.begin(), from.bytes.end());
            operand.location = {0, static_cast<uint32_t>(offset), static_cast<uint32_t>(from.bytes.size())};
        }
        model.operands.push_back(std::move(operand));
        return static_cast<uint32_t>(model.operands.size() - 1);
    };
    for (const auto& in : inputs) {
        const auto lifetime = in.omitted ? hal::OperandLifeTime::NO_VALUE
                              : in.input ? hal::OperandLifeTime::MODEL_INPUT
                                         : hal::OperandLifeTime::CONSTANT_COPY;
        const uint32_t index = add(in, lifetime);
        operation.inputs.push_back(index);
        if (in.input) model.inputIndexes.push_back(index);
    }
    for (const auto& out : outputs) {
        const uint32_t index = add(out, hal::OperandLifeTime::MODEL_OUTPUT);
        operation.outputs.push_back(index);
        model.outputIndexes.push_back(index);
    }
    model.operations.push_back(std::move(operation));
    return model;
}

RunResult runSingleOperation(hal::OperationType type, const std::vector<TestOperand>& inputs,
                             const std::vector<TestOperand>& outputs) {
    RunResult result;
    const hal::Model model = singleOperationModel(type, inputs, outputs);
    const Status valid = hal::validateModel(model);
    result.valid = valid.isOk();
    result.why = valid.message();
    if (!result.valid) return result;
    size_t total = 1;
    for (const auto& in : inputs) total += in.input ? in.bytes.size() : 0;
    for (const auto& out : outputs) total += out.bytes.size();
    auto pool = std::make_shared<hal::HeapPool>(total);
    hal::Request request;
    request.pools.push_back(pool);
    uint32_t offset = 0;
    for (const auto& in : inputs) {
        if (!in.input) continue;
        const auto length = static_cast<uint32_t>(in.bytes.size());
        if (length > 0) std::memcpy(pool->data() + offset, in.bytes.data(), length);
        request.inputs.push_back({false, {0, offset, length}, in.dims});
        offset += length;
    }
    std::vector<uint32_t> offsets;
    for (const auto& out : outputs) {
        offsets.push_back(offset);
        request.outputs.push_back({false, {0, offset, static_cast<uint32_t>(out.bytes.size())}, {}});
        offset += static_cast<uint32_t>(out.bytes.size());
    }
    const auto [status, shapes] = cpu::executeModel(model, request);
    result.status = status;
    for (size_t i = 0; i < outputs.size(); ++i) {
        result.dims.push_back(i < shapes.size() ? shapes[i].dimensions : std::vector<uint32_t>{});
        const uint8_t* begin = pool->data() + offsets[i];
        result.outputs.emplace_back(begin, begin + outputs[i].bytes.size());
    }
    return result;
}

}  // namespace nnemu::testing
