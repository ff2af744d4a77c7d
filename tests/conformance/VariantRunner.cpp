// Runs one variant: model construction, support check, compilation, one execution per example,
// and comparison of the results.
#include "VariantRunner.h"

#include <memory>
#include <optional>
#include <set>

#include "Comparison.h"

namespace nnemu::conformance {
namespace {

// NNAPI refuses a null operand list even with a count of 0, and an empty vector's data() may be
// null: an empty list is passed as a pointer to nothing.
const uint32_t* listData(const std::vector<uint32_t>& list) {
    static constexpr uint32_t kNone = 0;
    return list.empty() ? &kNone : list.data();
}

struct ModelDeleter {
    void operator()(ANeuralNetworksModel* p) const { ANeuralNetworksModel_free(p); }
};
struct CompilationDeleter {
    void operator()(ANeuralNetworksCompilation* p) const { ANeuralNetworksCompilation_free(p); }
};
struct ExecutionDeleter {
    void operator()(ANeuralNetworksExecution* p) const { ANeuralNetworksExecution_free(p); }
};
struct EventDeleter {
    void operator()(ANeuralNetworksEvent* p) const { ANeuralNetworksEvent_free(p); }
};
struct BurstDeleter {
    void operator()(ANeuralNetworksBurst* p) const { ANeuralNetworksBurst_free(p); }
};
using ModelPtr = std::unique_ptr<ANeuralNetworksModel, ModelDeleter>;
using CompilationPtr = std::unique_ptr<ANeuralNetworksCompilation, CompilationDeleter>;
using ExecutionPtr = std::unique_ptr<ANeuralNetworksExecution, ExecutionDeleter>;
using EventPtr = std::unique_ptr<ANeuralNetworksEvent, EventDeleter>;
using BurstPtr = std::unique_ptr<ANeuralNetworksBurst, BurstDeleter>;

Outcome failed(std::string reason) { return {Outcome::Status::Failed, std::move(reason)}; }

std::string callFailed(const std::string& call, int code) {
    return call + " returned " + resultCodeText(code);
}

bool hasUnknownDims(const std::vector<uint32_t>& dims) {
    for (uint32_t d : dims) {
        if (d == 0) return true;
    }
    return false;
}

// Builds the model; returns a failure reason or nothing.
std::optional<std::string> buildModel(const Variant& v, ANeuralNetworksModel* model) {
    for (size_t i = 0; i < v.operands.size(); ++i) {
        const Operand& op = v.operands[i];
        const auto index = static_cast<int32_t>(i);
        const std::string what = "(operand " + std::to_string(i) + " '" + op.name + "' " +
                                 op.typeName + " " + dimsToString(op.dims) + ")";
        ANeuralNetworksOperandType type{};
        type.type = op.typeCode;
        type.dimensionCount = static_cast<uint32_t>(op.dims.size());
        type.dimensions = op.dims.empty() ? nullptr : op.dims.data();
        type.scale = op.scale;
        type.zeroPoint = op.zeroPoint;
        int rc = ANeuralNetworksModel_addOperand(model, &type);
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return callFailed("ANeuralNetworksModel_addOperand" + what, rc);
        }
        if (op.channelQuant) {
            ANeuralNetworksSymmPerChannelQuantParams params{};
            params.channelDim = op.channelQuant->channelDim;
            params.scaleCount = static_cast<uint32_t>(op.channelQuant->scales.size());
            params.scales = op.channelQuant->scales.data();
            rc = ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model, index, &params);
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return callFailed("ANeuralNetworksModel_setOperandSymmPerChannelQuantParams" + what,
                                  rc);
            }
        }
        if (op.lifetime == Lifetime::Constant) {
            // The variant outlives the model, so values above the copy threshold stay valid.
            rc = ANeuralNetworksModel_setOperandValue(
                    model, index, op.value.empty() ? nullptr : op.value.data(), op.value.size());
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return callFailed("ANeuralNetworksModel_setOperandValue" + what, rc);
            }
        } else if (op.lifetime == Lifetime::NoValue) {
            rc = ANeuralNetworksModel_setOperandValue(model, index, nullptr, 0);
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return callFailed("ANeuralNetworksModel_setOperandValue(NULL)" + what, rc);
            }
        }
    }
    for (size_t i = 0; i < v.operations.size(); ++i) {
        const Operation& op = v.operations[i];
        const int rc = ANeuralNetworksModel_addOperation(
                model, op.typeCode, static_cast<uint32_t>(op.inputs.size()), listData(op.inputs),
                static_cast<uint32_t>(op.outputs.size()), listData(op.outputs));
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return callFailed("ANeuralNetworksModel_addOperation(operation " + std::to_string(i) +
                                      " " + op.typeName + ")",
                              rc);
        }
    }
    int rc = ANeuralNetworksModel_identifyInputsAndOutputs(
            model, static_cast<uint32_t>(v.inputs.size()), listData(v.inputs),
            static_cast<uint32_t>(v.outputs.size()), listData(v.outputs));
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        return callFailed("ANeuralNetworksModel_identifyInputsAndOutputs", rc);
    }
    if (v.relaxed) {
        rc = ANeuralNetworksModel_relaxComputationFloat32toFloat16(model, true);
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return callFailed("ANeuralNetworksModel_relaxComputationFloat32toFloat16", rc);
        }
    }
    rc = ANeuralNetworksModel_finish(model);
    if (rc != ANEURALNETWORKS_NO_ERROR) return callFailed("ANeuralNetworksModel_finish", rc);
    return std::nullopt;
}

// Queries the shape the execution produced for one output.
std::optional<std::string> outputDims(ANeuralNetworksExecution* execution, size_t position,
                                      std::vector<uint32_t>* dims) {
    const auto index = static_cast<int32_t>(position);
    uint32_t rank = 0;
    int rc = ANeuralNetworksExecution_getOutputOperandRank(execution, index, &rank);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        return callFailed("ANeuralNetworksExecution_getOutputOperandRank(output " +
                                  std::to_string(position) + ")",
                          rc);
    }
    dims->assign(rank, 0);
    if (rank == 0) return std::nullopt;  // scalar: there are no dimensions to ask for
    rc = ANeuralNetworksExecution_getOutputOperandDimensions(execution, index, dims->data());
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        return callFailed("ANeuralNetworksExecution_getOutputOperandDimensions(output " +
                                  std::to_string(position) + ")",
                          rc);
    }
    return std::nullopt;
}

// Executes one example and compares its results; returns a failure reason or nothing.
std::optional<std::string> runExample(const Variant& v, const Example& example,
                                      const Tolerances& tolerances,
                                      ANeuralNetworksCompilation* compilation,
                                      ANeuralNetworksBurst* burst, ComputeMode mode) {
    ANeuralNetworksExecution* rawExecution = nullptr;
    int rc = ANeuralNetworksExecution_create(compilation, &rawExecution);
    if (rc != ANEURALNETWORKS_NO_ERROR) return callFailed("ANeuralNetworksExecution_create", rc);
    ExecutionPtr execution(rawExecution);

    for (size_t p = 0; p < v.inputs.size(); ++p) {
        const TensorData& data = example.inputs[p];
        const Operand& operand = v.operands[v.inputs[p]];
        const auto index = static_cast<int32_t>(p);
        if (data.count == 0) {
            rc = ANeuralNetworksExecution_setInput(execution.get(), index, nullptr, nullptr, 0);
        } else if (!hasUnknownDims(operand.dims) && operand.dims.size() == data.dims.size()) {
            rc = ANeuralNetworksExecution_setInput(execution.get(), index, nullptr,
                                                   data.bytes.data(), data.bytes.size());
        } else {
            // The model leaves part of the shape open: complete it from the example.
            ANeuralNetworksOperandType type{};
            type.type = operand.typeCode;
            type.dimensionCount = static_cast<uint32_t>(data.dims.size());
            type.dimensions = data.dims.empty() ? nullptr : data.dims.data();
            type.scale = operand.scale;
            type.zeroPoint = operand.zeroPoint;
            rc = ANeuralNetworksExecution_setInput(execution.get(), index, &type,
                                                   data.bytes.data(), data.bytes.size());
        }
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return callFailed("ANeuralNetworksExecution_setInput(input " + std::to_string(p) + ")",
                              rc);
        }
    }

    std::vector<std::vector<uint8_t>> buffers(v.outputs.size());
    for (size_t p = 0; p < v.outputs.size(); ++p) {
        const TensorData& golden = example.outputs[p];
        const size_t size = golden.count * elementSize(v.operands[v.outputs[p]].kind);
        buffers[p].reserve(size == 0 ? 1 : size);  // never hand out a null pointer
        buffers[p].assign(size, 0);
        rc = ANeuralNetworksExecution_setOutput(execution.get(), static_cast<int32_t>(p), nullptr,
                                                buffers[p].data(), size);
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return callFailed("ANeuralNetworksExecution_setOutput(output " + std::to_string(p) +
                                      ")",
                              rc);
        }
    }

    switch (mode) {
        case ComputeMode::Sync:
            rc = ANeuralNetworksExecution_compute(execution.get());
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return callFailed("ANeuralNetworksExecution_compute", rc);
            }
            break;
        case ComputeMode::Async: {
            ANeuralNetworksEvent* rawEvent = nullptr;
            rc = ANeuralNetworksExecution_startCompute(execution.get(), &rawEvent);
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                if (rawEvent) ANeuralNetworksEvent_free(rawEvent);
                return callFailed("ANeuralNetworksExecution_startCompute", rc);
            }
            EventPtr event(rawEvent);
            rc = ANeuralNetworksEvent_wait(event.get());
            if (rc != ANEURALNETWORKS_NO_ERROR) return callFailed("ANeuralNetworksEvent_wait", rc);
            break;
        }
        case ComputeMode::Burst:
            rc = ANeuralNetworksExecution_burstCompute(execution.get(), burst);
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return callFailed("ANeuralNetworksExecution_burstCompute", rc);
            }
            break;
    }

    // Compare every non-ignored output: shape first, then values. The first problem found
    // (in output order) is reported, with the total number of mismatching elements.
    std::optional<std::string> firstProblem;
    size_t mismatches = 0;
    size_t compared = 0;
    for (size_t p = 0; p < v.outputs.size(); ++p) {
        if (v.ignoredOutput[p]) continue;
        const TensorData& golden = example.outputs[p];
        std::vector<uint32_t> dims;
        if (auto problem = outputDims(execution.get(), p, &dims)) {
            if (!firstProblem) firstProblem = *problem;
        } else if (dims != golden.dims) {
            if (!firstProblem) {
                firstProblem = "output " + std::to_string(p) + " dimensions: expected " +
                               dimsToString(golden.dims) + ", actual " + dimsToString(dims);
            }
        }
        std::optional<Mismatch> first;
        mismatches += compareOutput(v.operands[v.outputs[p]].kind, golden, buffers[p].data(), p,
                                    tolerances, &first);
        compared += golden.count;
        if (first && !firstProblem) {
            firstProblem = "output " + std::to_string(first->outputPosition) + " index " +
                           std::to_string(first->index) + ": expected " + first->expected +
                           ", actual " + first->actual + " (allowed " + first->allowed + ")";
        }
    }
    if (firstProblem) {
        if (mismatches > 0) {
            *firstProblem += "; " + std::to_string(mismatches) + " of " +
                             std::to_string(compared) + " compared elements differ";
        }
        return firstProblem;
    }

    if (example.multinomialTolerance && !v.inputs.empty() && !v.outputs.empty()) {
        const Operand& logits = v.operands[v.inputs[0]];
        const Operand& samples = v.operands[v.outputs[0]];
        if (samples.kind != ElementKind::Int32) {
            return std::string("multinomial check: output 0 is not an int32 tensor");
        }
        if (auto problem = checkMultinomial(logits.kind, example.inputs[0], buffers[0].data(),
                                            example.outputs[0].count, example.outputs[0].dims,
                                            *example.multinomialTolerance)) {
            return problem;
        }
    }
    return std::nullopt;
}

}  // namespace

const char* computeModeName(ComputeMode mode) {
    switch (mode) {
        case ComputeMode::Sync: return "compute";
        case ComputeMode::Async: return "startCompute";
        case ComputeMode::Burst: return "burstCompute";
    }
    return "?";
}

std::string resultCodeText(int code) {
    static const char* const kNames[] = {
            "ANEURALNETWORKS_NO_ERROR",         "ANEURALNETWORKS_OUT_OF_MEMORY",
            "ANEURALNETWORKS_INCOMPLETE",       "ANEURALNETWORKS_UNEXPECTED_NULL",
            "ANEURALNETWORKS_BAD_DATA",         "ANEURALNETWORKS_OP_FAILED",
            "ANEURALNETWORKS_BAD_STATE",        "ANEURALNETWORKS_UNMAPPABLE",
            "ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE", "ANEURALNETWORKS_UNAVAILABLE_DEVICE"};
    const std::string number = "(" + std::to_string(code) + ")";
    if (code >= 0 && code < static_cast<int>(std::size(kNames))) {
        return std::string(kNames[code]) + " " + number;
    }
    return "unknown result code " + number;
}

VariantRunner::VariantRunner(std::vector<const ANeuralNetworksDevice*> devices,
                             bool compileForDevices)
    : mDevices(std::move(devices)), mCompileForDevices(compileForDevices) {}

Outcome VariantRunner::run(const Variant& v, ComputeMode mode) const {
    ANeuralNetworksModel* rawModel = nullptr;
    int rc = ANeuralNetworksModel_create(&rawModel);
    if (rc != ANEURALNETWORKS_NO_ERROR) return failed(callFailed("ANeuralNetworksModel_create", rc));
    ModelPtr model(rawModel);
    if (auto problem = buildModel(v, model.get())) return failed(*problem);

    if (!mDevices.empty() && !v.operations.empty()) {
        std::unique_ptr<bool[]> supported(new bool[v.operations.size()]());
        rc = ANeuralNetworksModel_getSupportedOperationsForDevices(
                model.get(), mDevices.data(), static_cast<uint32_t>(mDevices.size()),
                supported.get());
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return failed(callFailed("ANeuralNetworksModel_getSupportedOperationsForDevices", rc));
        }
        std::string unsupported;
        std::set<std::string> listed;
        for (size_t i = 0; i < v.operations.size(); ++i) {
            if (!supported[i] && listed.insert(v.operations[i].typeName).second) {
                unsupported += (unsupported.empty() ? "" : ", ") + v.operations[i].typeName;
            }
        }
        if (!unsupported.empty()) {
            return {Outcome::Status::Skipped, "not supported by device: " + unsupported};
        }
    }

    ANeuralNetworksCompilation* rawCompilation = nullptr;
    if (mCompileForDevices) {
        rc = ANeuralNetworksCompilation_createForDevices(model.get(), mDevices.data(),
                                                         static_cast<uint32_t>(mDevices.size()),
                                                         &rawCompilation);
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return failed(callFailed("ANeuralNetworksCompilation_createForDevices", rc));
        }
    } else {
        rc = ANeuralNetworksCompilation_create(model.get(), &rawCompilation);
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return failed(callFailed("ANeuralNetworksCompilation_create", rc));
        }
    }
    CompilationPtr compilation(rawCompilation);
    rc = ANeuralNetworksCompilation_finish(compilation.get());
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        return failed(callFailed("ANeuralNetworksCompilation_finish", rc));
    }

    BurstPtr burst;
    if (mode == ComputeMode::Burst) {
        ANeuralNetworksBurst* rawBurst = nullptr;
        rc = ANeuralNetworksBurst_create(compilation.get(), &rawBurst);
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return failed(callFailed("ANeuralNetworksBurst_create", rc));
        }
        burst.reset(rawBurst);
    }

    ToleranceTracker tracker(v);
    for (size_t e = 0; e < v.examples.size(); ++e) {
        const Tolerances tolerances = tracker.next(v.examples[e]);
        if (auto problem = runExample(v, v.examples[e], tolerances, compilation.get(),
                                      burst.get(), mode)) {
            std::string prefix = std::string("[") + computeModeName(mode) + "] ";
            if (v.examples.size() > 1) prefix += "example " + std::to_string(e) + ": ";
            return failed(prefix + *problem);
        }
    }
    return {Outcome::Status::Passed, {}};
}

}  // namespace nnemu::conformance
