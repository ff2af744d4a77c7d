#include "nnemu/cache/CacheCounters.h"

namespace nnemu::cache {

void CacheCounters::reset() {
    for (auto* counter : {&compiles, &synapLookups, &synapHits, &synapStores, &synapDrops, &synapMapped, &programFileRefusals,
                          &programFileChecksums, &modelCacheWrites, &modelCacheLoads, &modelCacheRejects,
                          &modelCacheChecksums, &weightPackings, &weightsInPlace}) {
        counter->store(0);
    }
}

CacheCounters& cacheCounters() {
    static CacheCounters counters;
    return counters;
}

}  // namespace nnemu::cache
