// nnemu_cache_worker: a small NNAPI application for the multi-process cache tests.
//
//   nnemu_cache_worker run --layers 1,2,3 [--channels N] [--side N] [--compilations N]
//                          [--cache-dir DIR --token HEX]
//       builds the convolution network, compiles it for synap-npu (N times, default 1), runs one
//       inference per compilation and prints one line: what the caches did, the md5 of the
//       output, whether it matches nnapi-reference and how many descriptors it holds open on
//       the SyNAP cache's database.
//   nnemu_cache_worker store FILE SEED
//       opens (creating) the SyNAP cache FILE, stores and finds a few programs, prints "stored";
//       for the test of processes opening a new cache at once.
//   nnemu_cache_worker hit FILE ROOT VERSION COUNT KEY...
//       looks each KEY up COUNT times, in turn, as synap-npu does at a first inference (entry
//       index and hit log first, the database when they do not serve; capacity 1000), and prints
//       "hits=N"; for the tests of hits counted by processes at once.
//   nnemu_cache_worker insert-loop FILE CAPACITY
//       stores 1 MiB programs into the SyNAP cache FILE forever ("ready" after the first), for
//       the test that kills a process in the middle of an insert.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "CacheTestSupport.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/base/Digest.h"
#include "nnemu/synap/cache/SharedSynapCache.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace {

using namespace nnemu;
using cachetest::openSynapCache;

int usage() {
    std::fprintf(stderr, "usage: nnemu_cache_worker run --layers 1,2 [--channels N] [--side N] [--compilations N] "
                         "[--cache-dir DIR --token HEX] | store FILE SEED | hit FILE ROOT VERSION COUNT KEY... | "
                         "insert-loop FILE CAPACITY\n");
    return 2;
}

bool parseToken(const std::string& hex, uint8_t token[32]) {
    if (hex.size() != 64) return false;
    for (size_t i = 0; i < 32; ++i) {
        char* end = nullptr;
        const std::string pair = hex.substr(i * 2, 2);
        token[i] = static_cast<uint8_t>(std::strtoul(pair.c_str(), &end, 16));
        if (*end != '\0') return false;
    }
    return true;
}

// This process's file descriptors on the SyNAP cache's database and its WAL files (the program
// files are mapped, their descriptors closed).
int cacheDatabaseDescriptors() {
    int count = 0;
    std::error_code ec;
    for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
        const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
        const bool database = target.find("/nnhal.cache") != std::string::npos ||
                              target.find("/synap-cache.") != std::string::npos;
        count += database && target.find(".npu") == std::string::npos;
    }
    return count;
}

int run(int argc, char** argv) {
    cachetest::ConvNetworkSpec spec;
    spec.layerSeeds.clear();
    int compilations = 1;
    std::string cacheDir, tokenHex;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--layers") {
            std::stringstream list(value);
            std::string seed;
            while (std::getline(list, seed, ',')) spec.layerSeeds.push_back(static_cast<uint32_t>(std::stoul(seed)));
        } else if (flag == "--channels") {
            spec.channels = static_cast<uint32_t>(std::stoul(value));
        } else if (flag == "--side") {
            spec.side = static_cast<uint32_t>(std::stoul(value));
        } else if (flag == "--compilations") {
            compilations = std::stoi(value);
        } else if (flag == "--cache-dir") {
            cacheDir = value;
        } else if (flag == "--token") {
            tokenHex = value;
        } else {
            return usage();
        }
    }
    uint8_t token[32] = {};
    if (spec.layerSeeds.empty() || (!tokenHex.empty() && !parseToken(tokenHex, token))) return usage();
    cachetest::ConvNetwork network(spec);
    if (!network.valid()) {
        std::fprintf(stderr, "nnemu_cache_worker: cannot build the network\n");
        return 1;
    }
    std::vector<float> output;
    for (int i = 0; i < compilations; ++i) {
        ANeuralNetworksCompilation* compilation = network.compile(cacheDir, cacheDir.empty() ? nullptr : token);
        if (compilation == nullptr) {
            std::fprintf(stderr, "nnemu_cache_worker: compilation failed\n");
            return 1;
        }
        output = network.run(compilation);
        ANeuralNetworksCompilation_free(compilation);
        if (output.empty()) {
            std::fprintf(stderr, "nnemu_cache_worker: inference failed\n");
            return 1;
        }
    }
    // The reference device's answer: the cached program must compute the same network.
    ANeuralNetworksCompilation* reference = network.compile("", nullptr, "nnapi-reference");
    const std::vector<float> expected = reference != nullptr ? network.run(reference) : std::vector<float>{};
    ANeuralNetworksCompilation_free(reference);
    bool match = expected.size() == output.size();
    for (size_t i = 0; match && i < output.size(); ++i) {
        match = std::fabs(output[i] - expected[i]) <= 1e-4f + 1e-4f * std::fabs(expected[i]);
    }
    const auto& c = cache::cacheCounters();
    std::printf("compiles=%llu synap_lookups=%llu synap_hits=%llu synap_stores=%llu synap_drops=%llu "
                "model_cache_writes=%llu model_cache_loads=%llu model_cache_rejects=%llu output=%s cpu_match=%d "
                "cache_fds=%d\n",
                static_cast<unsigned long long>(c.compiles.load()), static_cast<unsigned long long>(c.synapLookups.load()),
                static_cast<unsigned long long>(c.synapHits.load()), static_cast<unsigned long long>(c.synapStores.load()),
                static_cast<unsigned long long>(c.synapDrops.load()),
                static_cast<unsigned long long>(c.modelCacheWrites.load()),
                static_cast<unsigned long long>(c.modelCacheLoads.load()),
                static_cast<unsigned long long>(c.modelCacheRejects.load()),
                base::toHex(base::md5(output.data(), output.size() * sizeof(float))).c_str(), match ? 1 : 0,
                cacheDatabaseDescriptors());
    return 0;
}

int storeSome(const std::string& file, int seed) {
    std::string error;
    auto cache = openSynapCache(file, true, error);
    if (cache == nullptr) {
        std::fprintf(stderr, "nnemu_cache_worker: open: %s\n", error.c_str());
        return 1;
    }
    for (int n = 0; n < 5; ++n) {
        const std::vector<uint8_t> program(30000 + n, static_cast<uint8_t>(seed * 8 + n));
        const std::string key = std::to_string(seed) + "/" + std::to_string(n);
        std::vector<uint8_t> found;
        const auto stored = cache->store(key, program, 1, 1000);
        const Status looked = stored.isOk() ? cache->find(key, 1, &found) : stored;
        if (!looked.isOk() || found != program) {
            std::fprintf(stderr, "nnemu_cache_worker: %s: %s\n", toString(looked.code()), cache->error().c_str());
            return 1;
        }
    }
    std::printf("stored\n");
    return 0;
}

int insertLoop(const std::string& file, int64_t capacity) {
    std::string error;
    auto store = openSynapCache(file, true, error);
    if (store == nullptr) {
        std::fprintf(stderr, "nnemu_cache_worker: %s\n", error.c_str());
        return 1;
    }
    std::mt19937_64 random(static_cast<uint64_t>(getpid()));
    std::vector<uint8_t> program(1 << 20);
    for (uint64_t i = 0;; ++i) {
        for (auto& byte : program) byte = static_cast<uint8_t>(random());
        const std::string key = base::toHex(base::md5(&i, sizeof i)) ;
        if (store->store(key + std::to_string(getpid()), program, 1, capacity) != nnemu::StatusCode::OK) {
            std::fprintf(stderr, "nnemu_cache_worker: store failed: %s\n", store->error().c_str());
            return 1;
        }
        if (i == 0) {
            std::printf("ready\n");
            std::fflush(stdout);
        }
    }
}

int hitLoop(int argc, char** argv) {
    const cache::SynapCacheLocation location{argv[2], 1000, argv[3]};
    const auto version = static_cast<uint32_t>(std::stoul(argv[4]));
    const int count = std::atoi(argv[5]);
    uint64_t hits = 0;
    for (int i = 0; i < count; ++i) {
        for (int k = 6; k < argc; ++k) {
            cache::ProgramImage image;
            hits += cache::findCompiledProgram(location, argv[k], version, &image) ? 1 : 0;
        }
    }
    std::printf("hits=%llu\n", static_cast<unsigned long long>(hits));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return run(argc, argv);
    if (argc == 4 && std::strcmp(argv[1], "store") == 0) return storeSome(argv[2], std::atoi(argv[3]));
    if (argc >= 7 && std::strcmp(argv[1], "hit") == 0) return hitLoop(argc, argv);
    if (argc == 4 && std::strcmp(argv[1], "insert-loop") == 0) return insertLoop(argv[2], std::atoll(argv[3]));
    return usage();
}
