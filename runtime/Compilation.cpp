#include "Compilation.h"

#include <android/NeuralNetworks.h>

#include <fcntl.h>

#include <algorithm>
#include <tuple>

#include "Memory.h"
#include "nnemu/base/Log.h"
#include "nnemu/base/Trace.h"

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
    cacheFds_.reset();
    return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::setCachingFromFds(const int* modelFds, uint32_t modelCount, const int* dataFds,
                                   uint32_t dataCount, const uint8_t* token) {
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    auto fds = std::make_shared<CacheFds>();
    for (auto [source, count, target] : {std::tuple{modelFds, modelCount, &fds->model},
                                         std::tuple{dataFds, dataCount, &fds->data}}) {
        for (uint32_t i = 0; i < count; ++i) {
            const int fd = fcntl(source[i], F_DUPFD_CLOEXEC, 0);
            if (fd < 0) {
                NN_LOG(ERROR) << "SL_ANeuralNetworksCompilation_setCachingFromFds: cannot dup fd " << source[i];
                return ANEURALNETWORKS_BAD_DATA;
            }
            target->push_back(fd);
        }
    }
    cacheDir_.clear();
    cacheFds_ = std::move(fds);
    token_.assign(token, token + ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN);
    return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::addExtensionAttribute(const char* extension, uint16_t code, const void* data, size_t length) {
    const char* function = "ANeuralNetworksCompilation_addExtensionAttribute";
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    if (!canMeasureTiming()) {
        NN_LOG(ERROR) << function << ": only for a compilation made by createForDevices for one device";
        return ANEURALNETWORKS_BAD_DATA;
    }
    return attributes_.add(function, extension, code, data, length);
}

int Compilation::setPriority(int priority) {
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    switch (priority) {
        case ANEURALNETWORKS_PRIORITY_LOW: options_.qos.priority = hal::Priority::LOW; break;
        case ANEURALNETWORKS_PRIORITY_MEDIUM: options_.qos.priority = hal::Priority::MEDIUM; break;
        case ANEURALNETWORKS_PRIORITY_HIGH: options_.qos.priority = hal::Priority::HIGH; break;
        default:
            NN_LOG(ERROR) << "ANeuralNetworksCompilation_setPriority: invalid priority " << priority;
            return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::setTimeout(uint64_t duration) {
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    if (!acceptsTimeouts()) {
        NN_LOG(ERROR) << "ANeuralNetworksCompilation_setTimeout: the compilation was not made by "
                         "createForDevices for exactly one device";
        return ANEURALNETWORKS_BAD_DATA;
    }
    timeout_ = duration;
    return ANEURALNETWORKS_NO_ERROR;
}

// Both devices of nnemu prefer 64-byte aligned buffers padded to 64 bytes, so every plan,
// whatever its partitions, does too (nnapi-fl30plus.md §1.5).
int Compilation::getPreferredMemory(bool isInput, bool alignment, uint32_t index, uint32_t* value) const {
    constexpr uint32_t kPreferredAlignment = 64;
    constexpr uint32_t kPreferredPadding = 64;
    if (!finished_ || plan_ == nullptr) {
        NN_LOG(ERROR) << "preferred memory alignment/padding: the compilation is not finished or failed";
        return ANEURALNETWORKS_BAD_STATE;
    }
    const auto& indexes = isInput ? plan_->model().inputIndexes : plan_->model().outputIndexes;
    if (index >= indexes.size()) {
        NN_LOG(ERROR) << "preferred memory alignment/padding: " << (isInput ? "input" : "output") << " index "
                      << index << " out of range";
        return ANEURALNETWORKS_BAD_DATA;
    }
    *value = alignment ? kPreferredAlignment : kPreferredPadding;
    return ANEURALNETWORKS_NO_ERROR;
}

int Compilation::finish() {
    if (finished_) return ANEURALNETWORKS_BAD_STATE;
    trace::Span span("compilation", "compilation");
    finished_ = true;
    // The timeout counts from this call (nnapi-fl30plus.md §3.4).
    if (timeout_ != 0) options_.qos.deadline = hal::deadlineAfter(timeout_);
    if (preference_ < 0) {
        NN_LOG(ERROR) << "ANeuralNetworksCompilation_finish: invalid preference " << preference_;
        return ANEURALNETWORKS_OP_FAILED;
    }
    options_.preference = static_cast<hal::ExecutionPreference>(preference_);
    options_.allowFallback = !explicitDevices_;
    if (!token_.empty()) {
        options_.caching.dir = cacheDir_;
        options_.caching.fds = cacheFds_;
        options_.caching.token.emplace();
        std::copy(token_.begin(), token_.end(), options_.caching.token->begin());
    }
    const Memory::CheckScope checkOnce;  // the model's memories checked once for the compilation
    return ExecutionPlan::create(*model_, devices_, options_, &plan_);
}

}  // namespace nnemu::runtime
