// The in-process driver interface, mirroring HAL 1.2's IDevice / IPreparedModel.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::hal {

class IPreparedModel {
public:
    virtual ~IPreparedModel() = default;
    // Runs the request; returns the status, one shape per model output (on NONE and on
    // OUTPUT_INSUFFICIENT_SIZE) and timing (only when measured and successful).
    virtual std::tuple<ErrorStatus, std::vector<OutputShape>, Timing> executeSynchronously(
            const Request& request, MeasureTiming measure) = 0;
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
    virtual DeviceStatus getStatus() const { return DeviceStatus::AVAILABLE; }
};

}  // namespace nnemu::hal
