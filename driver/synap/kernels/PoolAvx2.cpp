// The pools' loops for this file's instruction set (see CMakeLists.txt).
#include "PoolLoops.h"

namespace nnemu::synap::kernels {

const PoolLoops kPoolLoopsAvx2 = {maxRows, sumPixels, averages};

}  // namespace nnemu::synap::kernels
