// ANeuralNetworksCompilation: device choice, preference and caching settings, then the plan.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "Diagnostics.h"
#include "ExecutionPlan.h"
#include "ExtensionAttributes.h"
#include "RefCounted.h"

namespace nnemu::runtime {

// Reference-counted (RefCounted.h): its executions and bursts keep it alive after
// ANeuralNetworksCompilation_free.
class Compilation final : public RefCounted {
public:
    // `explicitDevices`: made by createForDevices (no CPU fallback, timing measurable).
    Compilation(const ModelBuilder* model, std::vector<const Device*> devices, bool explicitDevices)
        : model_(model), devices_(std::move(devices)), explicitDevices_(explicitDevices) {}

    int setPreference(int32_t preference);
    int setCaching(const char* cacheDir, const uint8_t* token);
    // The Support Library's variant: the application's open files (dup'ed here) instead of a directory.
    int setCachingFromFds(const int* modelFds, uint32_t modelCount, const int* dataFds, uint32_t dataCount,
                          const uint8_t* token);
    int setPriority(int priority);
    // Feature level 8 (ExtensionAttributes.h).
    int addExtensionAttribute(const char* extension, uint16_t code, const void* data, size_t length);
    const ExtensionAttributes& extensionAttributes() const { return attributes_; }
    int setTimeout(uint64_t duration);
    int finish();
    // Feature level 5: preferred alignment/padding of an input's or output's buffer.
    int getPreferredMemory(bool isInput, bool alignment, uint32_t index, uint32_t* value) const;

    bool isFinished() const { return finished_; }
    const ExecutionPlan* plan() const { return plan_.get(); }
    // After finish the plan's share of the finished model, so the application may free its handle.
    const hal::Model& model() const { return plan_ ? plan_->model() : model_->model(); }
    bool canMeasureTiming() const { return explicitDevices_ && devices_.size() == 1; }
    // Timeouts, like timing, need a compilation made by createForDevices for exactly one device.
    bool acceptsTimeouts() const { return canMeasureTiming(); }
    // For the diagnostic reports (Diagnostics.h).
    const std::vector<const Device*>& devices() const { return devices_; }
    bool cachingEnabled() const { return !token_.empty(); }
    int32_t sessionId() const { return sessionId_; }

private:
    const ModelBuilder* model_;
    std::vector<const Device*> devices_;
    bool explicitDevices_;
    CompileOptions options_;
    int32_t preference_ = 1;
    uint64_t timeout_ = 0;  // ns; 0: none
    std::string cacheDir_;
    std::vector<uint8_t> token_;
    std::shared_ptr<const CacheFds> cacheFds_;
    bool finished_ = false;
    ExtensionAttributes attributes_;
    std::unique_ptr<ExecutionPlan> plan_;
    const int32_t sessionId_ = diagnostics::nextSessionId();
};

}  // namespace nnemu::runtime
