// Values for GraphSpec models (ControlFlowModels.cpp, CpuPathModels.cpp): constant bytes, int32
// tensors and fixed-seed uniform values.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "Random.h"
#include "nnemu/modelgen/GraphSpec.h"

namespace nnemu::modelgen {

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

inline TensorSpec intTensor(const std::string& name, std::vector<int32_t> shape, std::vector<int32_t> values = {}) {
    TensorSpec t = tensorSpec(name, std::move(shape), tflite::fb::TensorType_INT32);
    t.data = bytesOf(values);
    return t;
}

inline std::vector<float> randomValues(uint64_t seed, size_t count, float low, float high) {
    DeterministicRandom random(seed);
    std::vector<float> values(count);
    for (float& v : values) v = random.uniform(low, high);
    return values;
}

}  // namespace nnemu::modelgen
