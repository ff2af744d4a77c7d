// The synap-npu driver's properties (synap-behaviors.md §1), with their defaults. Every accessor
// reads the property files afresh (cheaply), so callers read them at the moment the spec says
// (each first-inference JIT, each prepared model, each cache open) and never cache them.
//
// Precedence for the two cache settings, highest first:
//   1. the environment variables SYNAP_CACHE_PATH / SYNAP_CACHE_CAPACITY (as on Linux boards);
//   2. the properties vendor.SYNAP_CACHE_PATH / vendor.SYNAP_CACHE_CAPACITY (local.prop, then
//      build.prop);
//   3. the defaults below.
// An environment value that is not usable (empty, not a non-negative integer) is ignored with a
// warning. The other three properties have no environment override.
//
// On a Yocto board (Board.h) no property is read: the cache is the program's own,
// /tmp/synap-cache.<program-name> inside the device root, unless SYNAP_CACHE_PATH says otherwise;
// the capacity is SYNAP_CACHE_CAPACITY or the default; profiling, DISABLE and the NNAPI
// compilation cache are off.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace nnemu::props {

struct PropertyInfo {
    std::string_view name;
    std::string_view defaultValue;
    std::string_view meaning;
};

struct SynapProperties {
    static constexpr std::string_view kCachePath = "vendor.SYNAP_CACHE_PATH";
    static constexpr std::string_view kCacheCapacity = "vendor.SYNAP_CACHE_CAPACITY";
    static constexpr std::string_view kProfile = "vendor.NNAPI_SYNAP_PROFILE";
    static constexpr std::string_view kDisable = "vendor.NNAPI_SYNAP_DISABLE";
    static constexpr std::string_view kCacheModel = "vendor.npu.cache.model";

    static constexpr std::string_view kCachePathEnv = "SYNAP_CACHE_PATH";
    static constexpr std::string_view kCacheCapacityEnv = "SYNAP_CACHE_CAPACITY";

    static constexpr std::string_view kDefaultCachePath = "/data/vendor/synap/nnhal.cache";
    static constexpr int64_t kDefaultCacheCapacity = 10000;
    static constexpr std::string_view kYoctoCachePrefix = "/tmp/synap-cache.";

    // The five properties, their defaults and what they do.
    static constexpr std::array<PropertyInfo, 5> kAll = {{
        {kCachePath, kDefaultCachePath, "file holding the SyNAP JIT compilation cache"},
        {kCacheCapacity, "10000", "largest number of entries in that cache; 0 turns it off"},
        {kProfile, "0", "1 runs NNAPI networks layer by layer and fills network_profile"},
        {kDisable, "0", "1 hides the NPU from NNAPI: every model falls back to the CPU"},
        {kCacheModel, "0", "1 honours ANeuralNetworksCompilation_setCaching"},
    }};

    // The cache path as configured: the environment's (a host path) or the property's (an Android
    // path inside the device root).
    static std::string cachePath();
    // A Yocto board's cache of `program` (an Android-style path inside the device root).
    static std::string yoctoCachePath(const std::string& program);
    // Where that cache lives on the host: the environment's path as given, or the property's
    // resolved with devicePath().
    static std::string cacheFile();
    // Entries in the SyNAP cache; 0 disables it. Negative or garbage values give the default.
    static int64_t cacheCapacity();
    static bool profile();
    static bool disable();
    static bool cacheModel();
};

}  // namespace nnemu::props
