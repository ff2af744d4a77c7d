// Interpreter::create: checks the graph, lowers every node to NNAPI, decides which nodes the
// accelerator takes (getSupportedOperationsForDevices), partitions like TFLite's delegate and
// compiles each partition. CPU partitions run node by node on nnapi-reference, the stand-in for
// TFLite's own CPU kernels, so each CPU node is timed on its own as TFLite's profiler shows it.
// Nodes NNAPI cannot express at all run on the tools' own CPU kernels (src/cpu) instead, and so
// do CPU-path nodes whose TFLite results differ from NNAPI's (TfliteKernelForms.h).
#include "nnemu/tflite/Interpreter.h"

#include <android/NeuralNetworks.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "ArenaPlan.h"
#include "CompiledPartition.h"
#include "DelegateTargets.h"
#include "DenormalFlush.h"
#include "GraphChecks.h"
#include "NodeLowering.h"
#include "nnemu/tflite/NnapiGraph.h"
#include "Partitioning.h"
#include "RuntimeLevel.h"
#include "TensorBuffer.h"
#include "TfliteKernelForms.h"
#include "XnnpackForms.h"
#include "cpu/CpuKernelUnit.h"
#include "cpu/CpuThreads.h"
#include "cpu/Resources.h"
#include "nnemu/base/Log.h"

namespace nnemu::tflite {
namespace {

// A 32-byte NNAPI cache token per delegate kernel, derived from the user's token (FNV-1a).
std::vector<uint8_t> partitionToken(const std::string& token, uint32_t kernelIndex, const std::vector<uint32_t>& nodes) {
    std::vector<uint8_t> result(ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN);
    for (size_t lane = 0; lane < result.size() / 8; ++lane) {
        uint64_t hash = 1469598103934665603ull ^ lane;
        const auto mix = [&hash](uint64_t value) {
            for (int b = 0; b < 8; ++b) {
                hash ^= (value >> (8 * b)) & 0xffu;
                hash *= 1099511628211ull;
            }
        };
        for (char c : token) mix(static_cast<uint8_t>(c));
        mix(kernelIndex);
        for (uint32_t n : nodes) mix(n);
        for (int b = 0; b < 8; ++b) result[lane * 8 + b] = static_cast<uint8_t>(hash >> (8 * b));
    }
    return result;
}

// A node whose NNAPI form the runtime refuses (a type or parameter its feature level lacks, e.g.
// a quantized REDUCE_SUM) runs on the tools' CPU kernel when it has one that accepts it. The
// runtime validates each operation on its own, so one model of every such candidate that it
// accepts means it refuses none of them (the usual case: one model built, not one per node);
// otherwise each candidate is asked alone.
void keepRefusedNodesOnCpuKernels(const Model& model, NnapiGraph& graph) {
    std::vector<uint32_t> candidates;
    for (const Node& node : model.nodes()) {
        if (!graph.cpuKernel[node.index] && CpuKernelTable::get().find(node) != nullptr) candidates.push_back(node.index);
    }
    if (candidates.empty() || PartitionModel::build(model, graph, candidates).isOk()) return;
    for (uint32_t index : candidates) {
        const Node& node = model.nodes()[index];
        if (PartitionModel::build(model, graph, {node.index}).isOk()) continue;
        if (!prepareCpuKernel(model.subgraphs()[0], node).isOk()) continue;
        NN_LOG(INFO) << "nnemu tflite: operator " << node.opName << " at node " << node.index
                     << " runs on the tools' CPU kernel (NNAPI refused it)";
        moveNodeToCpuKernel(node, graph);
    }
}

// Per output of a CPU-kernel node: whether only the host reads it (graph outputs and other
// CPU-kernel nodes), so that its kernel may size it at invoke as TFLite sizes dynamic tensors.
std::vector<bool> hostOnlyOutputs(const Node& node, const NnapiGraph& graph) {
    std::vector<bool> result;
    for (int32_t t : node.outputs) {
        bool hostOnly = t >= 0 && static_cast<size_t>(t) < graph.tensorReaders.size();
        for (uint32_t reader : hostOnly ? graph.tensorReaders[t] : std::vector<uint32_t>{}) {
            hostOnly = hostOnly && graph.cpuKernel[reader];
        }
        result.push_back(hostOnly);
    }
    return result;
}

}  // namespace

Interpreter::Interpreter(const Model& model) : model_(model) {}
Interpreter::~Interpreter() = default;

Result<std::unique_ptr<Interpreter>> Interpreter::create(const Model& model, const DelegateOptions& options) {
    // Declared first: on a failure the interpreter's models, which reference its values and
    // subgraph models, go before it; on success it hands those to the interpreter.
    NnapiGraph graph;
    std::unique_ptr<Interpreter> interpreter(new Interpreter(model));
    DelegateTargets targets;
    NNEMU_RETURN_IF_ERROR(chooseDelegateTargets(options, &targets));
    interpreter->deviceNames_ = targets.deviceNames;

    // Graph checks and lowering.
    NNEMU_RETURN_IF_ERROR(checkDataFlow(model));
    for (int32_t t : model.inputs()) {
        // Their bytes are not a function of the shape: the caller's buffer could not be sized.
        if (model.tensors()[t].type == ElementType::STRING && !model.tensors()[t].isConstant) {
            return badData("input tensor " + std::to_string(t) + " holds strings: string inputs are not supported");
        }
    }
    NNEMU_ASSIGN_OR_RETURN(const std::vector<int32_t> used, tensorsInUse(model));
    graph.signedInt8 = nnapiHasSignedInt8();
    graph.allowCpuKernels = true;
    NNEMU_RETURN_IF_ERROR(lowerModel(model, graph));
    const bool external = !options.externalKernels.empty();
    // As TFLite's delegate with allow_fp16: its kernels' models are relaxed, the CPU path's not.
    const bool relaxed = options.useNnapi && options.allowFp16;
    const bool askAccelerator = !external && !targets.accelerators.empty();
    const auto nnapiNodes = [&] {
        std::vector<uint32_t> nodes;
        for (uint32_t n = 0; n < model.nodes().size(); ++n) {
            if (!graph.cpuKernel[n]) nodes.push_back(n);
        }
        return nodes;
    };
    std::vector<uint32_t> all = nnapiNodes();  // the nodes with NNAPI operations
    // The model of every NNAPI node, built to ask the accelerator; compiled as it is when the
    // accelerator takes every node (the usual case), not built again. When the runtime accepts
    // it, it refuses none of its operations, so no node needs the tools' CPU kernel in place of
    // its NNAPI form (the one model is all keepRefusedNodesOnCpuKernels would have asked about);
    // otherwise those nodes are found first and the model is built without them.
    std::unique_ptr<PartitionModel> whole;
    if (askAccelerator && !all.empty()) {
        Result<std::unique_ptr<PartitionModel>> built = PartitionModel::build(model, graph, all, relaxed);
        if (built.isOk()) whole = std::move(built).value();
    }
    if (whole == nullptr) {
        keepRefusedNodesOnCpuKernels(model, graph);
        all = nnapiNodes();
        if (askAccelerator && !all.empty()) {
            NNEMU_ASSIGN_OR_RETURN(whole, PartitionModel::build(model, graph, all, relaxed));
        }
    }
    NNEMU_ASSIGN_OR_RETURN(interpreter->resources_, InterpreterResources::create(model));

    // Which nodes the accelerator takes: all NNAPI operations of a node must be supported. An
    // external delegate takes the place of the accelerator.
    std::vector<bool> supported(model.nodes().size(), false);
    for (const std::vector<uint32_t>& kernel : options.externalKernels) {
        for (uint32_t n : kernel) {
            if (n < supported.size()) supported[n] = true;
        }
    }
    interpreter->runExternalKernel_ = options.runExternalKernel;
    if (whole != nullptr) {
        std::unique_ptr<bool[]> flags(new bool[whole->operationNodes().size()]());
        const int status = ANeuralNetworksModel_getSupportedOperationsForDevices(
                whole->handle(), targets.accelerators.data(), static_cast<uint32_t>(targets.accelerators.size()),
                flags.get());
        if (status != ANEURALNETWORKS_NO_ERROR) {
            return opFailed(std::string("ANeuralNetworksModel_getSupportedOperationsForDevices failed (") +
                            resultCodeName(status) + ")");
        }
        std::fill(supported.begin(), supported.end(), true);
        for (size_t op = 0; op < whole->operationNodes().size(); ++op) {
            if (!flags[op]) supported[whole->operationNodes()[op]] = false;
        }
        for (size_t n = 0; n < supported.size(); ++n) supported[n] = supported[n] && !graph.cpuOnly[n];
    }
    std::vector<NodeSubset> subsets = partitionNodes(model, supported);
    if (!external) {
        const std::vector<bool> limited = limitDelegatedPartitions(subsets, supported, options.maxDelegatedPartitions);
        if (limited != supported) subsets = partitionNodes(model, limited);
    }
    // Outside the delegated partitions the CPU path is TFLite's builtin kernels: forms whose
    // results TFLite computes otherwise than NNAPI run on the tools' kernel (TfliteKernelForms.h).
    std::vector<bool> delegated(model.nodes().size(), false);
    for (const NodeSubset& subset : subsets) {
        for (uint32_t n : subset.delegated ? subset.nodes : std::vector<uint32_t>{}) delegated[n] = true;
    }
    // With TFLite's default delegate, the nodes XNNPACK would take compute its arithmetic.
    const std::vector<bool> xnnpackNodes = options.xnnpack ? runXnnpackFormsOnCpuKernels(model, delegated, graph)
                                                           : std::vector<bool>(model.nodes().size(), false);
    runTfliteFormsOnCpuKernels(model, delegated, graph);
    int32_t nextExternal = 0;

    // Compile: a delegate kernel per delegated subset, one model per node elsewhere.
    CompileTarget cpuTarget;
    cpuTarget.devices = {targets.reference};
    uint32_t nextKernel = static_cast<uint32_t>(model.nodes().size());
    for (const NodeSubset& subset : subsets) {
        Partition partition;
        partition.nodes = subset.nodes;
        partition.delegated = subset.delegated;
        partition.kernelIndex = subset.delegated ? nextKernel++ : subset.nodes.front();
        if (external && subset.delegated) {
            // The host made the same subsets from the same claim (partitionNodes).
            if (static_cast<size_t>(nextExternal) >= options.externalKernels.size() ||
                options.externalKernels[nextExternal] != subset.nodes) {
                return badData("the external delegate's node subsets do not match the graph's partitioning");
            }
            partition.externalKernel = nextExternal++;
            interpreter->partitions_.push_back(std::move(partition));
            interpreter->compiled_.emplace_back();
            continue;
        }
        std::vector<std::vector<uint32_t>> units;
        if (subset.delegated) {
            units.push_back(subset.nodes);
        } else {
            for (uint32_t n : subset.nodes) units.push_back({n});
        }
        CompileTarget target = cpuTarget;
        if (subset.delegated) {
            target.devices = targets.runtimeChoice ? std::vector<const ANeuralNetworksDevice*>{} : targets.accelerators;
            target.preference = options.executionPreference;
            target.delegated = true;
            if (!options.cacheDir.empty() && !options.cacheToken.empty()) {
                target.cacheDir = options.cacheDir;
                target.cacheToken = partitionToken(options.cacheToken, partition.kernelIndex, subset.nodes);
            }
        }
        std::vector<std::unique_ptr<ExecutionUnit>> compiled;
        for (const std::vector<uint32_t>& unit : units) {
            if (graph.cpuKernel[unit.front()]) {
                const Node& node = model.nodes()[unit.front()];
                NNEMU_ASSIGN_OR_RETURN(std::unique_ptr<CpuKernelUnit> part,
                                       CpuKernelUnit::create(model.subgraphs()[0], node, !graph.signedInt8,
                                                             xnnpackNodes[node.index] ? QuantizedArithmetic::Xnnpack
                                                                                      : QuantizedArithmetic::Builtin));
                part->allowResizing(hostOnlyOutputs(node, graph));
                part->useResources(interpreter->resources_.get());
                // TFLite's kernels share a node's work among --num_threads threads.
                if (interpreter->cpuThreads_ == nullptr) interpreter->cpuThreads_ = CpuThreads::create(options.numThreads);
                part->useThreads(interpreter->cpuThreads_.get());
                compiled.push_back(std::move(part));
                continue;
            }
            std::unique_ptr<PartitionModel> partitionModel;
            if (whole != nullptr && subset.delegated && unit == all) {
                partitionModel = std::move(whole);
            } else {
                NNEMU_ASSIGN_OR_RETURN(partitionModel,
                                       PartitionModel::build(model, graph, unit, relaxed && subset.delegated));
            }
            Result<std::unique_ptr<CompiledPartition>> part = CompiledPartition::compile(std::move(partitionModel), target);
            if (!part) {
                return Status(part.code(), (unit.size() == 1 ? "operator " + model.nodes()[unit[0]].opName + " at node " +
                                                                       std::to_string(unit[0])
                                                             : "delegate kernel " + std::to_string(partition.kernelIndex)) +
                                                   ": " + part.message());
            }
            compiled.push_back(std::move(part).value());
        }
        interpreter->partitions_.push_back(std::move(partition));
        interpreter->compiled_.push_back(std::move(compiled));
    }
    NN_LOG(INFO) << "nnemu tflite: " << interpreter->delegatedNodeCount() << " of " << model.nodes().size()
                 << " node(s) delegated in " << interpreter->delegateKernelCount() << " kernel(s), "
                 << interpreter->partitions_.size() << " partition(s), "
                 << std::count(graph.cpuKernel.begin(), graph.cpuKernel.end(), true) << " on the tools' CPU kernels, int8 as "
                 << (graph.signedInt8 ? "TENSOR_QUANT8_ASYMM_SIGNED" : "TENSOR_QUANT8_ASYMM + 128");

    // Tensor buffers: NNAPI layout inside, TFLite layout for the caller's inputs and outputs.
    // Only what the host touches: a tensor inside a delegate kernel lives in the device's memory.
    const std::vector<bool> touched = interpreter->hostTensors();
    interpreter->tensorData_.resize(model.tensors().size());
    const std::vector<bool> inArena = interpreter->planTensors(used, touched);
    for (int32_t t : used) {
        if (!touched[t] || inArena[t]) continue;
        const Tensor& tensor = model.tensors()[t];
        interpreter->tensorData_[t] = TensorBuffer(std::max(tensor.byteSize(), tensor.dataSize));
        if (tensor.isConstant) std::memcpy(interpreter->tensorData_[t].data(), tensor.data, tensor.dataSize);
    }
    interpreter->signedInt8_ = graph.signedInt8;
    // An input NNAPI takes as it is needs no second buffer: the caller writes the partitions' own.
    for (int32_t t : model.inputs()) {
        const Tensor& tensor = model.tensors()[t];
        const bool converted = interpreter->convertedAtBoundary(tensor);
        interpreter->inputData_.emplace_back(converted ? interpreter->tensorData_[t].size() : 0);
    }
    // Likewise an output: the caller reads the partitions' own buffer, no copy per invoke.
    for (int32_t t : model.outputs()) {
        const Tensor& tensor = model.tensors()[t];
        const bool converted = interpreter->convertedAtBoundary(tensor);
        interpreter->outputData_.emplace_back(converted ? interpreter->tensorData_[t].size() : 0);
        interpreter->outputTensors_.push_back(tensor);
        if (tensor.isConstant) std::memcpy(interpreter->outputData_.back().data(), tensor.data, tensor.dataSize);
    }
    interpreter->partitionTimesUs_.assign(interpreter->partitions_.size(), 0);
    interpreter->nodeTimesUs_.assign(model.nodes().size(), 0);
    // The graph served building the models; they keep referencing the values NNAPI did not copy
    // and the subgraphs' models, nothing else of it.
    for (NnOperand& operand : graph.operands) {
        if (operand.ownedValue.size() > ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES) {
            interpreter->modelValues_.push_back(std::move(operand.ownedValue));
        }
    }
    interpreter->subgraphModels_ = std::move(graph.ownedReferences);
    return interpreter;
}

namespace {

// Sets (*marks)[t] for every valid tensor index t of `tensors`.
void markAll(const std::vector<int32_t>& tensors, std::vector<bool>* marks) {
    for (int32_t t : tensors) {
        if (t >= 0 && static_cast<size_t>(t) < marks->size()) (*marks)[t] = true;
    }
}

}  // namespace

// Every tensor of an external delegate's kernel's nodes (it may read any of them).
void Interpreter::markExternalKernel(size_t partition, std::vector<bool>* marks) const {
    for (uint32_t n : partitions_[partition].nodes) {
        markAll(model_.nodes()[n].inputs, marks);
        markAll(model_.nodes()[n].outputs, marks);
    }
}

// The model's inputs and outputs, every compiled unit's tensors and, for an external delegate's
// kernel, every tensor of its nodes.
std::vector<bool> Interpreter::hostTensors() const {
    std::vector<bool> touched(model_.tensors().size(), false);
    markAll(model_.inputs(), &touched);
    markAll(model_.outputs(), &touched);
    for (size_t p = 0; p < partitions_.size(); ++p) {
        for (const std::unique_ptr<ExecutionUnit>& unit : compiled_[p]) unit->markTensors(&touched);
        if (partitions_[p].externalKernel >= 0) markExternalKernel(p, &touched);
    }
    return touched;
}

// The tensors only the partitions see (not the model's inputs, outputs, constants or variables,
// which outlive an invoke) share one arena (ArenaPlan.h), each alive from the first step (a
// delegate kernel or a unit) that uses it to the last. A tensor a CPU kernel resizes at invoke
// leaves the arena for bytes of its own (TensorBuffer::reshape).
std::vector<bool> Interpreter::planTensors(const std::vector<int32_t>& used, const std::vector<bool>& touched) {
    const size_t count = model_.tensors().size();
    constexpr uint32_t kNever = UINT32_MAX;
    std::vector<uint32_t> first(count, kNever), last(count, 0);
    uint32_t step = 0;
    const auto alive = [&](const std::vector<bool>& marks) {
        for (size_t t = 0; t < count; ++t) {
            if (!marks[t]) continue;
            first[t] = std::min(first[t], step);
            last[t] = std::max(last[t], step);
        }
        ++step;
    };
    for (size_t p = 0; p < partitions_.size(); ++p) {
        if (partitions_[p].externalKernel >= 0) {
            std::vector<bool> marks(count, false);
            markExternalKernel(p, &marks);
            alive(marks);
        }
        for (const std::unique_ptr<ExecutionUnit>& unit : compiled_[p]) {
            std::vector<bool> marks(count, false);
            unit->markTensors(&marks);
            alive(marks);
        }
    }
    std::vector<bool> outlives(count, false);
    markAll(model_.inputs(), &outlives);
    markAll(model_.outputs(), &outlives);
    std::vector<bool> inArena(count, false);
    std::vector<int32_t> placed;
    std::vector<ArenaRequest> requests;
    for (int32_t t : used) {
        const Tensor& tensor = model_.tensors()[t];
        const size_t bytes = std::max(tensor.byteSize(), tensor.dataSize);
        if (!touched[t] || outlives[t] || tensor.isConstant || tensor.isVariable || bytes == 0 || first[t] == kNever) {
            continue;
        }
        inArena[t] = true;
        placed.push_back(t);
        requests.push_back({bytes, first[t], last[t]});
    }
    const ArenaPlan plan = planArena(requests);
    arena_ = std::make_unique<TensorBuffer>(plan.bytes);
    for (size_t i = 0; i < placed.size(); ++i) {
        tensorData_[placed[i]] = TensorBuffer::view(arena_->data() + plan.offsets[i], requests[i].bytes);
    }
    return inArena;
}

size_t Interpreter::delegatedNodeCount() const {
    size_t count = 0;
    for (const Partition& partition : partitions_) {
        if (partition.delegated) count += partition.nodes.size();
    }
    return count;
}

bool Interpreter::signedInt8() const { return signedInt8_; }

size_t Interpreter::delegateKernelCount() const {
    size_t count = 0;
    for (const Partition& partition : partitions_) count += partition.delegated ? 1 : 0;
    return count;
}

size_t Interpreter::inputCount() const { return model_.inputs().size(); }
size_t Interpreter::outputCount() const { return model_.outputs().size(); }
const Tensor& Interpreter::inputTensor(size_t i) const { return model_.tensors()[model_.inputs()[i]]; }
const Tensor& Interpreter::outputTensor(size_t i) const { return outputTensors_[i]; }
uint8_t* Interpreter::inputData(size_t i) {
    return inputData_[i].data() != nullptr ? inputData_[i].data() : tensorData_[model_.inputs()[i]].data();
}
const uint8_t* Interpreter::outputData(size_t i) const {
    const int32_t t = model_.outputs()[i];
    return convertedAtBoundary(model_.tensors()[t]) ? outputData_[i].data() : tensorData_[t].data();
}

// An input or output the caller reaches through a buffer of its own: a constant, or int8 shifted
// for NNAPI.
bool Interpreter::convertedAtBoundary(const Tensor& tensor) const {
    return tensor.isConstant || (tensor.type == ElementType::INT8 && !signedInt8_);
}

uint8_t* Interpreter::tensorData(int32_t t, size_t* bytes) {
    if (t < 0 || static_cast<size_t>(t) >= tensorData_.size()) return nullptr;
    if (bytes != nullptr) *bytes = tensorData_[t].size();
    return tensorData_[t].data();
}

Status Interpreter::invoke() {
    // As TFLite's Invoke: every node, CPU kernel or partition, with denormals flushed in this thread.
    const ScopedDenormalFlush flushed;
    // Below feature level 30, int8 travels through NNAPI as uint8 with the zero point moved by
    // 128: flip the sign bit.
    const bool shiftInt8 = !signedInt8_;
    const auto convert = [shiftInt8](const TensorBuffer& from, TensorBuffer& to, ElementType type) {
        const uint8_t* source = from.data();
        uint8_t* target = to.data();
        if (type == ElementType::INT8 && shiftInt8) {
            for (size_t i = 0; i < from.size(); ++i) target[i] = source[i] ^ 0x80u;
        } else if (from.size() != 0) {
            std::memcpy(target, source, from.size());
        }
    };
    for (size_t i = 0; i < model_.inputs().size(); ++i) {
        const int32_t t = model_.inputs()[i];
        if (!model_.tensors()[t].isConstant && inputData_[i].data() != nullptr) {
            convert(inputData_[i], tensorData_[t], model_.tensors()[t].type);
        }
    }
    const auto microsecondsSince = [](std::chrono::steady_clock::time_point start) {
        return static_cast<uint64_t>(
                std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
    };
    for (size_t p = 0; p < partitions_.size(); ++p) {
        const auto start = std::chrono::steady_clock::now();
        if (partitions_[p].externalKernel >= 0) {
            // No hook reads as an empty reason, as it always has.
            const Status ran = runExternalKernel_ ? runExternalKernel_(static_cast<size_t>(partitions_[p].externalKernel))
                                                  : opFailed("");
            if (!ran) {
                return Status(ran.code(), "delegate kernel " + std::to_string(partitions_[p].kernelIndex) + ": " +
                                                  ran.message());
            }
        }
        for (const std::unique_ptr<ExecutionUnit>& part : compiled_[p]) {
            const auto unitStart = std::chrono::steady_clock::now();
            if (const Status ran = part->run(tensorData_); !ran) {
                const Partition& partition = partitions_[p];
                return Status(ran.code(), (partition.delegated ? "delegate kernel " + std::to_string(partition.kernelIndex)
                                                               : "operator " + model_.nodes()[part->firstNode()].opName +
                                                                         " at node " + std::to_string(part->firstNode())) +
                                                  ": " + ran.message());
            }
            if (!partitions_[p].delegated) nodeTimesUs_[part->firstNode()] = microsecondsSince(unitStart);
        }
        partitionTimesUs_[p] = microsecondsSince(start);
    }
    for (size_t i = 0; i < model_.outputs().size(); ++i) {
        const int32_t t = model_.outputs()[i];
        const Tensor& tensor = model_.tensors()[t];
        if (tensor.isConstant) continue;  // already holds the constant, in TFLite layout
        // A CPU kernel sized it at invoke (TFLite's dynamic tensors): the caller sees that shape.
        if (const std::optional<std::vector<int32_t>>& shape = tensorData_[t].shape()) outputTensors_[i].shape = *shape;
        if (tensor.type == ElementType::STRING) outputTensors_[i].dataSize = tensorData_[t].size();
        if (!convertedAtBoundary(tensor)) continue;  // read in place (outputData)
        if (outputData_[i].size() != tensorData_[t].size()) outputData_[i] = TensorBuffer(tensorData_[t].size());
        convert(tensorData_[t], outputData_[i], tensor.type);
    }
    return {};
}

}  // namespace nnemu::tflite
