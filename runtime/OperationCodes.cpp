// The NDK's OperationCode enum (<android/NeuralNetworks.h>, written out as the NDK has it) against
// the HAL's table of operations (OperationTable.def): every row is an NDK constant of the same
// name and value. tests/unit/OperationTableTest.cpp checks the other direction (every NDK constant
// a row) and the feature-level comments, by reading the header.
#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksOEM.h>

#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

#define NN_OPERATION(name, code, featureLevel)                                          \
    static_assert(ANEURALNETWORKS_##name == (code) &&                                   \
                          static_cast<int32_t>(hal::OperationType::name) == (code),     \
                  "ANEURALNETWORKS_" #name " differs from its row in OperationTable.def");
#include "nnemu/hal/OperationTable.def"
#undef NN_OPERATION

static_assert(ANEURALNETWORKS_OEM_OPERATION == static_cast<int32_t>(hal::OperationType::OEM_OPERATION));

}  // namespace nnemu::runtime
