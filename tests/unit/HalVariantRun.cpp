#include "HalVariantRun.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "Comparison.h"
#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::halvariant {
namespace {

using conformance::ElementKind;
using conformance::Lifetime;
using conformance::Variant;

hal::OperandLifeTime lifetimeOf(Lifetime lifetime) {
    switch (lifetime) {
        case Lifetime::Input: return hal::OperandLifeTime::MODEL_INPUT;
        case Lifetime::Output: return hal::OperandLifeTime::MODEL_OUTPUT;
        case Lifetime::Constant: return hal::OperandLifeTime::CONSTANT_COPY;
        case Lifetime::NoValue: return hal::OperandLifeTime::NO_VALUE;
        case Lifetime::Temporary:
        case Lifetime::Subgraph:  // referenced models: not run here
            break;
    }
    return hal::OperandLifeTime::TEMPORARY_VARIABLE;
}

}  // namespace

hal::Model buildModel(const Variant& v) {
    hal::Model model;
    for (const auto& from : v.operands) {
        hal::Operand operand;
        operand.type = static_cast<hal::OperandType>(from.typeCode);
        operand.dimensions = from.dims;
        operand.scale = from.scale;
        operand.zeroPoint = from.zeroPoint;
        operand.lifetime = lifetimeOf(from.lifetime);
        if (from.channelQuant) {
            operand.channelQuant = hal::SymmPerChannelQuantParams{from.channelQuant->scales,
                                                                  from.channelQuant->channelDim};
        }
        if (from.lifetime == Lifetime::Constant) {
            const size_t offset = (model.operandValues.size() + 7) / 8 * 8;
            model.operandValues.resize(offset);
            model.operandValues.insert(model.operandValues.end(), from.value.begin(), from.value.end());
            operand.location = {0, static_cast<uint32_t>(offset),
                                static_cast<uint32_t>(from.value.size())};
        }
        model.operands.push_back(std::move(operand));
    }
    for (const auto& from : v.operations) {
        model.operations.push_back(
                {static_cast<hal::OperationType>(from.typeCode), from.inputs, from.outputs});
    }
    model.inputIndexes = v.inputs;
    model.outputIndexes = v.outputs;
    model.relaxComputationFloat32toFloat16 = v.relaxed;
    return model;
}

namespace {

// One example run by `execute`; the first problem found, or nothing when it matches.
std::optional<std::string> runExample(const Variant& v, const hal::Model& model,
                                      const conformance::Example& example,
                                      const conformance::Tolerances& tolerances, const Executor& execute) {
    size_t total = 0;
    for (const auto& input : example.inputs) total += input.bytes.size();
    for (const auto& golden : example.outputs) total += golden.bytes.size();
    auto pool = std::make_shared<hal::HeapPool>(std::max<size_t>(total, 1));
    hal::Request request;
    request.pools.push_back(pool);
    uint32_t offset = 0;
    for (const auto& input : example.inputs) {
        const auto length = static_cast<uint32_t>(input.bytes.size());
        if (length > 0) std::memcpy(pool->data() + offset, input.bytes.data(), length);
        request.inputs.push_back({input.count == 0, {0, offset, length}, input.dims});
        offset += length;
    }
    std::vector<uint32_t> outputOffsets;
    for (const auto& golden : example.outputs) {
        const auto length = static_cast<uint32_t>(golden.bytes.size());
        outputOffsets.push_back(offset);
        request.outputs.push_back({false, {0, offset, length}, {}});
        offset += length;
    }
    const auto [status, shapes] = execute(model, request);
    if (status != hal::ErrorStatus::NONE) {
        return "execution failed, status " + std::to_string(static_cast<int>(status));
    }
    for (size_t p = 0; p < v.outputs.size(); ++p) {
        if (v.ignoredOutput[p]) continue;
        const auto& golden = example.outputs[p];
        if (shapes.at(p).dimensions != golden.dims) {
            return "output " + std::to_string(p) + " dimensions " +
                   conformance::dimsToString(shapes[p].dimensions) + ", expected " +
                   conformance::dimsToString(golden.dims);
        }
        std::optional<conformance::Mismatch> first;
        const ElementKind kind = v.operands[v.outputs[p]].kind;
        const uint8_t* actual = pool->data() + outputOffsets[p];
        if (conformance::compareOutput(kind, golden, actual, p, tolerances, &first) > 0) {
            return "output " + std::to_string(p) + " index " + std::to_string(first->index) +
                   ": expected " + first->expected + ", actual " + first->actual + " (allowed " +
                   first->allowed + ")";
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> runVariant(const Variant& v) {
    return runVariant(v, [](const hal::Model& model, const hal::Request& request) {
        return cpu::executeModel(model, request);
    });
}

std::optional<std::string> runVariant(const Variant& v, const Executor& execute) {
    const hal::Model model = buildModel(v);
    if (const Status valid = hal::validateModel(model); !valid) return "model rejected: " + valid.message();
    conformance::ToleranceTracker tracker(v);
    for (const auto& example : v.examples) {
        if (auto problem = runExample(v, model, example, tracker.next(example), execute)) return problem;
    }
    return std::nullopt;
}

}  // namespace nnemu::halvariant
