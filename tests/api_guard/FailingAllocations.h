// Allocation failures on demand: this test program replaces the global operator new, so that the
// allocation numbered `n` (counted from arming, on the arming thread only) throws std::bad_alloc,
// wherever it happens: in the test, the runtime, a driver or the standard library.
#pragma once

#include <cstdint>

namespace nnemu::apitest {

// Arms the next allocations on this thread: allocation `n` (0 for the next one) fails, once.
void failAllocation(int64_t n);
// Disarms; whether the armed failure happened. `left`: how many allocations were still to go
// before it (when it did not happen), to arm the next call with.
bool disarmAllocationFailure(int64_t* left = nullptr);

}  // namespace nnemu::apitest
