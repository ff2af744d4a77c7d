#include "XnnpackForms.h"

#include <algorithm>

#include "TfliteKernelForms.h"
#include "cpu/CpuKernel.h"
#include "nnemu/base/Log.h"

namespace nnemu::tflite {
namespace {

// A builtin TFLite 2.21's XNNPACK delegate claims, in its 8-bit forms and (floatWhy) its float32
// ones (the float kernels: cpu/XnnpackFloat*.cpp); for the 8-bit ones (xnnpack_delegate.cc's Visit*Node checks:
// uint8 or int8 activations, for the convolutions constant weights of the same type, uint8 per
// tensor, int8 per tensor or per output channel with zero point 0, a constant int32 bias) and
// how its arithmetic differs from the builtin kernel's. What the kernel's prepare refuses under
// XNNPACK's arithmetic (other forms, scale ratios XNNPACK rejects) stays on the builtin path.
struct XnnpackForm {
    fb::BuiltinOperator code;
    bool constantWeights;   // input 1 (and the bias) must be constant, as the delegate requires
    const char* why;
    const char* floatWhy;   // the float32 form's difference; nullptr: the float form keeps the builtin kernel
};

constexpr const char* kFloatGemmWhy =
        "XNNPACK starts each output from its bias and adds the products with fused multiply-adds in depth order; "
        "TFLite's builtin kernel sums in Eigen's blocked order, then adds the bias";

constexpr const char* kConvolutionWhy =
        "XNNPACK requantizes in float: the sum times input scale x weight scale / output scale, rounded to "
        "nearest even; TFLite's builtin kernel multiplies by a Q31 fixed-point multiplier";

const std::vector<XnnpackForm>& xnnpackForms() {
    static const std::vector<XnnpackForm> forms = {
            {fb::BuiltinOperator_CONV_2D, true, kConvolutionWhy, kFloatGemmWhy},
            {fb::BuiltinOperator_DEPTHWISE_CONV_2D, true, kConvolutionWhy,
             "XNNPACK adds the taps with fused multiply-adds, columns outer and rows inner; TFLite's builtin kernel "
             "rounds each product, row by row"},
            {fb::BuiltinOperator_FULLY_CONNECTED, true, kConvolutionWhy, kFloatGemmWhy},
            {fb::BuiltinOperator_ADD, false,
             "XNNPACK scales each input by a 20-bit multiplier of its scale over the output's and shifts once; "
             "TFLite's builtin kernel rescales both through Q31 multipliers twice", nullptr},
            {fb::BuiltinOperator_MUL, false,
             "XNNPACK requantizes the product in float (in1 x in2 / out scale), rounded to nearest even; TFLite's "
             "builtin kernel through a Q31 multiplier", nullptr},
            {fb::BuiltinOperator_LEAKY_RELU, false,
             "XNNPACK multiplies the offset value by in_scale / out_scale (or that times alpha) rounded to 8 "
             "fraction bits and rounds half up; TFLite's builtin kernel through Q31 multipliers", nullptr},
            {fb::BuiltinOperator_AVERAGE_POOL_2D, false, nullptr,
             "XNNPACK sums each window in passes of 9 taps (columns outer) in a fixed tree and multiplies by "
             "1 / count; TFLite's builtin kernel adds the taps row by row and divides"},
            {fb::BuiltinOperator_SOFTMAX, false, nullptr,
             "XNNPACK evaluates its own exp polynomial, sums in 16 lanes with two accumulators and multiplies by 1 / sum; TFLite's "
             "builtin kernel uses Eigen's exp and sum"},
            {fb::BuiltinOperator_MEAN, true,
             "XNNPACK scales the offset sum in float by (scale_in / scale_out) / count and rounds to nearest even; "
             "TFLite's builtin kernel through fixed-point multipliers",
             "XNNPACK sums the rows from 0 in memory order and multiplies by 1 / count; TFLite's builtin kernel "
             "divides the sum"},
    };
    return forms;
}

const XnnpackForm* formOf(const Model& model, const Node& node) {
    if (node.inputs.empty() || node.inputs[0] < 0 || node.outputs.empty() || node.outputs[0] < 0) return nullptr;
    const ElementType type = model.tensors()[node.inputs[0]].type;
    const bool floatForm = type == ElementType::FLOAT32;
    if (type != ElementType::UINT8 && type != ElementType::INT8 && !floatForm) return nullptr;
    for (const XnnpackForm& form : xnnpackForms()) {
        if (static_cast<int32_t>(form.code) != node.builtinCode) continue;
        if (floatForm ? form.floatWhy == nullptr : form.why == nullptr) return nullptr;
        if (!form.constantWeights) return &form;
        for (size_t i = 1; i < node.inputs.size(); ++i) {
            if (node.inputs[i] >= 0 && !model.tensors()[node.inputs[i]].isConstant) return nullptr;
        }
        if (node.inputs.size() < 2 || node.inputs[1] < 0) return nullptr;
        const Tensor& weights = model.tensors()[node.inputs[1]];
        // The hybrid forms (float32 activations, 8-bit weights) keep the builtin kernels.
        if (floatForm && (weights.type == ElementType::INT8 || weights.type == ElementType::UINT8)) return nullptr;
        // uint8 weights quantized along another dimension than 0 (one scale, a converter's
        // leftover quantized_dimension): the delegate leaves the node (tflite_run --xnnpack=1
        // takes 0 of 1 such DEPTHWISE_CONV_2D).
        if (weights.type == ElementType::UINT8 && weights.quantizedDimension != 0) return nullptr;
        return &form;
    }
    return nullptr;
}

}  // namespace

std::vector<bool> runXnnpackFormsOnCpuKernels(const Model& model, const std::vector<bool>& delegated, NnapiGraph& graph) {
    std::vector<bool> claimed(model.nodes().size(), false);
    for (const Node& node : model.nodes()) {
        if (delegated[node.index]) continue;
        const XnnpackForm* form = formOf(model, node);
        if (form == nullptr || CpuKernelTable::get().find(node) == nullptr) continue;
        if (!prepareCpuKernel(model.subgraphs()[0], node, QuantizedArithmetic::Xnnpack).isOk()) continue;
        NN_LOG(INFO) << "nnemu tflite: operator " << node.opName << " at node " << node.index
                     << " runs on the tools' CPU kernel, as TFLite's XNNPACK delegate ("
                     << (model.tensors()[node.inputs[0]].type == ElementType::FLOAT32 ? form->floatWhy : form->why) << ")";
        if (!graph.cpuKernel[node.index]) moveNodeToCpuKernel(node, graph);
        claimed[node.index] = true;
    }
    return claimed;
}

}  // namespace nnemu::tflite
