// The runtime side of NNAPI compilation caching (nnapi-fl29.md §6): for each prepared unit it
// derives the device's cache token, names and opens the cache files in the application's cache
// directory, and prepares from the cache when they all exist, else from the model with the
// (created) files for the driver to fill.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Device.h"
#include "nnemu/hal/Device.h"
#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

// Cache files the application opened itself (SL_ANeuralNetworksCompilation_setCachingFromFds):
// dups of its fds, closed with the last compilation that holds them.
struct CacheFds {
    std::vector<int> model;
    std::vector<int> data;
    CacheFds() = default;
    CacheFds(const CacheFds&) = delete;
    CacheFds& operator=(const CacheFds&) = delete;
    ~CacheFds();
};

// What ANeuralNetworksCompilation_setCaching (a directory) or setCachingFromFds (fds) recorded;
// no token: caching off.
struct CacheSettings {
    std::string dir;  // ends with '/'
    std::shared_ptr<const CacheFds> fds;  // set: these files, not the directory's
    std::optional<hal::CacheToken> token;
};

// SHA-256(app token || the step's operation indexes in the finished model (compound plans only)
// || device name || device version || preference as int32), native-endian (§6.3). nullopt when
// hashing is unavailable.
std::optional<hal::CacheToken> deriveCacheToken(const hal::CacheToken& appToken,
                                                const std::vector<uint32_t>& stepOperations,
                                                const std::string& deviceName, const std::string& deviceVersion,
                                                hal::ExecutionPreference preference);

// The 64 letters naming a token's files: per byte 'A' + low nibble, then 'A' + high nibble (§6.4).
std::string cacheFileBaseName(const hal::CacheToken& token);

// Prepares `model` on `device`, through the cache when `settings` has a token and the device
// caches (§6.5). `stepOperations` is empty for a plan of one step.
hal::PrepareResult prepareWithCaching(const Device& device, const std::shared_ptr<const hal::Model>& model,
                                      hal::ExecutionPreference preference, const CacheSettings& settings,
                                      const std::vector<uint32_t>& stepOperations, const hal::PrepareQos& qos = {});

}  // namespace nnemu::runtime
