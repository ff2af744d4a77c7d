#include "RunOperands.h"

#include <cstring>
#include <limits>

#include "nnemu/base/Allocation.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::cpu {
namespace {

using hal::ErrorStatus;
using hal::OperandLifeTime;

// Scratch storage for a temporary (or omitted output). Sizes come from shapes the model or its
// data chose, so a request beyond what a HAL data location can describe (32-bit lengths), or
// beyond what the machine can give, fails the execution instead of the process.
bool allocateScratch(RunOperand& output, uint64_t bytes, const char* name) {
    if (bytes > std::numeric_limits<uint32_t>::max()) {
        NN_LOG(ERROR) << name << ": an output of " << bytes << " bytes is larger than an operand can be";
        return false;
    }
    if (!guardAllocation([&] { output.storage.assign(bytes, 0); }).isOk()) {
        NN_LOG(ERROR) << name << ": cannot allocate " << bytes << " bytes for an output";
        return false;
    }
    return true;
}

// Kernels read elements through typed pointers, so data that an application placed at an odd
// address (a pointer argument, a memory offset) is copied to storage aligned for its type.
bool isMisaligned(const hal::OperandView& view) {
    const uint32_t size = hal::elementSize(view.type);
    return size > 1 && reinterpret_cast<uintptr_t>(view.data) % size != 0;
}

bool alignInput(RunOperand& operand, const char* what) {
    if (operand.view.data == nullptr || !isMisaligned(operand.view)) return true;
    if (!allocateScratch(operand, operand.view.length, what)) return false;
    std::memcpy(operand.storage.data(), operand.view.data, operand.view.length);
    operand.view.data = operand.storage.data();
    return true;
}

bool checkInputSize(const RunOperand& input, size_t i) {
    const uint64_t needed = hal::byteSize(input.view.type, input.view.dims);
    if (!hal::isFullySpecified(input.view.type, input.view.dims) || needed != input.view.length) {
        NN_LOG(ERROR) << "input " << i << ": shape " << hal::dimsToString(input.view.dims)
                      << " is not fully specified or does not match its " << input.view.length << " bytes";
        return false;
    }
    return true;
}

bool bindArgument(const hal::Request& request, const hal::RequestArgument& argument, RunOperand* operand,
                  const char* what) {
    if (argument.hasNoValue) {
        operand->view.omitted = true;
        operand->view.data = nullptr;
        return true;
    }
    const auto& at = argument.location;
    if (at.poolIndex >= request.pools.size()) {
        NN_LOG(ERROR) << what << ": memory pool " << at.poolIndex << " does not exist";
        return false;
    }
    const auto& pool = request.pools[at.poolIndex];
    if (uint64_t{at.offset} + at.length > pool->size() || pool->data() == nullptr) {
        NN_LOG(ERROR) << what << ": argument lies outside its memory or the memory cannot be mapped";
        return false;
    }
    operand->view.data = pool->data() + at.offset;
    operand->view.length = at.length;
    if (!argument.dimensions.empty()) {
        if (!hal::dimsCompatible(operand->view.dims, argument.dimensions)) {
            NN_LOG(ERROR) << what << ": dimensions " << hal::dimsToString(argument.dimensions)
                          << " do not match the model's " << hal::dimsToString(operand->view.dims);
            return false;
        }
        operand->view.dims = argument.dimensions;
    }
    return true;
}

}  // namespace

bool RunOperands::bindOperands() {
    operands_.resize(graph_.operands.size());
    for (size_t i = 0; i < graph_.operands.size(); ++i) {
        const hal::Operand& operand = graph_.operands[i];
        RunOperand& run = operands_[i];
        run.view.type = operand.type;
        run.view.dims = operand.dimensions;
        run.view.scale = operand.scale;
        run.view.zeroPoint = operand.zeroPoint;
        run.view.channelQuant = operand.channelQuant ? &*operand.channelQuant : nullptr;
        run.view.omitted = operand.lifetime == OperandLifeTime::NO_VALUE;
        run.lifetime = operand.lifetime;
        if (operand.lifetime == OperandLifeTime::CONSTANT_COPY ||
            operand.lifetime == OperandLifeTime::CONSTANT_REFERENCE) {
            run.view.data = hal::constantData(root_, operand);
            run.view.length = operand.location.length;
            if (run.view.data == nullptr || !alignInput(run, "constant")) return false;
        }
    }
    for (const auto& operation : graph_.operations) {
        for (uint32_t index : operation.inputs) operands_[index].consumersLeft++;
    }
    return true;
}

bool RunOperands::bindRequest(const hal::Request& request) {
    if (request.inputs.size() != graph_.inputIndexes.size() ||
        request.outputs.size() != graph_.outputIndexes.size()) {
        NN_LOG(ERROR) << "request has the wrong number of inputs or outputs";
        return false;
    }
    for (size_t i = 0; i < request.inputs.size(); ++i) {
        RunOperand& input = operands_[graph_.inputIndexes[i]];
        if (!bindArgument(request, request.inputs[i], &input, "input")) return false;
        if (input.view.omitted) continue;
        if (!alignInput(input, "input") || !checkInputSize(input, i)) return false;
    }
    for (size_t i = 0; i < request.outputs.size(); ++i) {
        if (!bindArgument(request, request.outputs[i], &operands_[graph_.outputIndexes[i]], "output")) return false;
    }
    return true;
}

bool RunOperands::bindValues(const std::vector<Value>& inputs) {
    if (inputs.size() != graph_.inputIndexes.size()) return false;
    for (size_t i = 0; i < inputs.size(); ++i) {
        RunOperand& input = operands_[graph_.inputIndexes[i]];
        if (!hal::dimsCompatible(input.view.dims, inputs[i].dims)) {
            NN_LOG(ERROR) << "subgraph input " << i << ": shape " << hal::dimsToString(inputs[i].dims)
                          << " does not match the declared " << hal::dimsToString(input.view.dims);
            return false;
        }
        input.view.dims = inputs[i].dims;
        input.view.data = const_cast<uint8_t*>(inputs[i].data);
        input.view.length = inputs[i].length;
        if (!alignInput(input, "input") || !checkInputSize(input, i)) return false;
    }
    for (uint32_t index : graph_.outputIndexes) operands_[index].view.omitted = true;
    return true;
}

ErrorStatus RunOperands::placeOutput(uint32_t index, const std::vector<uint32_t>& dims, const char* name,
                                     bool* insufficient) {
    RunOperand& output = operands_[index];
    if (!hal::dimsCompatible(output.view.dims, dims)) {
        NN_LOG(ERROR) << name << ": computed output shape " << hal::dimsToString(dims)
                      << " contradicts the declared " << hal::dimsToString(output.view.dims);
        return ErrorStatus::GENERAL_FAILURE;
    }
    output.view.dims = dims;
    const uint64_t needed = hal::byteSize(output.view.type, dims);
    if (output.lifetime == OperandLifeTime::MODEL_OUTPUT && !output.view.omitted) {
        if (needed > output.view.length) {
            output.insufficient = true;
            *insufficient = true;
        } else if (isMisaligned(output.view)) {
            uint8_t* destination = output.view.data;
            if (!allocateScratch(output, output.view.length, name)) return ErrorStatus::GENERAL_FAILURE;
            output.copyBackTo = destination;
            output.view.data = output.storage.data();
        }
    } else {  // a temporary, or an output the application omitted: scratch storage
        output.view.omitted = false;
        if (!allocateScratch(output, needed, name)) return ErrorStatus::GENERAL_FAILURE;
        output.view.data = output.storage.data();
        output.view.length = needed;
    }
    return ErrorStatus::NONE;
}

ErrorStatus RunOperands::takeQuantization(uint32_t index, const hal::OperandView& prepared, const char* name) {
    RunOperand& output = operands_[index];
    if (output.view.scale == prepared.scale && output.view.zeroPoint == prepared.zeroPoint) return ErrorStatus::NONE;
    if (output.lifetime == OperandLifeTime::MODEL_OUTPUT) {
        NN_LOG(ERROR) << name << ": invalid " << (output.view.scale != prepared.scale ? "scale" : "zeroPoint")
                      << " for model output (declared " << output.view.scale << ", " << output.view.zeroPoint
                      << "; the operation gives " << prepared.scale << ", " << prepared.zeroPoint << ")";
        return ErrorStatus::GENERAL_FAILURE;
    }
    output.view.scale = prepared.scale;
    output.view.zeroPoint = prepared.zeroPoint;
    return ErrorStatus::NONE;
}

void RunOperands::releaseInputs(const hal::Operation& operation) {
    for (uint32_t index : operation.inputs) {
        RunOperand& input = operands_[index];
        if (--input.consumersLeft == 0 && input.lifetime == OperandLifeTime::TEMPORARY_VARIABLE) {
            std::vector<uint8_t>().swap(input.storage);
        }
    }
}

void RunOperands::copyBack() {
    for (const RunOperand& operand : operands_) {
        if (operand.copyBackTo != nullptr) std::memcpy(operand.copyBackTo, operand.storage.data(), operand.view.length);
    }
}

std::vector<Value> RunOperands::valuesOf(const std::vector<uint32_t>& indexes, size_t first) const {
    std::vector<Value> values;
    for (size_t i = first; i < indexes.size(); ++i) values.push_back(Value::borrow(operands_[indexes[i]].view));
    return values;
}

std::vector<Value> RunOperands::takeOutputs() {
    std::vector<Value> outputs;
    for (uint32_t index : graph_.outputIndexes) {
        RunOperand& output = operands_[index];
        output.storage.resize(output.view.length);
        outputs.push_back(Value::own(output.view.dims, std::move(output.storage)));
    }
    return outputs;
}

std::vector<hal::OutputShape> RunOperands::outputShapes() const {
    std::vector<hal::OutputShape> shapes;
    for (uint32_t index : graph_.outputIndexes) {
        shapes.push_back({operands_[index].view.dims, !operands_[index].insufficient});
    }
    return shapes;
}

}  // namespace nnemu::cpu
