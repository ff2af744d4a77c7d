// Static hashtables (issue 24), as TFLite's hashtable*.cc over its StaticHashtable: HASHTABLE
// makes the table its options name (table_id, int64 -> string or string -> int64) and outputs
// its id, HASHTABLE_IMPORT fills it once (later imports are ignored, the first of duplicate keys
// wins), HASHTABLE_FIND looks keys up (the default value's first element for a missing key),
// HASHTABLE_SIZE counts its entries. The tables live in the interpreter's InterpreterResources
// (Resources.h), kept across invokes.
#include "../StringTensor.h"
#include "CpuKernelUnit.h"
#include "Resources.h"

namespace nnemu::tflite {

namespace {

ElementType elementTypeOf(TfLiteType type) {
    if (type == kTfLiteInt64) return ElementType::INT64;
    return type == kTfLiteString ? ElementType::STRING : ElementType::OTHER;
}

// The pairs TFLite's hashtable kernels accept.
bool supportedPair(ElementType key, ElementType value) {
    return (key == ElementType::INT64 && value == ElementType::STRING) ||
           (key == ElementType::STRING && value == ElementType::INT64);
}

bool expectPair(const CpuKernelCall& call, ElementType key, ElementType value) {
    if (supportedPair(key, value)) return true;
    return call.fail(std::string("keys of type ") + elementTypeName(key) + " and values of type " + elementTypeName(value) +
                     " are not supported (int64 -> string or string -> int64)");
}

// The table id input: RESOURCE of shape [1], as TFLite requires.
bool expectTableId(const CpuKernelCall& call) {
    if (!call.expectType(call.in(0), {ElementType::RESOURCE}, "table id")) return false;
    if (call.in(0).shape() != std::vector<int32_t>{1}) {
        return call.fail("table id must have shape [1], not " + shapeText(call.in(0).shape()));
    }
    return true;
}

// The table input 0 names, with the key and value types of `keys` and `values`.
Hashtable* tableOf(const CpuKernelCall& call, ElementType keys, ElementType values) {
    const int32_t id = call.in(0).at<int32_t>(0);
    Hashtable* table = call.resources != nullptr ? call.resources->hashtable(id) : nullptr;
    if (table == nullptr) {
        call.fail("hashtable " + std::to_string(id) + " does not exist (no HASHTABLE made it)");
        return nullptr;
    }
    if (table->key != keys || table->value != values) {
        call.fail(std::string("hashtable ") + std::to_string(id) + " maps " + elementTypeName(table->key) + " to " +
                  elementTypeName(table->value) + ", not " + elementTypeName(keys) + " to " + elementTypeName(values));
        return nullptr;
    }
    return table;
}

// A STRING operand's strings, checked; false (after fail) when its buffer is malformed.
bool stringsOf(const CpuKernelCall& call, const CpuOperand& operand, const char* what,
               std::vector<std::string_view>* strings) {
    Result<std::vector<std::string_view>> read = readStrings(operand.data, operand.tensor->byteSize(), operand.count());
    if (!read) return call.fail(std::string(what) + ": " + read.message());
    *strings = std::move(read).value();
    return true;
}

// ---- HASHTABLE: no inputs, the table id as its output.
bool prepareHashtable(const CpuKernelCall& call) {
    if (!call.expectCounts(0, 0, 1)) return false;
    const auto* params = call.params<TfLiteHashtableParams>();
    if (params == nullptr) return call.fail("has no HashtableOptions");
    if (!expectPair(call, elementTypeOf(params->key_dtype), elementTypeOf(params->value_dtype))) return false;
    if (!call.expectType(call.out(0), {ElementType::RESOURCE}, "output")) return false;
    if (call.out(0).count() != 1) return call.fail("output must hold one table id, not " + shapeText(call.out(0).shape()));
    return true;
}

bool runHashtable(const CpuKernelCall& call) {
    const auto* params = call.params<TfLiteHashtableParams>();
    if (call.resources == nullptr) return call.fail("no resources in this interpreter");
    if (!call.resizeOutput(0, {1})) return false;
    call.out(0).set<int32_t>(0, params->table_id);
    call.resources->createHashtable(params->table_id, elementTypeOf(params->key_dtype), elementTypeOf(params->value_dtype));
    return true;
}

// ---- HASHTABLE_IMPORT: table id, keys, values; no outputs.
bool prepareHashtableImport(const CpuKernelCall& call) {
    if (!call.expectCounts(3, 3, 0) || !expectTableId(call)) return false;
    if (!expectPair(call, call.in(1).type(), call.in(2).type())) return false;
    if (call.in(1).shape() != call.in(2).shape()) {
        return call.fail("keys " + shapeText(call.in(1).shape()) + " and values " + shapeText(call.in(2).shape()) +
                         " differ in shape");
    }
    return true;
}

bool runHashtableImport(const CpuKernelCall& call) {
    const CpuOperand& keys = call.in(1);
    const CpuOperand& values = call.in(2);
    Hashtable* table = tableOf(call, keys.type(), values.type());
    if (table == nullptr) return false;
    if (table->initialized) return true;
    std::vector<std::string_view> strings;
    const bool stringKeys = keys.type() == ElementType::STRING;
    if (!stringsOf(call, stringKeys ? keys : values, stringKeys ? "keys" : "values", &strings)) return false;
    for (size_t i = 0; i < strings.size(); ++i) {
        if (stringKeys) {
            table->stringToInt.emplace(std::string(strings[i]), values.at<int64_t>(i));
        } else {
            table->intToString.emplace(keys.at<int64_t>(i), std::string(strings[i]));
        }
    }
    table->initialized = true;
    return true;
}

// ---- HASHTABLE_FIND: table id, keys, default value; the values, in the keys' shape.
bool prepareHashtableFind(const CpuKernelCall& call) {
    if (!call.expectCounts(3, 3, 1) || !expectTableId(call)) return false;
    if (call.in(2).type() != call.out(0).type()) {
        return call.fail(std::string("default value of type ") + elementTypeName(call.in(2).type()) +
                         " differs from the output's " + elementTypeName(call.out(0).type()));
    }
    if (!expectPair(call, call.in(1).type(), call.out(0).type())) return false;
    if (call.in(2).count() == 0) return call.fail("default value is empty");
    // A string output's bytes are only known at invoke; an int64 one has the keys' shape.
    return call.out(0).type() == ElementType::STRING || call.expectOutputShape(0, call.in(1).shape());
}

bool runHashtableFind(const CpuKernelCall& call) {
    const CpuOperand& keys = call.in(1);
    const CpuOperand& fallback = call.in(2);
    Hashtable* table = tableOf(call, keys.type(), call.out(0).type());
    if (table == nullptr) return false;
    if (!table->initialized) return call.fail("hashtable must be initialized (HASHTABLE_IMPORT) before it is used");
    if (keys.type() == ElementType::STRING) {
        std::vector<std::string_view> strings;
        if (!stringsOf(call, keys, "keys", &strings) || !call.resizeOutput(0, keys.shape())) return false;
        const int64_t missing = fallback.at<int64_t>(0);
        for (size_t i = 0; i < strings.size(); ++i) {
            const auto found = table->stringToInt.find(std::string(strings[i]));
            call.out(0).set<int64_t>(i, found != table->stringToInt.end() ? found->second : missing);
        }
        return true;
    }
    std::vector<std::string_view> defaults;
    if (!stringsOf(call, fallback, "default value", &defaults)) return false;
    std::vector<std::string_view> found(keys.count());
    for (size_t i = 0; i < found.size(); ++i) {
        const auto entry = table->intToString.find(keys.at<int64_t>(i));
        found[i] = entry != table->intToString.end() ? std::string_view(entry->second) : defaults[0];
    }
    return call.writeStrings(0, keys.shape(), found);
}

// ---- HASHTABLE_SIZE: table id; its entry count as int64 [1].
bool prepareHashtableSize(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1) || !expectTableId(call)) return false;
    if (!call.expectType(call.out(0), {ElementType::INT64}, "output")) return false;
    return call.expectOutputShape(0, {1});
}

bool runHashtableSize(const CpuKernelCall& call) {
    const int32_t id = call.in(0).at<int32_t>(0);
    const Hashtable* table = call.resources != nullptr ? call.resources->hashtable(id) : nullptr;
    if (table == nullptr) return call.fail("hashtable " + std::to_string(id) + " does not exist (no HASHTABLE made it)");
    if (!call.resizeOutput(0, {1})) return false;
    call.out(0).set<int64_t>(0, static_cast<int64_t>(table->size()));
    return true;
}

}  // namespace

void addHashtableKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_HASHTABLE, {prepareHashtable, runHashtable});
    table.add(fb::BuiltinOperator_HASHTABLE_IMPORT, {prepareHashtableImport, runHashtableImport});
    table.add(fb::BuiltinOperator_HASHTABLE_FIND, {prepareHashtableFind, runHashtableFind});
    table.add(fb::BuiltinOperator_HASHTABLE_SIZE, {prepareHashtableSize, runHashtableSize});
}

}  // namespace nnemu::tflite
