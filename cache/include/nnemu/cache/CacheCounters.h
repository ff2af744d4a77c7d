// Process-wide counts of what the compilation caches did, for tests, benchmarks and logs: they
// show whether a first inference compiled, was served by the SyNAP cache, or found its program
// already loaded from an NNAPI cache file.
#pragma once

#include <atomic>
#include <cstdint>

namespace nnemu::cache {

struct CacheCounters {
    std::atomic<uint64_t> compiles{0};          // programs compiled from the model (cache misses)
    std::atomic<uint64_t> synapLookups{0};
    std::atomic<uint64_t> synapHits{0};
    std::atomic<uint64_t> synapStores{0};
    std::atomic<uint64_t> synapDrops{0};        // damaged or foreign entries dropped
    std::atomic<uint64_t> synapMapped{0};       // hits served by mapping the program's file
    std::atomic<uint64_t> programFileRefusals{0};  // program files refused (and removed)
    std::atomic<uint64_t> programFileChecksums{0};  // SyNAP program files checksummed in full when mapped
    std::atomic<uint64_t> modelCacheWrites{0};  // NNAPI model cache files written
    std::atomic<uint64_t> modelCacheLoads{0};   // networks prepared from an NNAPI model cache file
    std::atomic<uint64_t> modelCacheRejects{0}; // files that failed verification
    std::atomic<uint64_t> modelCacheChecksums{0};  // NNAPI model cache files checksummed in full when mapped
    std::atomic<uint64_t> weightPackings{0};    // layers whose weights the core packed at load
    std::atomic<uint64_t> weightsInPlace{0};    // layers that run on the program's packed weights

    void reset();
};

CacheCounters& cacheCounters();

}  // namespace nnemu::cache
