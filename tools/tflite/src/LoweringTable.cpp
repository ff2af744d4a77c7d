// The table of lowerings: every operator family adds its own.
#include "Lowering.h"

namespace nnemu::tflite {

void LoweringTable::add(fb::BuiltinOperator code, LoweringFunction function) {
    const auto index = static_cast<size_t>(code);
    if (functions_.size() <= index) functions_.resize(index + 1, nullptr);
    functions_[index] = function;
}

LoweringFunction LoweringTable::find(int32_t builtinCode) const {
    if (builtinCode < 0 || static_cast<size_t>(builtinCode) >= functions_.size()) return nullptr;
    return functions_[static_cast<size_t>(builtinCode)];
}

const LoweringTable& LoweringTable::get() {
    static const LoweringTable table = [] {
        LoweringTable t;
        addConvolutionLowerings(t);
        addFullyConnectedLowerings(t);
        addPoolingLowerings(t);
        addElementwiseLowerings(t);
        addNormalizationLowerings(t);
        addReshapingLowerings(t);
        addReductionLowerings(t);
        addResizeLowerings(t);
        addQuantizationLowerings(t);
        return t;
    }();
    return table;
}

}  // namespace nnemu::tflite
