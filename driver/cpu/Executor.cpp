#include "nnemu/cpu/Executor.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Log.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::cpu {
namespace {

using hal::ErrorStatus;
using hal::OperandLifeTime;

// The run-time state of one operand.
struct RunOperand {
    hal::OperandView view;
    OperandLifeTime lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
    std::vector<uint8_t> storage;  // temporaries, and aligned copies of misaligned arguments
    uint8_t* copyBackTo = nullptr;  // a misaligned model output, written from storage at the end
    uint32_t consumersLeft = 0;
    bool insufficient = false;
};

class ModelRun {
public:
    ModelRun(const hal::Model& model, const hal::Request& request, const hal::Deadline& deadline)
        : model_(model), request_(request), deadline_(deadline) {}

    std::tuple<ErrorStatus, std::vector<hal::OutputShape>> run() {
        if (hal::deadlinePassed(deadline_)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, {}};
        if (!bindOperands()) return {ErrorStatus::INVALID_ARGUMENT, {}};
        for (const auto& operation : model_.operations) {
            if (hal::deadlinePassed(deadline_)) return {ErrorStatus::MISSED_DEADLINE_TRANSIENT, {}};
            const ErrorStatus status = runOperation(operation);
            if (status == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) return {status, outputShapes()};
            if (status != ErrorStatus::NONE) return {status, {}};
        }
        for (const RunOperand& operand : operands_) {
            if (operand.copyBackTo != nullptr) std::memcpy(operand.copyBackTo, operand.storage.data(), operand.view.length);
        }
        return {ErrorStatus::NONE, outputShapes()};
    }

private:
    // Kernels read elements through typed pointers, so data that an application placed at an odd
    // address (a pointer argument, a memory offset) is copied to storage aligned for its type.
    static bool isMisaligned(const hal::OperandView& view) {
        const uint32_t size = hal::elementSize(view.type);
        return size > 1 && reinterpret_cast<uintptr_t>(view.data) % size != 0;
    }

    static bool alignInput(RunOperand& operand, const char* what) {
        if (operand.view.data == nullptr || !isMisaligned(operand.view)) return true;
        if (!allocateScratch(operand, operand.view.length, what)) return false;
        std::memcpy(operand.storage.data(), operand.view.data, operand.view.length);
        operand.view.data = operand.storage.data();
        return true;
    }

    bool bindArgument(const hal::RequestArgument& argument, RunOperand* operand, const char* what) {
        if (argument.hasNoValue) {
            operand->view.omitted = true;
            operand->view.data = nullptr;
            return true;
        }
        const auto& at = argument.location;
        if (at.poolIndex >= request_.pools.size()) {
            NN_LOG(ERROR) << what << ": memory pool " << at.poolIndex << " does not exist";
            return false;
        }
        const auto& pool = request_.pools[at.poolIndex];
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

    bool bindOperands() {
        operands_.resize(model_.operands.size());
        for (size_t i = 0; i < model_.operands.size(); ++i) {
            const hal::Operand& operand = model_.operands[i];
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
                run.view.data = hal::constantData(model_, operand);
                run.view.length = operand.location.length;
                if (run.view.data == nullptr || !alignInput(run, "constant")) return false;
            }
        }
        for (const auto& operation : model_.operations) {
            for (uint32_t index : operation.inputs) operands_[index].consumersLeft++;
        }
        if (request_.inputs.size() != model_.inputIndexes.size() ||
            request_.outputs.size() != model_.outputIndexes.size()) {
            NN_LOG(ERROR) << "request has the wrong number of inputs or outputs";
            return false;
        }
        for (size_t i = 0; i < request_.inputs.size(); ++i) {
            RunOperand& input = operands_[model_.inputIndexes[i]];
            if (!bindArgument(request_.inputs[i], &input, "input")) return false;
            if (input.view.omitted) continue;
            if (!alignInput(input, "input")) return false;
            const uint64_t needed = hal::byteSize(input.view.type, input.view.dims);
            if (!hal::isFullySpecified(input.view.type, input.view.dims) || needed != input.view.length) {
                NN_LOG(ERROR) << "input " << i << ": shape " << hal::dimsToString(input.view.dims)
                              << " is not fully specified or does not match its " << input.view.length << " bytes";
                return false;
            }
        }
        for (size_t i = 0; i < request_.outputs.size(); ++i) {
            if (!bindArgument(request_.outputs[i], &operands_[model_.outputIndexes[i]], "output")) return false;
        }
        return true;
    }

    // Scratch storage for a temporary (or omitted output). Sizes come from shapes the model or its
    // data chose, so a request beyond what a HAL data location can describe (32-bit lengths), or
    // beyond what the machine can give, fails the execution instead of the process.
    static bool allocateScratch(RunOperand& output, uint64_t bytes, const char* name) {
        if (bytes > std::numeric_limits<uint32_t>::max()) {
            NN_LOG(ERROR) << name << ": an output of " << bytes << " bytes is larger than an operand can be";
            return false;
        }
        try {
            output.storage.assign(bytes, 0);
        } catch (const std::bad_alloc&) {
            NN_LOG(ERROR) << name << ": cannot allocate " << bytes << " bytes for an output";
            return false;
        }
        return true;
    }

    ErrorStatus runOperation(const hal::Operation& operation) {
        const char* name = hal::operationName(operation.type);
        const hal::OperationSignature* signature = hal::findSignature(operation.type);
        const Kernel kernel = findKernel(operation.type);
        if (signature == nullptr || kernel == nullptr) {
            NN_LOG(ERROR) << name << " has no reference kernel";
            return ErrorStatus::GENERAL_FAILURE;
        }
        hal::OperationContext context;
        context.type = operation.type;
        for (uint32_t index : operation.inputs) {
            const hal::OperandView& input = operands_[index].view;
            if (!input.omitted && hal::isTensorType(input.type) && input.elements() == 0 &&
                !signature->allowZeroSizedInput) {
                NN_LOG(ERROR) << name << " does not accept zero-sized inputs";
                return ErrorStatus::GENERAL_FAILURE;
            }
            context.inputs.push_back(input);
        }
        if (!hal::omissionsAllowed(*signature, context.inputs)) {
            NN_LOG(ERROR) << name << " does not accept omitted operands there";
            return ErrorStatus::GENERAL_FAILURE;
        }
        for (uint32_t index : operation.outputs) {
            hal::OperandView output = operands_[index].view;
            output.data = nullptr;
            output.length = 0;
            context.outputs.push_back(output);
        }
        if (!signature->prepare(context)) {
            NN_LOG(ERROR) << name << ": inputs are inconsistent (shape inference failed)";
            return ErrorStatus::GENERAL_FAILURE;
        }
        bool insufficient = false;
        bool anyElements = false;
        for (size_t i = 0; i < operation.outputs.size(); ++i) {
            RunOperand& output = operands_[operation.outputs[i]];
            const auto& dims = context.outputs[i].dims;
            if (!hal::dimsCompatible(output.view.dims, dims)) {
                NN_LOG(ERROR) << name << ": computed output shape " << hal::dimsToString(dims)
                              << " contradicts the declared " << hal::dimsToString(output.view.dims);
                return ErrorStatus::GENERAL_FAILURE;
            }
            output.view.dims = dims;
            const uint64_t needed = hal::byteSize(output.view.type, dims);
            anyElements = anyElements || hal::elementCount(dims) != 0;
            if (output.lifetime == OperandLifeTime::MODEL_OUTPUT && !output.view.omitted) {
                if (needed > output.view.length) {
                    output.insufficient = true;
                    insufficient = true;
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
            context.outputs[i].data = output.view.data;
            context.outputs[i].length = output.view.length;
        }
        if (insufficient) return ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
        if (anyElements && !kernel(context)) {
            NN_LOG(ERROR) << name << ": the reference kernel failed for these operand types or values";
            return ErrorStatus::GENERAL_FAILURE;
        }
        for (uint32_t index : operation.inputs) {
            RunOperand& input = operands_[index];
            if (--input.consumersLeft == 0 && input.lifetime == OperandLifeTime::TEMPORARY_VARIABLE) {
                std::vector<uint8_t>().swap(input.storage);
            }
        }
        return ErrorStatus::NONE;
    }

    std::vector<hal::OutputShape> outputShapes() const {
        std::vector<hal::OutputShape> shapes;
        for (uint32_t index : model_.outputIndexes) {
            shapes.push_back({operands_[index].view.dims, !operands_[index].insufficient});
        }
        return shapes;
    }

    const hal::Model& model_;
    const hal::Request& request_;
    const hal::Deadline& deadline_;
    std::vector<RunOperand> operands_;
};

}  // namespace

std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>> executeModel(const hal::Model& model,
                                                                         const hal::Request& request,
                                                                         const hal::Deadline& deadline) {
    return ModelRun(model, request, deadline).run();
}

}  // namespace nnemu::cpu
