#include "SupportLibrary.h"

#include <android/NeuralNetworksSupportLibraryImpl.h>
#include <dlfcn.h>

namespace nnemu::benchmark {

Status checkSupportLibrary(const std::string& path, int64_t* level) {
    // Kept open for the process, as TensorFlow Lite keeps its support library.
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr) {
        return unavailable(dlerror());
    }
    using GetImpl = NnApiSLDriverImpl* (*)();
    auto getImpl = reinterpret_cast<GetImpl>(dlsym(handle, "ANeuralNetworks_getSLDriverImpl"));
    NnApiSLDriverImpl* impl = getImpl == nullptr ? nullptr : getImpl();
    if (impl == nullptr) {
        return unavailable("no ANeuralNetworks_getSLDriverImpl, or it returned nullptr");
    }
    *level = impl->implFeatureLevel;
    if (*level != 31 && *level != 1000006 && *level != 1000007) {
        return unavailable("Unsupported NnApiSLDriverImpl->implFeatureLevel: " + std::to_string(*level));
    }
    const auto* table = reinterpret_cast<const NnApiSLDriverImplFL5*>(impl);
    if (table->ANeuralNetworksModel_create != &ANeuralNetworksModel_create ||
        table->ANeuralNetworksExecution_compute != &ANeuralNetworksExecution_compute) {
        return unavailable("it is not the libneuralnetworks.so this benchmark_model is linked with");
    }
    return {};
}

}  // namespace nnemu::benchmark
