// The Support Library as a loader sees it (nnapi-fl30plus.md §4.4): the library opened by its
// absolute path with RTLD_LAZY | RTLD_LOCAL, its table fetched once, never linked against.
#pragma once

#include <android/NeuralNetworksSupportLibraryImpl.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string_view>

namespace nnemu::sltest {

inline void* libraryHandle() {
    static void* handle = dlopen(NNEMU_SL_LIBRARY_PATH, RTLD_LAZY | RTLD_LOCAL);
    return handle;
}

inline NnApiSLDriverImpl* loadDriverImpl() {
    void* handle = libraryHandle();
    if (handle == nullptr) return nullptr;
    using GetImpl = NnApiSLDriverImpl* (*)();
    auto getImpl = reinterpret_cast<GetImpl>(dlsym(handle, "ANeuralNetworks_getSLDriverImpl"));
    return getImpl == nullptr ? nullptr : getImpl();
}

// The levels TensorFlow Lite accepts, each an FL5-shaped table.
inline bool acceptedByTflite(int64_t level) { return level == 31 || level == 1000006 || level == 1000007; }

class SupportLibraryTest : public ::testing::Test {
protected:
    void SetUp() override {
        NnApiSLDriverImpl* impl = loadDriverImpl();
        ASSERT_NE(impl, nullptr) << dlerror();
        ASSERT_TRUE(acceptedByTflite(impl->implFeatureLevel)) << impl->implFeatureLevel;
        sl_ = reinterpret_cast<const NnApiSLDriverImplFL5*>(impl);
    }

    const NnApiSLDriverImplFL5& sl() const { return *sl_; }

    // The device of that name, through the table.
    const ANeuralNetworksDevice* findDevice(const char* wanted) const {
        uint32_t count = 0;
        if (sl().ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return nullptr;
        for (uint32_t i = 0; i < count; ++i) {
            ANeuralNetworksDevice* device = nullptr;
            const char* name = nullptr;
            if (sl().ANeuralNetworks_getDevice(i, &device) != ANEURALNETWORKS_NO_ERROR) return nullptr;
            if (sl().ANeuralNetworksDevice_getName(device, &name) != ANEURALNETWORKS_NO_ERROR) return nullptr;
            if (std::string_view(name) == wanted) return device;
        }
        return nullptr;
    }

private:
    const NnApiSLDriverImplFL5* sl_ = nullptr;
};

}  // namespace nnemu::sltest
