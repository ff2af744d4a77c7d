// Calibration: runs the float version of a network on deterministic inputs through nnemu's own
// TFLite interpreter (nnapi-reference) and records every activation's range and spread, from
// which the quantized flavors take their parameters.
#pragma once

#include <string>
#include <vector>

#include "NetworkGraph.h"
#include "TfliteEmitter.h"

#include "nnemu/base/Status.h"

namespace nnemu::modelgen {

struct TensorStatistics {
    Range range;
    float stddev = 0;
};

// One entry per graph tensor (zeros for constants). The failure of the float model when it does
// not run.
Status calibrate(const NetworkGraph& graph, std::vector<TensorStatistics>* statistics);

// Scales the weights and bias of every tensor with a targetStddev so that its spread matches,
// and its recorded statistics with them.
void applyTargetSpreads(NetworkGraph& graph, std::vector<TensorStatistics>& statistics);

}  // namespace nnemu::modelgen
