// The vx delegate's compiled-graph cache (synap-behaviors.md §6.1 allowed_cache_mode,
// cache_file_path): one file holding the NPU program of the graph's delegated partition in
// nnemu's model cache format (cache/ModelCacheFile.h: magic, format version, key, SHA-256), the
// key being the partition's network key (model, input shapes, compiler). A file that is present
// but unusable is reported and the graph compiles; only an absent, empty or nnemu-written file
// is ever replaced, and always atomically (a temporary file in the same directory, renamed).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::vx {

struct CachedGraph {
    std::vector<uint8_t> program;  // empty when the file gave nothing usable
    bool mayReplace = false;       // whether saveCachedGraph may write the path afterwards
    std::string message;           // why a present file was not used (empty otherwise)
};

using GraphKey = std::array<uint8_t, 32>;

// Paths under the device root are opened by the O_NOFOLLOW walk from the root (RootedFile.h);
// any other path resolves its directory normally and refuses a symlink as the file itself.
CachedGraph loadCachedGraph(const std::string& path, const GraphKey& key, uint32_t compilerVersion);

// UNAVAILABLE saying why the file could not be written (it is then left as it was).
Status saveCachedGraph(const std::string& path, const GraphKey& key, uint32_t compilerVersion,
                       const std::vector<uint8_t>& program);

}  // namespace nnemu::vx
