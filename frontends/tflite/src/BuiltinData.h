// The builtin_data a TensorFlow Lite interpreter gives a node (builtin_op_data.h structs), made
// from the operator's flatbuffer options, for delegates hosted through the C ABI. Operators
// whose options are not converted get none (nullptr), which a delegate treats as unknown.
#pragma once

#include <memory>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

struct FreeBuiltinData {
    void operator()(void* data) const;
};
using BuiltinData = std::unique_ptr<void, FreeBuiltinData>;

BuiltinData builtinDataOf(const Node& node);

}  // namespace nnemu::tflite
