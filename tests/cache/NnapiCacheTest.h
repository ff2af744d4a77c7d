// What the NNAPI compilation cache tests share: tokens, the synap-npu version the runtime derives
// them with, and a test case whose application cache directory lies in its device root.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "CacheTestSupport.h"
#include "CompilationCache.h"

namespace nnemu::cachetest {

inline hal::CacheToken tokenOf(uint8_t fill) {
    hal::CacheToken token;
    token.fill(fill);
    return token;
}

inline std::string synapVersion() {
    const char* version = nullptr;
    ANeuralNetworksDevice_getVersion(deviceNamed("synap-npu"), &version);
    return version;
}

class NnapiCacheTest : public CacheTest {
protected:
    void SetUp() override {
        CacheTest::SetUp();
        cacheDir_ = root() + "/app-cache";
        std::filesystem::create_directories(cacheDir_);
        token_ = tokenOf(0x5A);
    }
    // The model cache file of a one-step synap-npu plan at the default preference.
    std::string modelCacheFile(const hal::CacheToken& token) const {
        const auto derived = runtime::deriveCacheToken(token, {}, "synap-npu", synapVersion(),
                                                       hal::ExecutionPreference::FAST_SINGLE_ANSWER);
        return cacheDir_ + "/" + runtime::cacheFileBaseName(*derived) + "10";
    }
    std::vector<float> compileAndRun(const ConvNetwork& network, bool run = true) {
        ANeuralNetworksCompilation* compilation = network.compile(cacheDir_, token_.data());
        EXPECT_NE(compilation, nullptr);
        if (compilation == nullptr) return {};
        std::vector<float> output;
        if (run) output = network.run(compilation);
        ANeuralNetworksCompilation_free(compilation);
        return output;
    }
    size_t filesInCacheDir() const {
        namespace fs = std::filesystem;
        return static_cast<size_t>(std::distance(fs::directory_iterator(cacheDir_), fs::directory_iterator()));
    }

    std::string cacheDir_;
    hal::CacheToken token_{};
};

}  // namespace nnemu::cachetest
