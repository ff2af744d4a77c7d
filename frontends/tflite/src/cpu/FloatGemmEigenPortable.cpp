// The lane kernels of FloatGemmEigen.h for any x86-64 (SSE2; the compiler splits the lanes).
#include "FloatGemmEigenTile.h"

namespace nnemu::tflite::kernels::floatgemm {

LaneKernels portableKernels() { return {tile<4>, gemv, 4}; }

}  // namespace nnemu::tflite::kernels::floatgemm
