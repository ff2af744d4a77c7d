// Load-time checks of the layers the NPU core hands to XNNPACK. This XNNPACK trusts the shapes it
// is given: it sizes what it writes from the inputs and parameters, and reads weights by the
// parameters, whatever the declared tensors say. A stored program is only as trustworthy as its
// bytes, so each layer's tensors must be what its parameters make them (the rules of xnnpack.h)
// before it is defined, or the program is refused.
#pragma once

#include "LayerKinds.h"

namespace nnemu::synap {

bool checkConv2DShapes(const npu::Program& program, const npu::Layer& layer);
bool checkFullyConnectedShapes(const npu::Program& program, const npu::Layer& layer);
bool checkBroadcastShapes(const npu::Program& program, const npu::Layer& layer);  // two inputs
bool checkPool2DShapes(const npu::Program& program, const npu::Layer& layer);     // average or max
bool checkGlobalPoolShapes(const npu::Program& program, const npu::Layer& layer);
bool checkSameShape(const npu::Program& program, const npu::Layer& layer);        // element-wise, one input
bool checkConvertShapes(const npu::Program& program, const npu::Layer& layer);
bool checkReshapeShapes(const npu::Program& program, const npu::Layer& layer);
bool checkConstantPadShapes(const npu::Program& program, const npu::Layer& layer);
bool checkResizeBilinearShapes(const npu::Program& program, const npu::Layer& layer);
bool checkPreluShapes(const npu::Program& program, const npu::Layer& layer);
bool checkDeconvolution2DShapes(const npu::Program& program, const npu::Layer& layer);

}  // namespace nnemu::synap
