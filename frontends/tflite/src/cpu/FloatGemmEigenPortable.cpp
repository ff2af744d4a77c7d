// The lane kernels of FloatGemmEigen.h for any x86-64 (SSE2; the compiler splits the lanes).
#include "FloatGemmEigenTile.h"

namespace nnemu::tflite::kernels::floatgemm {

TileKernel tilePortable() { return tile; }
GemvKernel gemvPortable() { return gemv; }

}  // namespace nnemu::tflite::kernels::floatgemm
