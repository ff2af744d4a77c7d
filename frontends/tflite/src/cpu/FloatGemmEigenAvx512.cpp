// The lane kernels of FloatGemmEigen.h built for AVX-512 (one register per 16 lanes, 8 pixels per
// tile; chosen at run time when the CPU has AVX-512F). -ffp-contract=off keeps the products and
// sums apart.
#include "FloatGemmEigenTile.h"

namespace nnemu::tflite::kernels::floatgemm {

LaneKernels avx512Kernels() { return {tile<8>, gemv, 8}; }

}  // namespace nnemu::tflite::kernels::floatgemm
