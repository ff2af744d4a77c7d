// COS on float32, as TFLite's kernel computes it (the float overload of std::cos per element).
// NNAPI has no cosine operation, so it always runs here (real TFLite 2.21 delegates it: not nnemu).
#include <cmath>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::cos {

bool prepareCos(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::FLOAT32}, "input")) return false;
    if (!call.expectType(call.out(0), {ElementType::FLOAT32}, "output")) return false;
    return call.expectOutputShape(0, call.in(0).shape());
}

bool runCos(const CpuKernelCall& call) {
    if (!prepareCos(call)) return false;
    const size_t count = call.in(0).count();
    for (size_t i = 0; i < count; ++i) call.out(0).set<float>(i, std::cos(call.in(0).at<float>(i)));
    return true;
}

}  // namespace kernels::cos

}  // namespace nnemu::tflite
