// Layer builders for the operators of today's common models (issue 24): LEAKY_RELU and SPLIT_V
// (YOLO-style detectors), GELU and BATCH_MATMUL (transformers). HARD_SWISH, RSQRT and
// SQUARED_DIFFERENCE need no options and use unary() / binary().
#include <numeric>

#include "NetworkGraph.h"

namespace nnemu::modelgen {

int32_t NetworkGraph::elementwise(fb::BuiltinOperator code, const std::string& name, int32_t input,
                                  const NetOptions& options) {
    const int32_t output = addActivation(name, shapeOf(input));
    addOperator(code, {input}, {output}, options);
    return output;
}

int32_t NetworkGraph::leakyRelu(const std::string& name, int32_t input, float alpha) {
    NetOptions options;
    options.alpha = alpha;
    return elementwise(fb::BuiltinOperator_LEAKY_RELU, name, input, options);
}

int32_t NetworkGraph::gelu(const std::string& name, int32_t input, bool approximate) {
    NetOptions options;
    options.approximate = approximate;
    return elementwise(fb::BuiltinOperator_GELU, name, input, options);
}

std::vector<int32_t> NetworkGraph::splitV(const std::string& name, int32_t input, std::vector<int32_t> sizes,
                                          int32_t axis) {
    const std::vector<int32_t> in = shapeOf(input);
    const int32_t known = std::accumulate(sizes.begin(), sizes.end(), 0, [](int32_t sum, int32_t s) {
        return s < 0 ? sum : sum + s;
    });
    const auto count = static_cast<int32_t>(sizes.size());
    const int32_t sizesTensor = addIndexes(name + "/size_splits", sizes, {count});
    const int32_t axisTensor = addIndexes(name + "/axis", {axis}, {});
    std::vector<int32_t> outputs;
    for (int32_t i = 0; i < count; ++i) {
        std::vector<int32_t> shape = in;
        shape[axis] = sizes[i] < 0 ? in[axis] - known : sizes[i];
        const int32_t output = addActivation(name + "/split" + std::to_string(i), shape);
        tensors[output].sameQuantizationAs = input;
        outputs.push_back(output);
    }
    NetOptions options;
    options.numSplits = count;
    addOperator(fb::BuiltinOperator_SPLIT_V, {input, sizesTensor, axisTensor}, outputs, options);
    return outputs;
}

int32_t NetworkGraph::batchMatmul(const std::string& name, int32_t a, int32_t b, bool adjY) {
    std::vector<int32_t> shape = shapeOf(a);
    const std::vector<int32_t>& other = shapeOf(b);
    shape.back() = adjY ? other[other.size() - 2] : other.back();
    const int32_t output = addActivation(name, shape);
    NetOptions options;
    options.adjY = adjY;
    addOperator(fb::BuiltinOperator_BATCH_MATMUL, {a, b}, {output}, options);
    return output;
}

}  // namespace nnemu::modelgen
