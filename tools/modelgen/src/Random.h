// A fixed-seed generator (splitmix64) so that every generated model is the same on every run
// and every machine: no time, no std::random_device, no implementation-defined distributions.
#pragma once

#include <cmath>
#include <cstdint>

namespace nnemu::modelgen {

class DeterministicRandom {
public:
    explicit DeterministicRandom(uint64_t seed) : state_(seed) {}

    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1).
    double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    float uniform(float low, float high) { return low + static_cast<float>(unit()) * (high - low); }
    // Standard normal (Box-Muller, one value per call).
    float normal() {
        const double u1 = 1.0 - unit();
        const double u2 = unit();
        return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }

private:
    uint64_t state_;
};

}  // namespace nnemu::modelgen
