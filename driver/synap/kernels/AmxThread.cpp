// The calling thread's AMX tile state, taken before a kernel needs it (Isa.h prepareAmxThread).
#include <immintrin.h>

#include "AmxTiles.h"
#include "Isa.h"

namespace nnemu::synap::kernels {

void prepareAmxThread() {
    thread_local bool prepared = false;  // Linux keeps the larger state for the thread's life
    if (prepared || !(amxInt8Usable() || amxBf16Usable())) return;
    prepared = true;
    amx::TileConfig config;  // one tile of one row of 4 bytes: any valid configuration will do
    config.rows[0] = 1;
    config.columnBytes[0] = 4;
    amx::memoryBarrier();  // (GCC 12's _tile_loadconfig tells the compiler it reads 8 bytes)
    _tile_loadconfig(&config);
    _tile_zero(0);  // the first use of the tile data: the trap that enlarges the thread's state
    _tile_release();
    if (amxInt8Usable()) prepareAmxGemmScratch();
}

}  // namespace nnemu::synap::kernels
