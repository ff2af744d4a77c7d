#include "OwnLayerSupport.h"

#include "OwnKernelLayers.h"
#include "SynapLog.h"

namespace nnemu::synap {
namespace own {

// Stored weights that failed their check (the program may come from a file): never read.
void damaged(const npu::Layer& layer) {
    SYNAP_LOG(WARNING) << "the program's packed weights of layer " << (layer.name() ? layer.name()->c_str() : "?")
                       << " are damaged; packing them again";
}

}  // namespace own

bool runOwnLayer(const NativeLayer& layer) {
    auto* state = static_cast<own::OwnLayer*>(layer.state);
    return state != nullptr && state->run(layer);
}

bool runFlipSignStage(const NativeLayer& layer) {
    return layer.state != nullptr ? runOwnLayer(layer) : runFlipSign(layer);
}

}  // namespace nnemu::synap
