// Looks the level markers up among the process's global symbols (the library is linked or
// loaded with RTLD_GLOBAL), so one build of the loader follows whichever library it runs with.
#include "RuntimeLevel.h"

#include <dlfcn.h>

#include <atomic>

#include "nnemu/tflite/Lowering.h"

namespace nnemu::tflite {
namespace {

constexpr int64_t kFeatureLevel29 = 29;
constexpr int64_t kFeatureLevel30 = 30;

bool exported(const char* name) { return dlsym(RTLD_DEFAULT, name) != nullptr; }

int64_t findLevel() {
    using LevelFunction = int64_t (*)();
    if (void* symbol = dlsym(RTLD_DEFAULT, "ANeuralNetworks_getRuntimeFeatureLevel")) {
        return reinterpret_cast<LevelFunction>(symbol)();
    }
    // TFLite's chain below feature level 31: setTimeout arrived with level 30.
    return exported("ANeuralNetworksCompilation_setTimeout") ? kFeatureLevel30 : kFeatureLevel29;
}

std::atomic<int64_t> ownLevel{0};   // 0: ask the library

}  // namespace

void useOwnNnapiFeatureLevel(int64_t level) { ownLevel.store(level); }

int64_t nnapiRuntimeFeatureLevel() {
    if (const int64_t own = ownLevel.load(); own != 0) return own;
    static const int64_t level = findLevel();
    return level;
}

bool nnapiHasSignedInt8() { return nnapiRuntimeFeatureLevel() >= kFeatureLevel30; }

}  // namespace nnemu::tflite
