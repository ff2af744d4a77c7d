#include "Compilation.h"

#include <android/NeuralNetworks.h>

#include <algorithm>

#include "nnemu/hal/Log.h"

namespace nnemu::runtime {

int Compilation::setPreference(int32_t preference) {
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    // As in Android: only values >= 3 are refused here; a negative one fails at prepare.
    if (preference >= 3) {
        NN_LOG(ERROR) << "ANeuralNetworksCompilation_setPreference: invalid preference " << preference;
        return ANEURALNETWORKS_BAD_DATA;
    }
    preference_ = preference;
    return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::setCaching(const char* cacheDir, const uint8_t* token) {
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    cacheDir_ = cacheDir;
    if (cacheDir_.empty() || cacheDir_.back() != '/') cacheDir_ += '/';
    token_.assign(token, token + ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN);
    return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::finish() {
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    finished_ = true;
    if (preference_ < 0) {
        NN_LOG(ERROR) << "ANeuralNetworksCompilation_finish: invalid preference " << preference_;
        return ANEURALNETWORKS_OP_FAILED;
    }
    options_.preference = static_cast<hal::ExecutionPreference>(preference_);
    options_.allowFallback = !explicitDevices_;
    if (!token_.empty()) {
        options_.caching.dir = cacheDir_;
        options_.caching.token.emplace();
        std::copy(token_.begin(), token_.end(), options_.caching.token->begin());
    }
    return ExecutionPlan::create(*model_, devices_, options_, &plan_);
}

}  // namespace nnemu::runtime
