// The lane kernels of FloatGemmEigen.h built for AVX-512 (one register per 16 lanes; chosen at
// run time when the CPU has AVX-512F). -ffp-contract=off keeps the products and sums apart.
#include "FloatGemmEigenTile.h"

namespace nnemu::tflite::kernels::floatgemm {

TileKernel tileAvx512() { return tile; }
GemvKernel gemvAvx512() { return gemv; }

}  // namespace nnemu::tflite::kernels::floatgemm
