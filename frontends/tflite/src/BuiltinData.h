// The parameters TensorFlow Lite gives a builtin operator's kernels and delegates (its
// builtin_data: the builtin_op_data.h structs declared in nnemu/delegate/TfLiteAbi.h), made
// from the operator's flatbuffer options once, when a .tflite file is read (Model.cpp). The
// lowering and the CPU kernels read these structs whichever reader made the Model; a delegate's
// host hands over its own (ContextReader.cpp), and external delegates hosted by the tools get
// these.
#pragma once

#include <cstdint>
#include <memory>

#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::tflite {

struct FreeBuiltinData {
    void operator()(void* data) const;
};
using BuiltinData = std::unique_ptr<void, FreeBuiltinData>;

// nullptr for an operator without parameters the front end reads; otherwise the struct of its
// code, zeroed where the file has no options (what TFLite's interpreter gives its kernels).
BuiltinData builtinDataOf(int32_t builtinCode, const fb::Operator& op);

}  // namespace nnemu::tflite
