// Building, compiling and running one partition through the public NNAPI C API.
#include "CompiledPartition.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace nnemu::tflite {

const char* resultCodeName(int code) {
    switch (code) {
        case ANEURALNETWORKS_NO_ERROR: return "ANEURALNETWORKS_NO_ERROR";
        case ANEURALNETWORKS_OUT_OF_MEMORY: return "ANEURALNETWORKS_OUT_OF_MEMORY";
        case ANEURALNETWORKS_INCOMPLETE: return "ANEURALNETWORKS_INCOMPLETE";
        case ANEURALNETWORKS_UNEXPECTED_NULL: return "ANEURALNETWORKS_UNEXPECTED_NULL";
        case ANEURALNETWORKS_BAD_DATA: return "ANEURALNETWORKS_BAD_DATA";
        case ANEURALNETWORKS_OP_FAILED: return "ANEURALNETWORKS_OP_FAILED";
        case ANEURALNETWORKS_BAD_STATE: return "ANEURALNETWORKS_BAD_STATE";
        case ANEURALNETWORKS_UNMAPPABLE: return "ANEURALNETWORKS_UNMAPPABLE";
        case ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE: return "ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE";
        case ANEURALNETWORKS_UNAVAILABLE_DEVICE: return "ANEURALNETWORKS_UNAVAILABLE_DEVICE";
        default: return "unknown NNAPI result";
    }
}

const uint32_t* listData(const std::vector<uint32_t>& list) {
    static constexpr uint32_t kNone = 0;
    return list.empty() ? &kNone : list.data();
}

int addNnapiOperand(ANeuralNetworksModel* model, const NnOperand& operand, uint32_t id, const ConstantFile* file) {
    ANeuralNetworksOperandType type{};
    type.type = operand.type;
    type.dimensionCount = static_cast<uint32_t>(operand.dims.size());
    type.dimensions = operand.dims.empty() ? nullptr : operand.dims.data();
    type.scale = operand.scale;
    type.zeroPoint = operand.zeroPoint;
    int status = ANeuralNetworksModel_addOperand(model, &type);
    if (status != ANEURALNETWORKS_NO_ERROR) return status;
    const auto index = static_cast<int32_t>(id);
    if (operand.type == ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        ANeuralNetworksSymmPerChannelQuantParams params{operand.channelDim,
                                                        static_cast<uint32_t>(operand.channelScales.size()),
                                                        operand.channelScales.data()};
        status = ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model, index, &params);
        if (status != ANEURALNETWORKS_NO_ERROR) return status;
    }
    if (operand.type == ANEURALNETWORKS_MODEL) {
        return ANeuralNetworksModel_setOperandValueFromModel(model, index, operand.reference);
    }
    const uint8_t* data = operand.valueData();
    const size_t length = operand.valueLength();
    const bool inFile = file != nullptr && file->memory != nullptr && data >= file->bytes.data() &&
                        length <= file->bytes.size() &&
                        static_cast<size_t>(data - file->bytes.data()) <= file->bytes.size() - length;
    if (operand.isConstant && inFile && length > ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES) {
        return ANeuralNetworksModel_setOperandValueFromMemory(
                model, index, file->memory, static_cast<size_t>(data - file->bytes.data()), length);
    }
    if (operand.isConstant) {
        return ANeuralNetworksModel_setOperandValue(model, index, data, length);
    }
    return ANEURALNETWORKS_NO_ERROR;
}

namespace {

std::string nodeName(const Model& model, uint32_t node) {
    return "operator " + model.nodes()[node].opName + " at node " + std::to_string(node);
}

}  // namespace

Result<std::unique_ptr<PartitionModel>> PartitionModel::build(const Model& model, const NnapiGraph& graph,
                                                              const std::vector<uint32_t>& nodes, bool relaxed) {
    std::unique_ptr<PartitionModel> result(new PartitionModel());
    if (nodes.empty()) {
        return badData("a partition without nodes");
    }
    result->nodes_ = nodes;
    if (ANeuralNetworksModel_create(&result->model_) != ANEURALNETWORKS_NO_ERROR) {
        return opFailed("ANeuralNetworksModel_create failed");
    }
    // Without the file's memory (a model from a buffer, or the runtime refused it) values are copied.
    if (model.fileDescriptor() >= 0 &&
        ANeuralNetworksMemory_createFromFd(model.bytes().size(), PROT_READ, model.fileDescriptor(), 0,
                                           &result->file_.memory) == ANEURALNETWORKS_NO_ERROR) {
        result->file_.bytes = model.bytes();
    }
    const std::set<uint32_t> inPartition(nodes.begin(), nodes.end());
    std::vector<uint32_t> operations;
    for (uint32_t node : nodes) {
        for (uint32_t op : graph.nodeOperations[node]) operations.push_back(op);
    }
    // Where each activation tensor is produced and read, to find the partition's boundary.
    std::set<uint32_t> produced;
    for (uint32_t op : operations) produced.insert(graph.operations[op].outputs.begin(), graph.operations[op].outputs.end());
    const auto readOutside = [&](int32_t tensor) {
        for (uint32_t reader : graph.tensorReaders[tensor]) {
            if (inPartition.count(reader) == 0) return true;
        }
        return false;
    };
    const auto readInside = [&](int32_t tensor) {
        for (uint32_t reader : graph.tensorReaders[tensor]) {
            if (inPartition.count(reader) != 0) return true;
        }
        return false;
    };
    const std::set<int32_t> graphOutputs(model.outputs().begin(), model.outputs().end());

    std::map<uint32_t, uint32_t> local;  // graph operand -> model operand
    std::vector<uint32_t> modelInputs, modelOutputs, stateOutputs;
    std::map<uint32_t, const StateFeedback*> stateOf;
    for (const StateFeedback& state : graph.stateFeedback) stateOf[state.operand] = &state;
    const auto addOperand = [&](uint32_t index) -> int {
        if (local.count(index) != 0) return ANEURALNETWORKS_NO_ERROR;
        const NnOperand& operand = graph.operands[index];
        const auto id = static_cast<uint32_t>(local.size());
        const int status = addNnapiOperand(result->model_, operand, id, &result->file_);
        if (status != ANEURALNETWORKS_NO_ERROR) return status;
        local[index] = id;
        if (operand.isConstant) return ANEURALNETWORKS_NO_ERROR;
        if (const auto state = stateOf.find(index); state != stateOf.end()) {
            stateOutputs.push_back(id);
            result->states_.push_back(*state->second);
            size_t bytes = sizeof(float);   // the states are float32
            for (uint32_t d : operand.dims) bytes *= d;
            result->stateBytes_.push_back(bytes);
            return ANEURALNETWORKS_NO_ERROR;
        }
        if (produced.count(index) == 0) {
            modelInputs.push_back(id);
            result->inputTensors_.push_back(operand.tensor);
        } else if (operand.tensor >= 0 && (graphOutputs.count(operand.tensor) != 0 || readOutside(operand.tensor) ||
                                           !readInside(operand.tensor))) {
            modelOutputs.push_back(id);
            result->outputTensors_.push_back(operand.tensor);
        }
        return ANEURALNETWORKS_NO_ERROR;
    };
    for (uint32_t op : operations) {
        const NnOperation& operation = graph.operations[op];
        std::vector<uint32_t> ins, outs;
        for (uint32_t operand : operation.inputs) {
            const int status = addOperand(operand);
            if (status != ANEURALNETWORKS_NO_ERROR) {
                return badData(nodeName(model, operation.node) + ": NNAPI refused an operand (" + resultCodeName(status) + ")");
            }
            ins.push_back(local[operand]);
        }
        for (uint32_t operand : operation.outputs) {
            const int status = addOperand(operand);
            if (status != ANEURALNETWORKS_NO_ERROR) {
                return badData(nodeName(model, operation.node) + ": NNAPI refused an operand (" + resultCodeName(status) + ")");
            }
            outs.push_back(local[operand]);
        }
        const int status = ANeuralNetworksModel_addOperation(result->model_, operation.type,
                                                             static_cast<uint32_t>(ins.size()), listData(ins),
                                                             static_cast<uint32_t>(outs.size()), listData(outs));
        if (status != ANEURALNETWORKS_NO_ERROR) {
            return badData(nodeName(model, operation.node) + ": NNAPI rejected the operation (" + resultCodeName(status) +
                       "): unsupported operand types, shapes or parameters");
        }
        result->operationNodes_.push_back(operation.node);
    }
    modelOutputs.insert(modelOutputs.end(), stateOutputs.begin(), stateOutputs.end());
    int status = ANeuralNetworksModel_identifyInputsAndOutputs(
            result->model_, static_cast<uint32_t>(modelInputs.size()), listData(modelInputs),
            static_cast<uint32_t>(modelOutputs.size()), listData(modelOutputs));
    if (status == ANEURALNETWORKS_NO_ERROR && relaxed) {
        status = ANeuralNetworksModel_relaxComputationFloat32toFloat16(result->model_, true);
    }
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksModel_finish(result->model_);
    if (status != ANEURALNETWORKS_NO_ERROR) {
        std::string names;
        for (uint32_t node : nodes) names += (names.empty() ? "" : ", ") + std::to_string(node);
        return badData((nodes.size() == 1 ? nodeName(model, nodes[0]) : "nodes " + names) +
                   ": NNAPI rejected the model (" + resultCodeName(status) +
                   "): operand shapes or parameters are inconsistent");
    }
    return result;
}

PartitionModel::~PartitionModel() {
    if (model_ != nullptr) ANeuralNetworksModel_free(model_);
    if (file_.memory != nullptr) ANeuralNetworksMemory_free(file_.memory);
}

Result<std::unique_ptr<CompiledPartition>> CompiledPartition::compile(std::unique_ptr<PartitionModel> model,
                                                                      const CompileTarget& target) {
    std::unique_ptr<CompiledPartition> result(new CompiledPartition());
    result->model_ = std::move(model);
    ANeuralNetworksModel* handle = result->model_->handle();
    int status = target.devices.empty()
                         ? ANeuralNetworksCompilation_create(handle, &result->compilation_)
                         : ANeuralNetworksCompilation_createForDevices(handle, target.devices.data(),
                                                                       static_cast<uint32_t>(target.devices.size()),
                                                                       &result->compilation_);
    if (status == ANEURALNETWORKS_NO_ERROR && target.preference >= 0) {
        status = ANeuralNetworksCompilation_setPreference(result->compilation_, target.preference);
    }
    if (status == ANEURALNETWORKS_NO_ERROR && !target.cacheDir.empty() && !target.cacheToken.empty()) {
        status = ANeuralNetworksCompilation_setCaching(result->compilation_, target.cacheDir.c_str(),
                                                       target.cacheToken.data());
    }
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksCompilation_finish(result->compilation_);
    if (status != ANEURALNETWORKS_NO_ERROR) {
        return opFailed(std::string("NNAPI compilation failed (") + resultCodeName(status) + ")");
    }
    for (size_t i = 0; i < result->model_->states().size(); ++i) {
        result->stateBuffers_.emplace_back(result->model_->stateBytes()[i]);
        result->carryState_.push_back(!result->model_->states()[i].cpuPathOnly || !target.delegated);
    }
    return result;
}

CompiledPartition::~CompiledPartition() {
    if (compilation_ != nullptr) ANeuralNetworksCompilation_free(compilation_);
}

void CompiledPartition::markTensors(std::vector<bool>* touched) const {
    for (const std::vector<int32_t>* tensors : {&model_->inputTensors(), &model_->outputTensors()}) {
        for (int32_t t : *tensors) {
            if (t >= 0 && static_cast<size_t>(t) < touched->size()) (*touched)[t] = true;
        }
    }
    for (const StateFeedback& state : model_->states()) {
        if (state.tensor >= 0 && static_cast<size_t>(state.tensor) < touched->size()) (*touched)[state.tensor] = true;
    }
}

Status CompiledPartition::run(std::vector<TensorBuffer>& buffers) {
    ANeuralNetworksExecution* execution = nullptr;
    int status = ANeuralNetworksExecution_create(compilation_, &execution);
    const std::vector<int32_t>& inputs = model_->inputTensors();
    const std::vector<int32_t>& outputs = model_->outputTensors();
    for (size_t i = 0; status == ANEURALNETWORKS_NO_ERROR && i < inputs.size(); ++i) {
        TensorBuffer& buffer = buffers[inputs[i]];
        status = ANeuralNetworksExecution_setInput(execution, static_cast<int32_t>(i), nullptr, buffer.data(),
                                                   buffer.size());
    }
    for (size_t i = 0; status == ANEURALNETWORKS_NO_ERROR && i < outputs.size(); ++i) {
        TensorBuffer& buffer = buffers[outputs[i]];
        status = ANeuralNetworksExecution_setOutput(execution, static_cast<int32_t>(i), nullptr, buffer.data(),
                                                    buffer.size());
    }
    for (size_t i = 0; status == ANEURALNETWORKS_NO_ERROR && i < stateBuffers_.size(); ++i) {
        status = ANeuralNetworksExecution_setOutput(execution, static_cast<int32_t>(outputs.size() + i), nullptr,
                                                    stateBuffers_[i].data(), stateBuffers_[i].size());
    }
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksExecution_compute(execution);
    if (execution != nullptr) ANeuralNetworksExecution_free(execution);
    if (status != ANEURALNETWORKS_NO_ERROR) {
        return opFailed(std::string("NNAPI execution failed (") + resultCodeName(status) + ")");
    }
    // The new states replace the variable tensors, for the next invoke (TFLite's feedback loop).
    for (size_t i = 0; i < stateBuffers_.size(); ++i) {
        TensorBuffer& variable = buffers[model_->states()[i].tensor];
        if (carryState_[i] && variable.size() == stateBuffers_[i].size()) {
            std::memcpy(variable.data(), stateBuffers_[i].data(), variable.size());
        }
    }
    return {};
}

}  // namespace nnemu::tflite
