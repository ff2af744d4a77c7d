// One function per driver/synap/lowering/<Family>.cpp: the lowering rules that file defines.
// driver/synap/Lowering.cpp lists them all (kLoweringFamilies); a new family file adds its line
// here and there.
#pragma once

#include <span>

#include "../Lowering.h"

namespace nnemu::synap {

std::span<const LoweringRule> activationLowerings();
std::span<const LoweringRule> argMinMaxLowerings();
std::span<const LoweringRule> convolutionLowerings();
std::span<const LoweringRule> elementwiseLowerings();
std::span<const LoweringRule> poolingLowerings();
std::span<const LoweringRule> shapeLowerings();
std::span<const LoweringRule> transposeConvolutionLowerings();

}  // namespace nnemu::synap
