// One label_image run: load the model, apply the NNAPI "delegate" when asked, feed the picture,
// invoke (warm-up runs, then the timed loop) and print the top classes with their labels.
#pragma once

#include "LabelImageFlags.h"

namespace nnemu::labelimage {

// false after printing an ERROR line.
bool runLabelImage(const LabelImageSettings& settings);

}  // namespace nnemu::labelimage
