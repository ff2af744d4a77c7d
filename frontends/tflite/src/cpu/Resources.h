// What an interpreter keeps across invokes for TFLite's resource variables (issue 24), as
// TFLite's Subgraph keeps its resource_ids, resources and initialization status map, shared by
// all subgraphs of one interpreter: the id of each (container, shared_name) VAR_HANDLE names,
// each variable's value (type, shape, bytes: ASSIGN_VARIABLE replaces all three), and the init
// subgraphs CALL_ONCE has run. Kernels reach it through CpuKernelCall::resources.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

struct ResourceVariable {
    ElementType type = ElementType::OTHER;
    std::vector<int32_t> shape;
    std::vector<uint8_t> bytes;
};

// A TFLite static hashtable (HASHTABLE, Hashtable.cpp): int64 -> string or string -> int64, filled
// once by the first HASHTABLE_IMPORT (later imports are ignored, as TFLite ignores them).
struct Hashtable {
    ElementType key = ElementType::OTHER, value = ElementType::OTHER;
    bool initialized = false;
    std::unordered_map<int64_t, std::string> intToString;
    std::unordered_map<std::string, int64_t> stringToInt;
    size_t size() const { return key == ElementType::INT64 ? intToString.size() : stringToInt.size(); }
};

class InitSubgraph;   // one CALL_ONCE target, ready to run (Variables.cpp)

class InterpreterResources {
public:
    // Numbers every VAR_HANDLE of every subgraph in model order (TFLite does it as it adds the
    // nodes, subgraph by subgraph) and prepares the init subgraph of every CALL_ONCE of the main
    // graph, refusing what TFLite's Prepare refuses.
    static Result<std::unique_ptr<InterpreterResources>> create(const Model& model);
    ~InterpreterResources();

    // The id of a variable's names; -1 when no VAR_HANDLE names it.
    int32_t handleId(const std::string& container, const std::string& sharedName) const;
    // nullptr until the variable is assigned.
    const ResourceVariable* variable(int32_t id) const;
    void assign(int32_t id, ResourceVariable value) { variables_[id] = std::move(value); }
    // The table HASHTABLE made under `id` (its table_id), nullptr before; createHashtable keeps an
    // existing one.
    Hashtable* hashtable(int32_t id);
    void createHashtable(int32_t id, ElementType key, ElementType value);
    // Runs init subgraph `index` unless this interpreter has run it already.
    Status callOnce(int32_t index);

    InterpreterResources(const InterpreterResources&) = delete;
    InterpreterResources& operator=(const InterpreterResources&) = delete;

private:
    InterpreterResources() = default;
    Status prepareInit(const Model& model, int32_t index, int32_t caller, size_t depth);

    std::map<std::pair<std::string, std::string>, int32_t> ids_;
    std::map<int32_t, ResourceVariable> variables_;
    std::map<int32_t, std::unique_ptr<InitSubgraph>> inits_;
    std::set<int32_t> initialized_;
    std::map<int32_t, Hashtable> hashtables_;
};

}  // namespace nnemu::tflite
