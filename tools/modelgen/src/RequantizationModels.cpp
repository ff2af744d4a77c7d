// multiplier_above_one: a classifier whose CONV_2D and FULLY_CONNECTED layers requantize with
// multipliers above 1 (input scale x weights scale > output scale, allowed since NNAPI feature
// level 29), made the way trained models come by them: between ReLU6 layers, whose tensors keep
// the fixed range [0, 6], the multiplier equals the weights' scale, and units that died in
// training (always 0 after their ReLU) keep large weights in the next layer that stretch that
// scale to about 2. Such a layer doubles its integer sums, so its inputs must be small in
// quantized steps: a projection with an ordinary multiplier (far below 1) sits between the two.
#include <cmath>

#include "Networks.h"

namespace nnemu::modelgen {
namespace {

const fb::ActivationFunctionType kRelu6 = fb::ActivationFunctionType_RELU6;
constexpr float kDeadUnitWeight = 255.0f;
constexpr int32_t kHiddenUnits = 16;
constexpr int32_t kLiveUnits = 14;  // the last two units of each hidden layer are dead

// The weights and bias of the layer just added.
std::vector<float>& lastWeights(NetworkGraph& g) { return g.tensors[g.operators.back().inputs[1]].values; }
std::vector<float>& lastBias(NetworkGraph& g) { return g.tensors[g.operators.back().inputs[2]].values; }

// Gives the last layer's weights that read a dead input (a position >= kLiveUnits along the
// innermost axis) alternating large values.
void stretchDeadInputs(NetworkGraph& g) {
    std::vector<float>& weights = lastWeights(g);
    for (size_t i = 0; i < weights.size(); ++i) {
        if (static_cast<int32_t>(i % kHiddenUnits) >= kLiveUnits) {
            weights[i] = i % 2 == 0 ? kDeadUnitWeight : -kDeadUnitWeight;
        }
    }
}

// Kills the last layer's units from kLiveUnits on: a bias below any sum their weights can reach
// from inputs bounded by `inputBound`, so that the ReLU always gives 0.
void killUnits(NetworkGraph& g, float inputBound) {
    const std::vector<float>& weights = lastWeights(g);
    std::vector<float>& bias = lastBias(g);
    const size_t fanIn = weights.size() / bias.size();
    for (size_t unit = kLiveUnits; unit < bias.size(); ++unit) {
        float reach = 0;
        for (size_t i = 0; i < fanIn; ++i) reach += std::fabs(weights[unit * fanIn + i]) * inputBound;
        bias[unit] = -reach - 1.0f;
    }
}

}  // namespace

void buildMultiplierAboveOne(NetworkGraph& g, Flavor) {
    // [1,8,8,3] -> stem 8x8 VALID -> [1,1,1,16] -> expand 1x1 (multiplier 2) -> project 1x1
    // -> scores (multiplier 2) [1,10].
    const int32_t input = g.addInput("input", {1, 8, 8, 3});
    int32_t x = g.conv2d("stem", input, kHiddenUnits, 8, 1, kRelu6, 1.0f, fb::Padding_VALID);
    killUnits(g, 1.0f);
    x = g.conv2d("expand", x, kHiddenUnits, 1, 1, kRelu6, 8.0f);
    stretchDeadInputs(g);
    x = g.conv2d("project", x, kHiddenUnits, 1, 1, kRelu6, 0.2f);
    killUnits(g, 6.0f);
    x = g.fullyConnected("scores", x, 10, kRelu6, 3.0f);
    stretchDeadInputs(g);
    g.outputs = {x};
}

}  // namespace nnemu::modelgen
