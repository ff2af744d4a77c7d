// Builders of the generated networks, one function per architecture or small model family.
// Each builds the network for a flavor; the flavor changes types and edges, never the weights.
#pragma once

#include <string>

#include "NetworkGraph.h"
#include "TfliteEmitter.h"

namespace nnemu::modelgen {

// int8 flavor: integerOnly gives int8 input and output (TF2 full-integer quantization); else
// uint8 QUANTIZE edges, as TF2 converters write by default for uint8 I/O.
NetworkGraph buildMobileNetV1(float alpha, int32_t resolution, Flavor flavor, bool integerOnly = false);
NetworkGraph buildMobileNetV2(float alpha, int32_t resolution, Flavor flavor, bool integerOnly = false);
// The SSD-style detector, with TFLite_Detection_PostProcess or ending at its raw box encodings
// and class scores; the segmenter, ending in ARG_MAX or at its logits (VisionModels.cpp).
NetworkGraph buildSsdDetector(bool postProcess);
NetworkGraph buildSegmenter(bool argMax);
// A small model by its base name (e.g. "conv", "add", "mixed_resize_nearest"); false if unknown.
bool buildSmallModel(const std::string& base, Flavor flavor, NetworkGraph* graph);
// Base names of the small models and the flavors each exists in.
struct SmallModelKind {
    const char* base;
    const char* summary;
    bool floatFlavor, uint8Flavor, int8Flavor;
};
const std::vector<SmallModelKind>& smallModelKinds();

// A seed from a name, so that the flavors of one architecture share their weights.
uint64_t seedOf(const std::string& name);

// multiplier_above_one: a classifier whose CONV_2D and FULLY_CONNECTED layers requantize with
// multipliers above 1 (RequantizationModels.cpp).
void buildMultiplierAboveOne(NetworkGraph& g, Flavor flavor);

// Blocks of today's common models (ModernModels.cpp): MobileNetV3 (HARD_SWISH, squeeze-excite),
// a YOLO-style head (LEAKY_RELU, RESIZE_NEAREST_NEIGHBOR, CONCATENATION, SPLIT_V), a transformer
// block (layer norm, BATCH_MATMUL attention, GELU).
void buildMobileNetV3Block(NetworkGraph& g, Flavor flavor);
void buildYoloHead(NetworkGraph& g, Flavor flavor);
void buildTransformerBlock(NetworkGraph& g, Flavor flavor);

}  // namespace nnemu::modelgen
