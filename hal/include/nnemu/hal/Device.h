// The in-process driver interface, mirroring HAL 1.2's IDevice / IPreparedModel.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::hal {

// Feature level 30 quality of service. A deadline is an absolute time point (nullopt: none).
// Missing one is MISSED_DEADLINE_PERSISTENT when it had passed before the device started the
// work (the same request with the same timeout would miss again), MISSED_DEADLINE_TRANSIENT
// when the device gave up midway (a less busy device may make it).
using Deadline = std::optional<std::chrono::steady_clock::time_point>;
inline bool deadlinePassed(const Deadline& deadline) {
    return deadline.has_value() && std::chrono::steady_clock::now() >= *deadline;
}
// `duration` ns after `from`; none when that lies beyond what the clock can represent.
inline Deadline deadlineAfter(uint64_t duration,
                              std::chrono::steady_clock::time_point from = std::chrono::steady_clock::now()) {
    const auto room = std::chrono::steady_clock::time_point::max() - from;
    if (duration > static_cast<uint64_t>(std::chrono::nanoseconds(room).count())) return std::nullopt;
    return from + std::chrono::nanoseconds(duration);
}
enum class Priority : int32_t { LOW = 0, MEDIUM = 1, HIGH = 2 };
struct PrepareQos {
    Priority priority = Priority::MEDIUM;  // in-process devices serve one application: unused
    Deadline deadline;
};

class IPreparedModel {
public:
    virtual ~IPreparedModel() = default;
    // Runs the request; returns the status, one shape per model output (on NONE and on
    // OUTPUT_INSUFFICIENT_SIZE) and timing (only when measured and successful).
    virtual std::tuple<ErrorStatus, std::vector<OutputShape>, Timing> executeSynchronously(
            const Request& request, MeasureTiming measure) = 0;
    // Feature level 30: the same under a deadline. Devices that can stop midway override it.
    virtual std::tuple<ErrorStatus, std::vector<OutputShape>, Timing> execute(const Request& request,
                                                                              MeasureTiming measure,
                                                                              const Deadline& deadline) {
        if (deadlinePassed(deadline)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, {}, {}};
        return executeSynchronously(request, measure);
    }
};

using PrepareResult = std::pair<ErrorStatus, std::shared_ptr<IPreparedModel>>;

class IDevice {
public:
    virtual ~IDevice() = default;
    virtual std::string getName() const = 0;
    virtual std::string getVersionString() const = 0;
    virtual DeviceType getType() const = 0;
    virtual int64_t getFeatureLevel() const { return 29; }
    virtual Capabilities getCapabilities() const = 0;
    virtual std::vector<Extension> getSupportedExtensions() const { return {}; }
    // One flag per operation of `model` (index-aligned). INVALID_ARGUMENT for an invalid model.
    virtual std::pair<ErrorStatus, std::vector<bool>> getSupportedOperations(const Model& model) = 0;
    // (numModelCache, numDataCache); (0, 0) means the device does not cache.
    virtual std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const { return {0, 0}; }
    virtual PrepareResult prepareModel(const Model& model, ExecutionPreference preference,
                                       const std::vector<int>& modelCache,
                                       const std::vector<int>& dataCache, const CacheToken& token) = 0;
    virtual PrepareResult prepareModelFromCache(const std::vector<int>& /*modelCache*/,
                                                const std::vector<int>& /*dataCache*/,
                                                const CacheToken& /*token*/) {
        return {ErrorStatus::GENERAL_FAILURE, nullptr};
    }
    // Feature level 30: prepareModel / prepareModelFromCache with a priority and a deadline.
    virtual PrepareResult prepareModelWithQos(const Model& model, ExecutionPreference preference,
                                              const PrepareQos& qos, const std::vector<int>& modelCache,
                                              const std::vector<int>& dataCache, const CacheToken& token) {
        if (deadlinePassed(qos.deadline)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, nullptr};
        return prepareModel(model, preference, modelCache, dataCache, token);
    }
    // prepareModelWithQos with the runtime's shared, immutable model: a driver that keeps the model
    // after preparing it may keep this pointer instead of a copy.
    virtual PrepareResult prepareSharedModelWithQos(const std::shared_ptr<const Model>& model,
                                                    ExecutionPreference preference, const PrepareQos& qos,
                                                    const std::vector<int>& modelCache,
                                                    const std::vector<int>& dataCache, const CacheToken& token) {
        return prepareModelWithQos(*model, preference, qos, modelCache, dataCache, token);
    }
    virtual PrepareResult prepareModelFromCacheWithQos(const PrepareQos& qos, const std::vector<int>& modelCache,
                                                       const std::vector<int>& dataCache, const CacheToken& token) {
        if (deadlinePassed(qos.deadline)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, nullptr};
        return prepareModelFromCache(modelCache, dataCache, token);
    }
    virtual DeviceStatus getStatus() const { return DeviceStatus::AVAILABLE; }
};

}  // namespace nnemu::hal
