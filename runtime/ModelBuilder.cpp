#include "ModelBuilder.h"

#include <android/NeuralNetworks.h>

#include <cstring>
#include <limits>
#include <string>

#include "ArgumentChecks.h"
#include "FeatureLevel.h"
#include "Memory.h"
#include "MemoryDesc.h"
#include "ModelFeatureLevel.h"
#include "nnemu/base/Allocation.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::runtime {
namespace {

using hal::OperandLifeTime;

constexpr size_t kConstantAlignment = 8;

size_t alignUp(size_t value, size_t alignment) { return (value + alignment - 1) / alignment * alignment; }

}  // namespace

int ModelBuilder::checkModifiable(const char* function) const {
    if (finished_ || invalid_) {
        NN_LOG(ERROR) << function << ": the model is " << (invalid_ ? "invalid" : "already finished");
        return ANEURALNETWORKS_BAD_STATE;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::checkOperandIndex(int32_t index, const char* function) const {
    if (index < 0 || static_cast<size_t>(index) >= model_->operands.size()) {
        NN_LOG(ERROR) << function << ": operand index " << index << " out of range";
        return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

uint8_t* ModelBuilder::constantOf(uint32_t index) const {
    const hal::Operand& operand = model_->operands[index];
    if (referencedValues_[index] != nullptr) return static_cast<uint8_t*>(const_cast<void*>(referencedValues_[index]));
    return hal::constantData(*model_, operand);
}

int ModelBuilder::addOperand(const ANeuralNetworksOperandType& type) {
    if (int n = checkModifiable("ANeuralNetworksModel_addOperand")) return n;
    std::vector<uint32_t> dims;
    if (!dimensionsOf(type, &dims)) {
        NN_LOG(ERROR) << "ANeuralNetworksModel_addOperand: dimensionCount " << type.dimensionCount
                      << " does not match the dimensions pointer";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (const Status valid = hal::validateOperandType(type.type, dims, type.scale, type.zeroPoint); !valid) {
        NN_LOG(ERROR) << "ANeuralNetworksModel_addOperand: " << valid.message();
        return ANEURALNETWORKS_BAD_DATA;
    }
    const auto halType = static_cast<hal::OperandType>(type.type);
    if (model_->operands.size() >= std::numeric_limits<uint32_t>::max() - 1) return ANEURALNETWORKS_BAD_DATA;
    hal::Operand operand;
    operand.type = halType;
    operand.dimensions = std::move(dims);
    operand.scale = type.scale;
    operand.zeroPoint = type.zeroPoint;
    model_->operands.push_back(std::move(operand));
    referencedValues_.push_back(nullptr);
    modelValues_.push_back(nullptr);
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandValue(int32_t index, const void* buffer, size_t length) {
    const char* function = "ANeuralNetworksModel_setOperandValue";
    if (int n = checkModifiable(function)) return n;
    if (int n = checkOperandIndex(index, function)) return n;
    hal::Operand& operand = model_->operands[index];
    if (operand.type == hal::OperandType::SUBGRAPH) {
        NN_LOG(ERROR) << function << ": operand " << index << " takes a model: use setOperandValueFromModel";
        return ANEURALNETWORKS_BAD_DATA;
    }
    referencedValues_[index] = nullptr;
    if (buffer == nullptr) {  // an omitted optional operand
        operand.lifetime = OperandLifeTime::NO_VALUE;
        operand.location = {};
        return ANEURALNETWORKS_NO_ERROR;
    }
    if (length > std::numeric_limits<uint32_t>::max()) return ANEURALNETWORKS_BAD_DATA;
    if (operand.type != hal::OperandType::OEM) {
        if (!hal::isFullySpecified(operand.type, operand.dimensions) ||
            hal::byteSize(operand.type, operand.dimensions) != length) {
            NN_LOG(ERROR) << function << ": operand " << index << " of type "
                          << hal::operandTypeName(operand.type) << hal::dimsToString(operand.dimensions)
                          << " is not fully specified or needs a different length than " << length;
            return ANEURALNETWORKS_BAD_DATA;
        }
    }
    const auto size = static_cast<uint32_t>(length);
    if (length <= ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES) {
        // Copied values are addressed by 32-bit offsets.
        const size_t offset = alignUp(model_->operandValues.size(), kConstantAlignment);
        if (offset + length > std::numeric_limits<uint32_t>::max()) {
            NN_LOG(ERROR) << function << ": the model's copied values would pass 4 GiB";
            return ANEURALNETWORKS_BAD_DATA;
        }
        model_->operandValues.resize(offset + length);  // may throw: the C API guard answers OUT_OF_MEMORY
        std::memcpy(model_->operandValues.data() + offset, buffer, length);
        operand.lifetime = OperandLifeTime::CONSTANT_COPY;
        operand.location = {0, static_cast<uint32_t>(offset), size};
    } else {
        // Referenced until finish, which copies it (the application keeps it alive until then).
        referencedValues_[index] = buffer;
        operand.lifetime = OperandLifeTime::CONSTANT_REFERENCE;
        operand.location = {0, 0, size};
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandValueFromMemory(int32_t index, std::shared_ptr<const hal::MemoryPool> memory,
                                            size_t offset, size_t length) {
    const char* function = "ANeuralNetworksModel_setOperandValueFromMemory";
    if (int n = checkModifiable(function)) return n;
    if (int n = checkOperandIndex(index, function)) return n;
    if (dynamic_cast<const DeviceMemory*>(memory.get()) != nullptr) {
        NN_LOG(ERROR) << function << ": a memory created from a descriptor cannot hold constants";
        return ANEURALNETWORKS_BAD_DATA;
    }
    hal::Operand& operand = model_->operands[index];
    if (operand.type == hal::OperandType::SUBGRAPH || !hal::isFullySpecified(operand.type, operand.dimensions) ||
        hal::byteSize(operand.type, operand.dimensions) != length) {
        NN_LOG(ERROR) << function << ": operand " << index << " is not fully specified or has another length";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (offset > memory->size() || length > memory->size() - offset || offset > std::numeric_limits<uint32_t>::max()) {
        NN_LOG(ERROR) << function << ": region [" << offset << ", +" << length << ") lies outside the memory";
        return ANEURALNETWORKS_BAD_DATA;
    }
    uint32_t poolIndex = 0;
    while (poolIndex < model_->pools.size() && model_->pools[poolIndex] != memory) ++poolIndex;
    if (poolIndex == model_->pools.size()) model_->pools.push_back(std::move(memory));
    referencedValues_[index] = nullptr;
    operand.lifetime = OperandLifeTime::CONSTANT_REFERENCE;
    operand.location = {poolIndex, static_cast<uint32_t>(offset), static_cast<uint32_t>(length)};
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandValueFromModel(int32_t index, const ModelBuilder& value) {
    const char* function = "ANeuralNetworksModel_setOperandValueFromModel";
    if (int n = checkModifiable(function)) return n;
    if (!value.finished_ || value.invalid_) {
        NN_LOG(ERROR) << function << ": the value model is " << (value.invalid_ ? "invalid" : "not finished");
        return ANEURALNETWORKS_BAD_STATE;
    }
    if (int n = checkOperandIndex(index, function)) return n;
    hal::Operand& operand = model_->operands[index];
    if (operand.type != hal::OperandType::SUBGRAPH) {
        NN_LOG(ERROR) << function << ": operand " << index << " is a " << hal::operandTypeName(operand.type)
                      << ", not an ANEURALNETWORKS_MODEL";
        return ANEURALNETWORKS_BAD_DATA;
    }
    // Copied in at finish; until then the application keeps `value` alive.
    referencedValues_[index] = nullptr;
    modelValues_[index] = &value;
    operand.lifetime = OperandLifeTime::SUBGRAPH;
    operand.location = {};
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandSymmPerChannelQuantParams(int32_t index,
                                                      const ANeuralNetworksSymmPerChannelQuantParams& params) {
    const char* function = "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams";
    if (int n = checkModifiable(function)) return n;
    if (int n = checkOperandIndex(index, function)) return n;
    hal::Operand& operand = model_->operands[index];
    if (operand.type != hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        NN_LOG(ERROR) << function << ": operand " << index << " is not TENSOR_QUANT8_SYMM_PER_CHANNEL";
        return ANEURALNETWORKS_BAD_DATA;
    }
    // A null scales array is a bad value of the struct, not a null argument (as in Android).
    if (params.channelDim >= operand.dimensions.size() || params.scales == nullptr ||
        operand.dimensions[params.channelDim] == 0 || params.scaleCount != operand.dimensions[params.channelDim]) {
        NN_LOG(ERROR) << function << ": channelDim, scaleCount or scales do not match the dimensions";
        return ANEURALNETWORKS_BAD_DATA;
    }
    hal::SymmPerChannelQuantParams quant;
    quant.channelDim = params.channelDim;
    quant.scales.assign(params.scales, params.scales + params.scaleCount);
    for (float scale : quant.scales) {
        if (!(scale > 0.0f)) {
            NN_LOG(ERROR) << function << ": every scale must be > 0";
            return ANEURALNETWORKS_BAD_DATA;
        }
    }
    operand.channelQuant = std::move(quant);
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::addOperation(int32_t type, uint32_t inputCount, const uint32_t* inputs,
                               uint32_t outputCount, const uint32_t* outputs) {
    const char* function = "ANeuralNetworksModel_addOperation";
    if (int n = checkModifiable(function)) return n;
    const Memory::CheckScope checkOnce;
    const bool isOem = type == static_cast<int32_t>(hal::OperationType::OEM_OPERATION);
    if (!isOem && (type < 0 || type >= hal::kNumberOfOperationTypes)) {
        NN_LOG(ERROR) << function << ": invalid operation type " << type;
        return ANEURALNETWORKS_BAD_DATA;
    }
    hal::Operation operation;
    operation.type = static_cast<hal::OperationType>(type);
    operation.inputs.assign(inputs, inputs + inputCount);
    operation.outputs.assign(outputs, outputs + outputCount);
    if (const Status valid = hal::validateOperation(operation, model_->operands,
                                                    [this](uint32_t index) { return constantOf(index); });
        !valid) {
        NN_LOG(ERROR) << function << ": " << valid.message();
        return ANEURALNETWORKS_BAD_DATA;
    }
    hasOem_ = hasOem_ || isOem;
    model_->operations.push_back(std::move(operation));
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::identifyInputsAndOutputs(uint32_t inputCount, const uint32_t* inputs,
                                           uint32_t outputCount, const uint32_t* outputs) {
    const char* function = "ANeuralNetworksModel_identifyInputsAndOutputs";
    if (int n = checkModifiable(function)) return n;
    // A refused call leaves the model as it was, including an earlier declaration: the lifetimes
    // it changed are put back (not a copy of every operand: a model may be declared many times).
    std::vector<std::pair<uint32_t, OperandLifeTime>> changed;
    auto mark = [&](uint32_t count, const uint32_t* indexes, OperandLifeTime lifetime,
                    std::vector<uint32_t>* list) {
        std::vector<uint32_t> chosen;
        for (uint32_t i = 0; i < count; ++i) {
            const uint32_t index = indexes[i];
            if (index >= model_->operands.size()) {
                NN_LOG(ERROR) << function << ": operand index " << index << " out of range";
                return false;
            }
            const hal::Operand& operand = model_->operands[index];
            bool repeated = false;
            for (uint32_t seen : chosen) repeated = repeated || seen == index;
            if (operand.lifetime != OperandLifeTime::TEMPORARY_VARIABLE || repeated) {
                NN_LOG(ERROR) << function << ": operand " << index
                              << " is a constant or already an input or output";
                return false;
            }
            chosen.push_back(index);
        }
        for (uint32_t index : chosen) {
            changed.emplace_back(index, model_->operands[index].lifetime);
            model_->operands[index].lifetime = lifetime;
        }
        *list = std::move(chosen);
        return true;
    };
    const auto savedInputs = model_->inputIndexes;
    const auto savedOutputs = model_->outputIndexes;
    if (!mark(inputCount, inputs, OperandLifeTime::MODEL_INPUT, &model_->inputIndexes) ||
        !mark(outputCount, outputs, OperandLifeTime::MODEL_OUTPUT, &model_->outputIndexes)) {
        for (const auto& [index, lifetime] : changed) model_->operands[index].lifetime = lifetime;
        model_->inputIndexes = savedInputs;
        model_->outputIndexes = savedOutputs;
        return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::setOperandExtensionData(int32_t index, const void*, size_t) {
    const char* function = "ANeuralNetworksModel_setOperandExtensionData";
    if (int n = checkModifiable(function)) return n;
    if (int n = checkOperandIndex(index, function)) return n;
    // No extension is known to this runtime, so no operand has an extension type.
    NN_LOG(ERROR) << function << ": operand " << index << " does not have an extension type";
    return ANEURALNETWORKS_BAD_DATA;
}

int ModelBuilder::relaxComputationFloat32toFloat16(bool allow) {
    if (int n = checkModifiable("ANeuralNetworksModel_relaxComputationFloat32toFloat16")) return n;
    model_->relaxComputationFloat32toFloat16 = allow;
    return ANEURALNETWORKS_NO_ERROR;
}

// Every MODEL_INPUT / MODEL_OUTPUT operand is in the current input / output list (a later
// identifyInputsAndOutputs replaces the lists but not the lifetimes the earlier one set).
bool ModelBuilder::listsEveryInputAndOutput() const {
    std::vector<bool> listed(model_->operands.size(), false);
    for (uint32_t index : model_->inputIndexes) listed[index] = true;
    for (uint32_t index : model_->outputIndexes) listed[index] = true;
    for (size_t i = 0; i < model_->operands.size(); ++i) {
        const auto lifetime = model_->operands[i].lifetime;
        if ((lifetime == OperandLifeTime::MODEL_INPUT || lifetime == OperandLifeTime::MODEL_OUTPUT) && !listed[i]) {
            return false;
        }
    }
    return true;
}

// Kahn's algorithm over operand writers; leaves operations on a cycle unsorted.
bool ModelBuilder::sortOperations() {
    const size_t count = model_->operations.size();
    std::vector<std::vector<uint32_t>> readers(model_->operands.size());
    std::vector<uint32_t> missing(count, 0);
    for (uint32_t i = 0; i < count; ++i) {
        for (uint32_t index : model_->operations[i].inputs) {
            const auto lifetime = model_->operands[index].lifetime;
            if (lifetime == OperandLifeTime::TEMPORARY_VARIABLE || lifetime == OperandLifeTime::MODEL_OUTPUT) {
                readers[index].push_back(i);
                missing[i]++;
            }
        }
    }
    std::vector<uint32_t> ready;
    for (uint32_t i = count; i-- > 0;) {
        if (missing[i] == 0) ready.push_back(i);
    }
    std::vector<uint32_t> order;
    while (!ready.empty()) {
        const uint32_t i = ready.back();
        ready.pop_back();
        order.push_back(i);
        for (uint32_t index : model_->operations[i].outputs) {
            for (uint32_t reader : readers[index]) {
                if (--missing[reader] == 0) ready.push_back(reader);
            }
        }
    }
    if (order.size() != count) return false;
    std::vector<hal::Operation> sorted;
    for (uint32_t i : order) sorted.push_back(std::move(model_->operations[i]));
    model_->operations = std::move(sorted);
    sortedToAdded_ = std::move(order);
    return true;
}

// Copies every referenced application buffer into pools owned by the model. Locations are
// 32-bit, so a pool is closed before it would pass 4 GiB (each value alone fits). Allocates
// every pool before changing anything, so running out of memory leaves the model as it was.
int ModelBuilder::copyReferencedValues() {
    struct Placement {
        uint32_t operand;
        size_t pool;
        size_t offset;
    };
    std::vector<Placement> placements;
    std::vector<size_t> poolSizes;
    for (uint32_t i = 0; i < referencedValues_.size(); ++i) {
        if (referencedValues_[i] == nullptr) continue;
        const size_t length = model_->operands[i].location.length;
        size_t offset = poolSizes.empty() ? 0 : alignUp(poolSizes.back(), kConstantAlignment);
        if (poolSizes.empty() || offset + length > std::numeric_limits<uint32_t>::max()) {
            poolSizes.push_back(0);
            offset = 0;
        }
        placements.push_back({i, poolSizes.size() - 1, offset});
        poolSizes.back() = offset + length;
    }
    std::vector<std::shared_ptr<hal::HeapPool>> pools;
    if (!guardAllocation([&] {
            for (size_t size : poolSizes) pools.push_back(std::make_shared<hal::HeapPool>(size));
        }).isOk()) {
        NN_LOG(ERROR) << "ANeuralNetworksModel_finish: cannot allocate memory for the model's constants";
        return ANEURALNETWORKS_OUT_OF_MEMORY;
    }
    const auto firstPool = static_cast<uint32_t>(model_->pools.size());
    for (const Placement& at : placements) {
        hal::Operand& operand = model_->operands[at.operand];
        std::memcpy(pools[at.pool]->data() + at.offset, referencedValues_[at.operand], operand.location.length);
        operand.location.poolIndex = firstPool + static_cast<uint32_t>(at.pool);
        operand.location.offset = static_cast<uint32_t>(at.offset);
        referencedValues_[at.operand] = nullptr;
    }
    for (auto& pool : pools) model_->pools.push_back(std::move(pool));
    return ANEURALNETWORKS_NO_ERROR;
}

// Appends `graph`, copied from a model whose copied values and pools now start at valueBase and
// poolBase of this model, and whose SUBGRAPH operand k now refers to innerIndex[k].
uint32_t ModelBuilder::appendSubgraph(hal::Subgraph graph, uint32_t valueBase, uint32_t poolBase,
                                      const std::vector<uint32_t>& innerIndex, const ModelBuilder* source) {
    for (hal::Operand& operand : graph.operands) {
        if (operand.lifetime == OperandLifeTime::CONSTANT_COPY) operand.location.offset += valueBase;
        if (operand.lifetime == OperandLifeTime::CONSTANT_REFERENCE) operand.location.poolIndex += poolBase;
        if (operand.lifetime == OperandLifeTime::SUBGRAPH) operand.location.offset = innerIndex[operand.location.offset];
    }
    model_->referenced.push_back(std::move(graph));
    referencedSources_.push_back(source);
    return static_cast<uint32_t>(model_->referenced.size() - 1);
}

// Copies `value` (finished, so its own references are already flattened into it) and what it
// references, depth-first: a subgraph always follows the ones it refers to. A model referenced
// several times, directly or through others, is copied once.
uint32_t ModelBuilder::placeReferencedModel(const ModelBuilder& value, Placed& placed) {
    if (auto it = placed.find(&value); it != placed.end()) return it->second;
    const hal::Model& source = *value.model_;
    const auto valueBase = static_cast<uint32_t>(alignUp(model_->operandValues.size(), kConstantAlignment));
    model_->operandValues.resize(valueBase);
    model_->operandValues.insert(model_->operandValues.end(), source.operandValues.begin(), source.operandValues.end());
    const auto poolBase = static_cast<uint32_t>(model_->pools.size());
    model_->pools.insert(model_->pools.end(), source.pools.begin(), source.pools.end());
    std::vector<uint32_t> innerIndex(source.referenced.size());
    for (size_t k = 0; k < source.referenced.size(); ++k) {
        const ModelBuilder* key = value.referencedSources_[k];
        if (auto it = placed.find(key); it != placed.end()) {
            innerIndex[k] = it->second;
            continue;
        }
        innerIndex[k] = appendSubgraph(source.referenced[k], valueBase, poolBase, innerIndex, key);
        placed[key] = innerIndex[k];
    }
    hal::Subgraph main{source.operands, source.operations, source.inputIndexes, source.outputIndexes};
    const uint32_t at = appendSubgraph(std::move(main), valueBase, poolBase, innerIndex, &value);
    placed[&value] = at;
    return at;
}

int ModelBuilder::copyReferencedModels() {
    Placed placed;
    if (!guardAllocation([&] {
            for (size_t i = 0; i < modelValues_.size(); ++i) {
                if (modelValues_[i] == nullptr) continue;
                model_->operands[i].location = {0, placeReferencedModel(*modelValues_[i], placed), 0};
                modelValues_[i] = nullptr;
            }
        }).isOk()) {
        NN_LOG(ERROR) << "ANeuralNetworksModel_finish: cannot allocate memory for the referenced models";
        return ANEURALNETWORKS_OUT_OF_MEMORY;
    }
    if (model_->operandValues.size() > std::numeric_limits<uint32_t>::max()) {
        NN_LOG(ERROR) << "ANeuralNetworksModel_finish: the referenced models' copied values pass 4 GiB";
        return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int ModelBuilder::finish() {
    if (int n = checkModifiable("ANeuralNetworksModel_finish")) return n;
    const Memory::CheckScope checkOnce;  // the memories' files checked once while validating
    if (int n = copyReferencedValues()) return n;
    if (int n = copyReferencedModels()) return n;
    for (auto& operand : model_->operands) operand.numberOfConsumers = 0;
    for (const auto& operation : model_->operations) {
        for (uint32_t index : operation.inputs) model_->operands[index].numberOfConsumers++;
    }
    std::string why;
    if (!listsEveryInputAndOutput()) {
        why = "an operand marked as a model input or output by an earlier declaration is no longer listed";
    } else if (!sortOperations()) {
        why = "the operations form a cycle or read an operand nobody writes";
    } else if (Status valid = hal::validateModel(*model_); !valid) {
        why = valid.message();
    } else if (const int64_t level = modelMinimumLevel(*model_); level > runtimeLevel_) {
        // A model needing a later feature level than the runtime's is invalid (nnapi-fl30plus.md §2.4).
        why = "it needs feature level " + std::to_string(level) + "; this runtime implements " +
              std::to_string(runtimeLevel_);
    } else {
        finished_ = true;
        return ANEURALNETWORKS_NO_ERROR;
    }
    NN_LOG(ERROR) << "ANeuralNetworksModel_finish: invalid model: " << why;
    invalid_ = true;
    return ANEURALNETWORKS_BAD_DATA;
}

}  // namespace nnemu::runtime
