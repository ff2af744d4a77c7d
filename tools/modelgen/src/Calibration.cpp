// Float runs through nnemu::tflite::Interpreter with every activation exposed as an output.
#include "Calibration.h"

#include <cmath>
#include <cstring>

#include "nnemu/tflite/Interpreter.h"

namespace nnemu::modelgen {

Status calibrate(const NetworkGraph& graph, std::vector<TensorStatistics>* statistics) {
    EmitOptions options;
    options.flavor = Flavor::FLOAT32;
    options.everyActivationIsOutput = true;
    options.skipCustomOperators = true;
    options.description = "nnemu_modelgen calibration";
    NNEMU_ASSIGN_OR_RETURN(const std::unique_ptr<tflite::Model> model, tflite::Model::fromBuffer(emitTflite(graph, options)));
    tflite::DelegateOptions delegate;  // plain CPU path: every node on nnapi-reference
    Result<std::unique_ptr<tflite::Interpreter>> created = tflite::Interpreter::create(*model, delegate);
    if (!created) return opFailed(created.message());
    const std::unique_ptr<tflite::Interpreter> interpreter = std::move(created).value();
    // Inputs: uniform over each input's designed range, from a fixed seed.
    DeterministicRandom random(0x5eedca1ull);
    for (size_t i = 0; i < interpreter->inputCount(); ++i) {
        const NetTensor& tensor = graph.tensors[graph.inputs[i]];
        const float low = tensor.hasFixedRange ? tensor.fixedMin : -1.0f;
        const float high = tensor.hasFixedRange ? tensor.fixedMax : 1.0f;
        const size_t count = interpreter->inputTensor(i).byteSize() / sizeof(float);
        auto* data = reinterpret_cast<float*>(interpreter->inputData(i));
        for (size_t k = 0; k < count; ++k) data[k] = random.uniform(low, high);
    }
    if (const Status ran = interpreter->invoke(); !ran) return opFailed(ran.message());
    statistics->assign(graph.tensors.size(), TensorStatistics{});
    const std::vector<int32_t>& outputs = model->outputs();
    for (size_t o = 0; o < outputs.size(); ++o) {
        if (interpreter->outputTensor(o).type != tflite::ElementType::FLOAT32) continue;   // indices, masks
        const size_t count = interpreter->outputTensor(o).byteSize() / sizeof(float);
        const auto* data = reinterpret_cast<const float*>(interpreter->outputData(o));
        TensorStatistics s;
        double sum = 0, squares = 0;
        s.range = {data[0], data[0]};
        for (size_t k = 0; k < count; ++k) {
            s.range.min = std::min(s.range.min, data[k]);
            s.range.max = std::max(s.range.max, data[k]);
            sum += data[k];
            squares += static_cast<double>(data[k]) * data[k];
        }
        const double mean = sum / static_cast<double>(count);
        s.stddev = static_cast<float>(std::sqrt(std::max(0.0, squares / static_cast<double>(count) - mean * mean)));
        if (outputs[o] < static_cast<int32_t>(statistics->size())) (*statistics)[outputs[o]] = s;
    }
    for (int32_t input : graph.inputs) {
        const NetTensor& tensor = graph.tensors[input];
        (*statistics)[input].range = {tensor.hasFixedRange ? tensor.fixedMin : -1.0f,
                                      tensor.hasFixedRange ? tensor.fixedMax : 1.0f};
    }
    return {};
}

void applyTargetSpreads(NetworkGraph& graph, std::vector<TensorStatistics>& statistics) {
    for (const NetOperator& op : graph.operators) {
        if (op.outputs.empty()) continue;
        const int32_t output = op.outputs[0];
        const float target = graph.tensors[output].targetStddev;
        if (target <= 0 || statistics[output].stddev <= 0) continue;
        if (op.code != fb::BuiltinOperator_CONV_2D && op.code != fb::BuiltinOperator_FULLY_CONNECTED &&
            op.code != fb::BuiltinOperator_TRANSPOSE_CONV) {
            continue;
        }
        // Linear in weights and bias (no fused activation on such layers): scale both. Other
        // inputs (the layer's input, a transposed convolution's shape) hold no values here.
        const float factor = target / statistics[output].stddev;
        for (size_t i = 1; i < op.inputs.size(); ++i) {
            for (float& v : graph.tensors[op.inputs[i]].values) v *= factor;
        }
        statistics[output].range.min *= factor;
        statistics[output].range.max *= factor;
        statistics[output].stddev = target;
    }
}

}  // namespace nnemu::modelgen
