// Resource variables (issue 24), as TFLite's var_handle.cc, read_variable.cc,
// assign_variable.cc and call_once.cc: VAR_HANDLE gives the id of the variable its
// (container, shared_name) names, ASSIGN_VARIABLE stores a value under an id (type, shape and
// bytes), READ_VARIABLE gives the stored value (sized at invoke), CALL_ONCE runs an init
// subgraph the first time the interpreter reaches it. The values live in the interpreter's
// InterpreterResources (Resources.h), kept across invokes.
#include <cstring>

#include "../GraphChecks.h"
#include "../TensorBuffer.h"
#include "CpuKernelUnit.h"
#include "Resources.h"

namespace nnemu::tflite {

// One CALL_ONCE target: its nodes' CPU kernels and its tensors' buffers.
class InitSubgraph {
public:
    InitSubgraph(const Subgraph& subgraph, int32_t index) : subgraph_(subgraph), index_(index) {}

    void add(std::unique_ptr<CpuKernelUnit> unit) { units_.push_back(std::move(unit)); }
    void allocate() {
        for (const Tensor& tensor : subgraph_.tensors) {
            buffers_.emplace_back(std::max(tensor.byteSize(), tensor.dataSize));
            if (tensor.isConstant && tensor.dataSize != 0) std::memcpy(buffers_.back().data(), tensor.data, tensor.dataSize);
        }
    }
    Status run() {
        for (const std::unique_ptr<CpuKernelUnit>& unit : units_) {
            if (const Status ran = unit->run(buffers_); !ran) {
                const Node& node = subgraph_.nodes[unit->firstNode()];
                return Status(ran.code(), "init subgraph " + std::to_string(index_) + ": operator " + node.opName +
                                                  " at node " + std::to_string(node.index) + ": " + ran.message());
            }
        }
        return {};
    }

private:
    const Subgraph& subgraph_;
    int32_t index_;
    std::vector<std::unique_ptr<CpuKernelUnit>> units_;
    std::vector<TensorBuffer> buffers_;
};

namespace {

constexpr size_t kMaxInitNesting = 32;   // as control flow's subgraphs (ControlFlow.h)

int32_t callOnceTarget(const Node& node) {
    const auto* params = static_cast<const TfLiteCallOnceParams*>(node.builtinData);
    return params != nullptr ? params->init_subgraph_index : -1;
}

std::string nameOf(const char* text) { return text != nullptr ? text : ""; }

bool isCode(const Node& node, fb::BuiltinOperator code) { return node.builtinCode == static_cast<int32_t>(code); }

// ---- VAR_HANDLE: no inputs, the id as its one output.
bool prepareVarHandle(const CpuKernelCall& call) {
    if (!call.expectCounts(0, 0, 1)) return false;
    if (call.params<TfLiteVarHandleParams>() == nullptr) return call.fail("has no VarHandleOptions");
    if (!call.expectType(call.out(0), {ElementType::RESOURCE, ElementType::INT32}, "output")) return false;
    if (call.out(0).count() != 1) return call.fail("output must hold one resource id, not " + shapeText(call.out(0).shape()));
    return true;
}

bool runVarHandle(const CpuKernelCall& call) {
    const auto* params = call.params<TfLiteVarHandleParams>();
    if (call.resources == nullptr) return call.fail("no resource variables in this interpreter");
    call.out(0).set<int32_t>(0, call.resources->handleId(nameOf(params->container), nameOf(params->shared_name)));
    return true;
}

// The resource id input of READ_VARIABLE and ASSIGN_VARIABLE.
bool expectResourceId(const CpuKernelCall& call) {
    if (!call.expectType(call.in(0), {ElementType::RESOURCE, ElementType::INT32}, "resource id")) return false;
    if (call.in(0).count() != 1) return call.fail("resource id must be one value, not " + shapeText(call.in(0).shape()));
    return true;
}

// ---- READ_VARIABLE: the value, sized at invoke.
bool prepareReadVariable(const CpuKernelCall& call) { return call.expectCounts(1, 1, 1) && expectResourceId(call); }

bool runReadVariable(const CpuKernelCall& call) {
    const int32_t id = call.in(0).at<int32_t>(0);
    const ResourceVariable* variable = call.resources != nullptr ? call.resources->variable(id) : nullptr;
    if (variable == nullptr) return call.fail("resource variable " + std::to_string(id) + " has no value (never assigned)");
    if (variable->type != call.out(0).type()) {
        return call.fail(std::string("resource variable ") + std::to_string(id) + " holds " +
                         elementTypeName(variable->type) + ", the output is " + elementTypeName(call.out(0).type()));
    }
    if (!call.resizeOutput(0, variable->shape)) return false;
    if (!variable->bytes.empty()) std::memcpy(call.out(0).out, variable->bytes.data(), variable->bytes.size());
    return true;
}

// ---- ASSIGN_VARIABLE: no outputs.
bool prepareAssignVariable(const CpuKernelCall& call) { return call.expectCounts(2, 2, 0) && expectResourceId(call); }

bool runAssignVariable(const CpuKernelCall& call) {
    if (call.resources == nullptr) return call.fail("no resource variables in this interpreter");
    const CpuOperand& value = call.in(1);
    ResourceVariable variable{value.type(), value.shape(), {}};
    variable.bytes.assign(value.data, value.data + value.tensor->byteSize());
    call.resources->assign(call.in(0).at<int32_t>(0), std::move(variable));
    return true;
}

// ---- CALL_ONCE: no inputs or outputs; its subgraph was checked when the interpreter was made.
bool prepareCallOnce(const CpuKernelCall& call) {
    if (!call.expectCounts(0, 0, 0)) return false;
    if (call.params<TfLiteCallOnceParams>() == nullptr) return call.fail("has no CallOnceOptions");
    return true;
}

bool runCallOnce(const CpuKernelCall& call) {
    if (call.resources == nullptr) return call.fail("no init subgraphs in this interpreter");
    const Status ran = call.resources->callOnce(call.params<TfLiteCallOnceParams>()->init_subgraph_index);
    return ran ? true : call.fail(ran.message());
}

}  // namespace

Result<std::unique_ptr<InterpreterResources>> InterpreterResources::create(const Model& model) {
    std::unique_ptr<InterpreterResources> resources(new InterpreterResources());
    for (const Subgraph& subgraph : model.subgraphs()) {
        for (const Node& node : subgraph.nodes) {
            const auto* params = static_cast<const TfLiteVarHandleParams*>(node.builtinData);
            if (!isCode(node, fb::BuiltinOperator_VAR_HANDLE) || params == nullptr) continue;
            const auto names = std::make_pair(nameOf(params->container), nameOf(params->shared_name));
            resources->ids_.emplace(names, static_cast<int32_t>(resources->ids_.size()));
        }
    }
    for (const Node& node : model.nodes()) {
        if (!isCode(node, fb::BuiltinOperator_CALL_ONCE)) continue;
        if (const Status prepared = resources->prepareInit(model, callOnceTarget(node), 0, 0); !prepared) {
            return Status(prepared.code(), "operator CALL_ONCE at node " + std::to_string(node.index) + ": " +
                                                   prepared.message());
        }
    }
    return resources;
}

InterpreterResources::~InterpreterResources() = default;

Status InterpreterResources::prepareInit(const Model& model, int32_t index, int32_t caller, size_t depth) {
    const size_t count = model.subgraphs().size();
    if (index < 0 || static_cast<size_t>(index) >= count) {
        return badData("init subgraph index " + std::to_string(index) + " is out of range (the model has " +
                       std::to_string(count) + " subgraph" + (count == 1 ? "" : "s") + ")");
    }
    if (index == caller) return badData("init subgraph " + std::to_string(index) + " is the subgraph that calls it");
    if (const auto found = inits_.find(index); found != inits_.end()) {
        if (found->second == nullptr) return badData("init subgraph " + std::to_string(index) + " calls itself again");
        return {};
    }
    if (depth >= kMaxInitNesting) return badData("CALL_ONCE nested more than " + std::to_string(kMaxInitNesting) + " deep");
    const Subgraph& subgraph = model.subgraphs()[static_cast<size_t>(index)];
    const std::string where = "init subgraph " + std::to_string(index);
    if (!subgraph.inputs.empty() || !subgraph.outputs.empty()) {
        return badData(where + " has inputs or outputs (TFLite's CALL_ONCE requires none)");
    }
    NNEMU_RETURN_IF_ERROR(checkDataFlow(subgraph));
    inits_[index] = nullptr;   // being prepared
    auto init = std::make_unique<InitSubgraph>(subgraph, index);
    for (const Node& node : subgraph.nodes) {
        Result<std::unique_ptr<CpuKernelUnit>> unit = CpuKernelUnit::create(subgraph, node, /*shiftedInt8=*/false);
        if (!unit) {
            inits_.erase(index);
            return Status(unit.code(), where + ": " + unit.message());
        }
        (*unit)->allowResizing(std::vector<bool>(node.outputs.size(), true));
        (*unit)->useResources(this);
        init->add(std::move(unit).value());
        if (!isCode(node, fb::BuiltinOperator_CALL_ONCE)) continue;
        if (const Status nested = prepareInit(model, callOnceTarget(node), index, depth + 1); !nested) {
            inits_.erase(index);
            return Status(nested.code(), where + ": operator CALL_ONCE at node " + std::to_string(node.index) + ": " +
                                                 nested.message());
        }
    }
    init->allocate();
    inits_[index] = std::move(init);
    return {};
}

int32_t InterpreterResources::handleId(const std::string& container, const std::string& sharedName) const {
    const auto found = ids_.find({container, sharedName});
    return found != ids_.end() ? found->second : -1;
}

const ResourceVariable* InterpreterResources::variable(int32_t id) const {
    const auto found = variables_.find(id);
    return found != variables_.end() ? &found->second : nullptr;
}

Hashtable* InterpreterResources::hashtable(int32_t id) {
    const auto found = hashtables_.find(id);
    return found != hashtables_.end() ? &found->second : nullptr;
}

void InterpreterResources::createHashtable(int32_t id, ElementType key, ElementType value) {
    if (hashtables_.count(id) != 0) return;
    Hashtable& table = hashtables_[id];
    table.key = key;
    table.value = value;
}

Status InterpreterResources::callOnce(int32_t index) {
    if (initialized_.count(index) != 0) return {};
    const auto found = inits_.find(index);
    if (found == inits_.end() || found->second == nullptr) {
        return opFailed("init subgraph " + std::to_string(index) + " was not prepared");
    }
    NNEMU_RETURN_IF_ERROR(found->second->run());
    initialized_.insert(index);
    return {};
}

void addVariableKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_VAR_HANDLE, {prepareVarHandle, runVarHandle});
    table.add(fb::BuiltinOperator_READ_VARIABLE, {prepareReadVariable, runReadVariable});
    table.add(fb::BuiltinOperator_ASSIGN_VARIABLE, {prepareAssignVariable, runAssignVariable});
    table.add(fb::BuiltinOperator_CALL_ONCE, {prepareCallOnce, runCallOnce});
}

}  // namespace nnemu::tflite
