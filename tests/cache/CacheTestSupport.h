// What the cache tests share: a device root of their own per test case, small convolution
// networks built through the NNAPI C API and compiled for synap-npu, and running helper
// processes with their output captured.
#pragma once

#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <memory>
#include <vector>

#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {

// SynapCache::open for the tests: null when it fails, with the failure's message in `error`.
inline std::unique_ptr<cache::SynapCache> openSynapCache(const std::string& file, bool create, std::string& error,
                                                         const std::string& root = {}) {
    auto opened = cache::SynapCache::open(file, create, root);
    error = opened.message();
    return opened.isOk() ? std::move(opened).value() : nullptr;
}

// Every test case gets an empty device root ($NNEMU_ROOT), the Android board and no SYNAP_CACHE_*
// overrides, so each starts with default properties and no cache.
class CacheTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;
    const std::string& root() const { return root_; }
    // The SyNAP cache file the properties resolve to by default, inside the root: the Android
    // board's shared file, or on a Yocto board (NNEMU_BOARD=yocto) this program's own.
    std::string defaultCacheFile() const;
    void setProperty(const std::string& name, const std::string& value);

private:
    std::string root_;
};

// A chain of 3x3 SAME convolutions (float, with ReLU) on a side x side x channels input. Layer i
// has weights drawn from layerSeeds[i], so two networks with the same leading seeds share those
// layers exactly (same weights, same shapes).
struct ConvNetworkSpec {
    uint32_t side = 8;
    uint32_t channels = 16;
    std::vector<uint32_t> layerSeeds = {1};
};

class ConvNetwork {
public:
    // With `weightsFile`, the filters lie in that file (written unless it exists), given to NNAPI
    // as a read-only memory of it, as the tools give a model file's weights.
    explicit ConvNetwork(const ConvNetworkSpec& spec, const std::string& weightsFile = "");
    ~ConvNetwork();
    ConvNetwork(const ConvNetwork&) = delete;
    ConvNetwork& operator=(const ConvNetwork&) = delete;

    bool valid() const { return model_ != nullptr; }
    ANeuralNetworksModel* model() const { return model_; }
    // Finished compilation for `deviceName` (synap-npu by default), with setCaching when a
    // cache dir is given; nullptr on failure.
    ANeuralNetworksCompilation* compile(const std::string& cacheDir = "", const uint8_t* token = nullptr,
                                        const char* deviceName = "synap-npu") const;
    // One inference with a fixed input; empty on failure.
    std::vector<float> run(ANeuralNetworksCompilation* compilation) const;

private:
    ConvNetworkSpec spec_;
    ANeuralNetworksModel* model_ = nullptr;
    std::vector<std::vector<float>> values_;  // kept alive: the model references them
    ANeuralNetworksMemory* weights_ = nullptr;
};

ANeuralNetworksDevice* deviceNamed(const std::string& name);

// One compilation and inference of an 8x8 one-layer ConvNetwork on synap-npu: fails the test
// unless it gives an output, and returns in *log what was written to stderr meanwhile.
void runSmallConvCapturingLog(std::string* log);

struct ProcessResult {
    int exitCode = -1;  // -1: did not exit normally
    int signal = 0;
    std::string out;
    std::string err;
};

// Runs `argv` (argv[0] a path) to completion. `fileSizeLimit` > 0 sets RLIMIT_FSIZE in the
// child, to emulate a full disk.
ProcessResult runProcess(const std::vector<std::string>& argv, long fileSizeLimit = 0);

// "a=1 b=2" (the worker's report) as a map.
std::map<std::string, std::string> parseReport(const std::string& line);

// How often `needle` occurs in `text`.
size_t countOccurrences(const std::string& text, const std::string& needle);

std::vector<uint8_t> readFile(const std::string& path);
void writeFile(const std::string& path, const std::vector<uint8_t>& bytes);
// Returns once the file system clock has moved past the change time of `path`, so the next
// change of the file gets other times (a change within the same clock tick may keep them).
void waitPastChangeTime(const std::string& path);
// Every entry of `directory` (recursively, symlinks not followed) with its bytes, or its link
// target for a symbolic link: equal snapshots mean nothing there was created, removed or changed.
std::map<std::string, std::string> snapshotDirectory(const std::string& directory);
// Creates an SQLite database at `path` by running `sql` in it (another program's file).
void createSqliteDatabase(const std::string& path, const std::string& sql);

}  // namespace nnemu::cachetest
