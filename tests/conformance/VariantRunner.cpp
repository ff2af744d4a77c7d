// Runs one variant: model construction, support check, compilation, one execution per example,
// and comparison of the results.
#include "VariantRunner.h"

#include <memory>
#include <optional>
#include <set>

#include "../api/NnapiOwners.h"
#include "Comparison.h"

namespace nnemu::conformance {
namespace {

// NNAPI refuses a null operand list even with a count of 0, and an empty vector's data() may be
// null: an empty list is passed as a pointer to nothing.
const uint32_t* listData(const std::vector<uint32_t>& list) {
    static constexpr uint32_t kNone = 0;
    return list.empty() ? &kNone : list.data();
}

using namespace nnemu::nnapi;  // owners of the NNAPI handles (tests/api/NnapiOwners.h)

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

// Why a variant could not be run: a call of the model-building API failed (which a validation
// variant expects), or the runner itself cannot express the variant.
struct BuildProblem {
    std::string reason;
    bool apiCall = true;
};

class ModelBuilder {
public:
    explicit ModelBuilder(const Variant& v) : mVariant(v), mReferenced(v.referenced.size()) {}

    // Builds the variant's model into `model` (the referenced subgraphs first, as needed).
    std::optional<BuildProblem> buildMain(ANeuralNetworksModel* model) {
        return build(mVariant.operands, mVariant.operations, mVariant.inputs, mVariant.outputs,
                     mVariant.relaxed, model);
    }

private:
    template <typename Graph>
    std::optional<BuildProblem> buildGraph(const Graph& g, bool relaxed,
                                           ANeuralNetworksModel* model) {
        return build(g.operands, g.operations, g.inputs, g.outputs, relaxed, model);
    }

    std::optional<BuildProblem> build(const std::vector<Operand>& operands,
                                      const std::vector<Operation>& operations,
                                      const std::vector<uint32_t>& inputs,
                                      const std::vector<uint32_t>& outputs, bool relaxed,
                                      ANeuralNetworksModel* model);

    // The finished model of referenced[k], built at its first use (depth-first).
    std::optional<BuildProblem> referenced(uint32_t k, ANeuralNetworksModel** out);

    const Variant& mVariant;
    std::vector<ModelPtr> mReferenced;
    std::set<uint32_t> mBuilding;  // guards against a subgraph that references itself
};

std::optional<BuildProblem> ModelBuilder::referenced(uint32_t k, ANeuralNetworksModel** out) {
    if (mReferenced[k]) {
        *out = mReferenced[k].get();
        return std::nullopt;
    }
    if (!mBuilding.insert(k).second) {
        return BuildProblem{"referenced subgraph " + std::to_string(k) + " references itself",
                            false};
    }
    ANeuralNetworksModel* raw = nullptr;
    const int rc = ANeuralNetworksModel_create(&raw);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        return BuildProblem{callFailed("ANeuralNetworksModel_create(referenced)", rc), false};
    }
    ModelPtr model(raw);
    // AOSP relaxes the main model only.
    if (auto problem = buildGraph(mVariant.referenced[k], false, model.get())) {
        problem->reason = "referenced " + std::to_string(k) + ": " + problem->reason;
        return problem;
    }
    mBuilding.erase(k);
    mReferenced[k] = std::move(model);
    *out = mReferenced[k].get();
    return std::nullopt;
}

// Sets the value of a SUBGRAPH operand; returns a failure reason or nothing.
std::optional<BuildProblem> setSubgraphValue([[maybe_unused]] ANeuralNetworksModel* model,
                                             [[maybe_unused]] int32_t index,
                                             [[maybe_unused]] ANeuralNetworksModel* value,
                                             [[maybe_unused]] const std::string& what) {
#if NNEMU_NNAPI_API_LEVEL >= 30
    const int rc = ANeuralNetworksModel_setOperandValueFromModel(model, index, value);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        return BuildProblem{callFailed("ANeuralNetworksModel_setOperandValueFromModel" + what, rc)};
    }
    return std::nullopt;
#else
    return BuildProblem{"SUBGRAPH operands need feature level 30: use a library at feature level 30 or later",
                        false};
#endif
}

std::optional<BuildProblem> ModelBuilder::build(const std::vector<Operand>& operands,
                                                const std::vector<Operation>& operations,
                                                const std::vector<uint32_t>& inputs,
                                                const std::vector<uint32_t>& outputs,
                                                bool relaxed, ANeuralNetworksModel* model) {
    for (size_t i = 0; i < operands.size(); ++i) {
        const Operand& op = operands[i];
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
            return BuildProblem{callFailed("ANeuralNetworksModel_addOperand" + what, rc)};
        }
        if (op.channelQuant) {
            ANeuralNetworksSymmPerChannelQuantParams params{};
            params.channelDim = op.channelQuant->channelDim;
            params.scaleCount = static_cast<uint32_t>(op.channelQuant->scales.size());
            params.scales = op.channelQuant->scales.data();
            rc = ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model, index, &params);
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return BuildProblem{callFailed(
                        "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams" + what, rc)};
            }
        }
        if (op.lifetime == Lifetime::Constant) {
            // The variant outlives the model, so values above the copy threshold stay valid.
            rc = ANeuralNetworksModel_setOperandValue(
                    model, index, op.value.empty() ? nullptr : op.value.data(), op.value.size());
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return BuildProblem{callFailed("ANeuralNetworksModel_setOperandValue" + what, rc)};
            }
        } else if (op.lifetime == Lifetime::NoValue) {
            rc = ANeuralNetworksModel_setOperandValue(model, index, nullptr, 0);
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return BuildProblem{
                        callFailed("ANeuralNetworksModel_setOperandValue(NULL)" + what, rc)};
            }
        } else if (op.lifetime == Lifetime::Subgraph) {
            ANeuralNetworksModel* value = nullptr;
            if (auto problem = referenced(op.subgraph, &value)) return problem;
            if (auto problem = setSubgraphValue(model, index, value, what)) return problem;
        }
    }
    for (size_t i = 0; i < operations.size(); ++i) {
        const Operation& op = operations[i];
        const int rc = ANeuralNetworksModel_addOperation(
                model, op.typeCode, static_cast<uint32_t>(op.inputs.size()), listData(op.inputs),
                static_cast<uint32_t>(op.outputs.size()), listData(op.outputs));
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return BuildProblem{callFailed("ANeuralNetworksModel_addOperation(operation " +
                                                   std::to_string(i) + " " + op.typeName + ")",
                                           rc)};
        }
    }
    int rc = ANeuralNetworksModel_identifyInputsAndOutputs(
            model, static_cast<uint32_t>(inputs.size()), listData(inputs),
            static_cast<uint32_t>(outputs.size()), listData(outputs));
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        return BuildProblem{callFailed("ANeuralNetworksModel_identifyInputsAndOutputs", rc)};
    }
    if (relaxed) {
        rc = ANeuralNetworksModel_relaxComputationFloat32toFloat16(model, true);
        if (rc != ANEURALNETWORKS_NO_ERROR) {
            return BuildProblem{
                    callFailed("ANeuralNetworksModel_relaxComputationFloat32toFloat16", rc)};
        }
    }
    rc = ANeuralNetworksModel_finish(model);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        // AOSP asserts that finish succeeds once the building calls did, even for a
        // validation test: not an expected failure.
        return BuildProblem{callFailed("ANeuralNetworksModel_finish", rc), false};
    }
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
// `computeResult` receives the result of the compute call; a validation variant (expectFailure)
// stops there, with its failure reported through it and nothing compared.
std::optional<std::string> runExample(const Variant& v, const Example& example,
                                      const Tolerances& tolerances,
                                      ANeuralNetworksCompilation* compilation,
                                      ANeuralNetworksBurst* burst, ComputeMode mode,
                                      int* computeResult) {
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
            *computeResult = rc;
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
            *computeResult = rc;
            return callFailed("ANeuralNetworksExecution_setOutput(output " + std::to_string(p) +
                                      ")",
                              rc);
        }
    }

    switch (mode) {
        case ComputeMode::Sync:
            rc = ANeuralNetworksExecution_compute(execution.get());
            *computeResult = rc;
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return callFailed("ANeuralNetworksExecution_compute", rc);
            }
            break;
        case ComputeMode::Async: {
            ANeuralNetworksEvent* rawEvent = nullptr;
            rc = ANeuralNetworksExecution_startCompute(execution.get(), &rawEvent);
            *computeResult = rc;
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                if (rawEvent) ANeuralNetworksEvent_free(rawEvent);
                return callFailed("ANeuralNetworksExecution_startCompute", rc);
            }
            EventPtr event(rawEvent);
            rc = ANeuralNetworksEvent_wait(event.get());
            *computeResult = rc;
            if (rc != ANEURALNETWORKS_NO_ERROR) return callFailed("ANeuralNetworksEvent_wait", rc);
            break;
        }
        case ComputeMode::Burst:
            rc = ANeuralNetworksExecution_burstCompute(execution.get(), burst);
            *computeResult = rc;
            if (rc != ANEURALNETWORKS_NO_ERROR) {
                return callFailed("ANeuralNetworksExecution_burstCompute", rc);
            }
            break;
    }
    if (v.expectFailure) return std::nullopt;  // a validation test compares nothing

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

// AOSP's isInfiniteLoopTimeoutTest: a WHILE that never ends; only an execution that stops with
// a missed-deadline error once the loop timeout expires passes.
bool isInfiniteLoopTest(const Variant& v) {
    return v.testName.find("while_infinite_loop") != std::string::npos;
}

// The outcome of a validation variant's execution, or nothing to go on with the next example.
std::optional<Outcome> validationVerdict(const Variant& v, const std::optional<std::string>& problem,
                                         int computeResult) {
    if (isInfiniteLoopTest(v)) {
        if (computeResult == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT ||
            computeResult == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT) {
            return Outcome{Outcome::Status::Passed, "loop timed out as expected: " + *problem};
        }
        return failed("an endless WHILE must stop with a MISSED_DEADLINE error after the loop "
                      "timeout; " + (problem ? *problem : std::string("the execution succeeded")));
    }
    if (problem) return Outcome{Outcome::Status::Passed, "failed as expected: " + *problem};
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
            "ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE", "ANEURALNETWORKS_UNAVAILABLE_DEVICE",
            "ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT", "ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT",
            "ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT",
            "ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT", "ANEURALNETWORKS_DEAD_OBJECT"};
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
    // A validation variant passes when a step fails; say which one.
    const auto expectedFailure = [](const std::string& step) {
        return Outcome{Outcome::Status::Passed, "failed as expected: " + step};
    };
#if NNEMU_NNAPI_API_LEVEL < 30
    if (!v.referenced.empty()) {
        return failed("IF/WHILE subgraphs need feature level 30: use a library at feature level 30 or later");
    }
#endif
    ModelBuilder builder(v);  // owns the referenced models; outlives the main model
    ANeuralNetworksModel* rawModel = nullptr;
    int rc = ANeuralNetworksModel_create(&rawModel);
    if (rc != ANEURALNETWORKS_NO_ERROR) return failed(callFailed("ANeuralNetworksModel_create", rc));
    ModelPtr model(rawModel);
    if (auto problem = builder.buildMain(model.get())) {
        if (v.expectFailure && problem->apiCall) return expectedFailure(problem->reason);
        return failed(problem->reason);
    }

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
        if (v.expectFailure && !isInfiniteLoopTest(v)) {
            return expectedFailure(callFailed("ANeuralNetworksCompilation_finish", rc));
        }
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
        int computeResult = ANEURALNETWORKS_NO_ERROR;
        auto problem = runExample(v, v.examples[e], tolerances, compilation.get(), burst.get(),
                                  mode, &computeResult);
        if (v.expectFailure) {
            if (auto verdict = validationVerdict(v, problem, computeResult)) return *verdict;
            continue;
        }
        if (problem) {
            std::string prefix = std::string("[") + computeModeName(mode) + "] ";
            if (v.examples.size() > 1) prefix += "example " + std::to_string(e) + ": ";
            return failed(prefix + *problem);
        }
    }
    if (v.expectFailure) {
        return failed("a validation test: model building, compilation or execution should fail, "
                      "but every step succeeded");
    }
    return {Outcome::Status::Passed, {}};
}

}  // namespace nnemu::conformance
