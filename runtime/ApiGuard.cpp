#include "ApiGuard.h"

#include "nnemu/base/Log.h"

namespace nnemu::runtime {

void reportOutOfMemory(const char* function) noexcept {
    try {
        NN_LOG(ERROR) << function << ": out of memory";
    } catch (...) {
        // Not even the log line could be allocated: the result code says it.
    }
}

}  // namespace nnemu::runtime
