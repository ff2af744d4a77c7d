#include "nnemu/synap/cache/SharedSynapCache.h"
#include "SynapLog.h"

#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "nnemu/cache/CacheCounters.h"
#include "nnemu/base/RootedFile.h"
#include "nnemu/synap/cache/SynapCache.h"
#include "nnemu/base/Trace.h"

namespace nnemu::cache {
namespace {

namespace fs = std::filesystem;

struct OpenCache {
    std::shared_ptr<SynapCache> cache;  // the connection, while in use or kept
    bool disabled = false;              // for the rest of the process
    bool noStores = false;              // it cannot be written: read, never stored into
    // This process stored into it: open until exit, which folds the log in (checkpointAtExit).
    bool kept = false;
};

bool isInside(const fs::path& path, const std::string& root) {
    if (root.empty()) return false;
    const fs::path relative = path.lexically_normal().lexically_relative(fs::path(root).lexically_normal());
    return !relative.empty() && *relative.begin() != "..";
}

// Only a damaged file (bad header, SQLite corruption, a damaged schema) is worth clearing; a
// cause outside the file (a full or read-only file system, a missing directory, a foreign file)
// is named and nothing else is advised.
void warnDisabled(const std::string& file, const std::string& why, bool damaged) {
    SYNAP_LOG(WARNING) << "SyNAP cache " << file << " disabled for this process: " << why
                       << "; networks are compiled without it"
                       << (damaged ? " (the file is damaged: synap_cache --clear removes it)" : "");
}

std::shared_ptr<SynapCache> openCache(const SynapCacheLocation& location) {
    const fs::path file(location.file);
    const fs::path directory = file.parent_path().empty() ? fs::path(".") : file.parent_path();
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) {
        if (fs::exists(directory, ec)) {
            warnDisabled(location.file, directory.string() + " is not a directory", false);
            return nullptr;
        }
        if (!isInside(directory, location.boardRoot)) {
            warnDisabled(location.file, "directory " + directory.string() + " does not exist", false);
            return nullptr;
        }
        // A missing root is made as named (the user's choice); below it nothing is followed.
        if (const Status made = base::makeDirectoriesInsideRoot(location.boardRoot, directory.string()); !made) {
            warnDisabled(location.file, "cannot create its directory: " + made.message(), false);
            return nullptr;
        }
    }
    Result<std::unique_ptr<SynapCache>> opened = SynapCache::open(location.file, true, location.boardRoot);
    if (!opened.isOk()) {
        warnDisabled(location.file, opened.message(), opened.code() == StatusCode::DAMAGED);
        return nullptr;
    }
    // A lookup closes its connection at once: its hit count stays in the log for a later
    // checkpoint (a storing process makes one at exit, the write that makes the log 64 frames long
    // another: SynapCache::restartLogIfLong).
    (*opened)->keepLogOnClose();
    return std::move(opened).value();
}

class Registry;
Registry& registry();

class Registry {
public:
    // The cache for `location`, opened unless it is open; null once disabled.
    std::shared_ptr<SynapCache> get(const SynapCacheLocation& location) {
        std::lock_guard<std::mutex> lock(mutex_);
        // A forked child must not touch its parent's connections: SQLite's locks are per
        // process. The parent's handles are abandoned (never closed) in the child.
        if (owner_ != getpid()) {
            for (auto& [file, open] : caches_) abandoned_.push_back(std::move(open.cache));
            caches_.clear();
            owner_ = getpid();
        }
        if (closed_) return nullptr;  // the process is exiting: its connections are closed
        OpenCache& open = caches_[location.file];
        if (!open.disabled && open.cache == nullptr) {
            open.cache = openCache(location);
            open.disabled = open.cache == nullptr;
        }
        return open.cache;
    }

    // Whether the cache for `file` may be used without opening it (not disabled, not at exit).
    bool usable(const std::string& file) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) return false;
        auto found = caches_.find(file);
        return owner_ != getpid() || found == caches_.end() || !found->second.disabled;
    }

    // After a use: a process that only reads the cache does not hold it (its SQLite connection
    // holds ~60 KB of pages and lookaside per process); the connection closes once no thread
    // still uses it. One that stored into it keeps it.
    void release(const std::string& file, bool keep) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = caches_.find(file);
        if (found == caches_.end() || owner_ != getpid()) return;
        found->second.kept |= keep;
        if (!found->second.kept) found->second.cache = nullptr;
    }

    // Turns the cache off for the process after a failure that will not go away by itself.
    void disable(const std::string& file, const std::string& why, bool damaged) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = caches_.find(file);
        if (found == caches_.end() || found->second.disabled) return;
        found->second.cache = nullptr;
        found->second.disabled = true;
        warnDisabled(file, why, damaged);
    }

    // Whether programs may be stored into the cache: not once it has refused a write (a full or
    // read-only file system, no permission), said once per process; it is still read.
    bool storesAllowed(const std::string& file) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = caches_.find(file);
        return found == caches_.end() || !found->second.noStores;
    }
    void refuseStores(const std::string& file, const std::string& cause) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = caches_.find(file);
        if (found == caches_.end() || found->second.noStores || found->second.disabled) return;
        found->second.noStores = true;
        SYNAP_LOG(WARNING) << "SyNAP cache " << file << " cannot be written: " << cause
                           << "; programs already in it are still used, new ones are not stored in this process";
    }

    // Folds what this process stored into the database files at exit, so that the next process
    // to open a cache does not first read megabytes of write-ahead log back (the store itself
    // stays as fast as before; the exit pays), then closes the kept connections (their memory is
    // not left for a leak checker to find). Only this process's own connections; a thread still
    // using one closes it when it is done, and nothing opens one afterwards.
    void checkpointAtExit() {
        static const bool registered = std::atexit([] { registry().closeAll(); }) == 0;
        (void)registered;
    }
    void closeAll() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (owner_ != getpid()) return;
        closed_ = true;
        for (auto& [file, open] : caches_) {
            if (open.cache != nullptr) open.cache->checkpoint();
            open.cache = nullptr;
        }
    }

private:
    std::mutex mutex_;
    pid_t owner_ = getpid();
    bool closed_ = false;  // at exit
    std::map<std::string, OpenCache> caches_;
    std::vector<std::shared_ptr<SynapCache>> abandoned_;  // a parent's, kept open forever
};

Registry& registry() {
    static auto* instance = new Registry();  // never destroyed: networks may outlive statics
    return *instance;
}

// BUSY is other processes holding the lock for longer than the timeout: skip this use only. A
// write the system refused (full, read-only, no permission) stops the stores, not the lookups;
// anything else turns the cache off, advising to clear it only when the file is damaged.
void handleFailure(const SynapCacheLocation& location, SynapCache& cache, const Status& status, const char* what) {
    if (status.code() == StatusCode::BUSY) {
        SYNAP_LOG(INFO) << "SyNAP cache busy; " << what << " skipped: " << cache.error();
    } else if (const std::string refusal = cache.writeRefusal(); !refusal.empty() && !cache.errorIsDamage()) {
        registry().refuseStores(location.file, refusal);
    } else {
        registry().disable(location.file, cache.error(), cache.errorIsDamage() && cache.readOnly().empty());
    }
}

// One use of the cache for `location`: its connection, given back to the registry after.
class CacheUse {
public:
    explicit CacheUse(const SynapCacheLocation& location) : file_(location.file), cache_(registry().get(location)) {}
    ~CacheUse() {
        cache_ = nullptr;
        registry().release(file_, keep_);
    }
    CacheUse(const CacheUse&) = delete;
    CacheUse& operator=(const CacheUse&) = delete;
    SynapCache* operator->() const { return cache_.get(); }
    SynapCache& operator*() const { return *cache_; }
    explicit operator bool() const { return cache_ != nullptr; }
    void keep() { keep_ = true; }

private:
    std::string file_;
    std::shared_ptr<SynapCache> cache_;
    bool keep_ = false;
};

// A hit through the entry index, without SQLite (SynapCache::findIndexed). A process whose hit
// leaves the hit log long folds it into the database; one that checksummed the program file in
// full records its stamp in the index (and folds the log), so the next hits do not. Anything
// else: the database decides.
bool findIndexed(const SynapCacheLocation& location, const std::string& key, uint32_t compilerVersion,
                 ProgramImage* program) {
    if (!registry().usable(location.file)) return false;
    trace::Span span("cache index", "cache");
    bool foldDue = false;
    ProgramFileStamp recheck;
    if (const Status found = SynapCache::findIndexed(location.file, location.boardRoot, key, compilerVersion, program,
                                                     &foldDue, &recheck);
        !found.isOk()) {
        if (found.code() == StatusCode::DAMAGED) {
            SYNAP_LOG(INFO) << "not using " << found.message() << "; looking " << key << " up in " << location.file;
        }
        *program = {};
        return false;
    }
    span.end();
    cacheCounters().synapLookups++;
    cacheCounters().synapHits++;
    cacheCounters().synapMapped++;
    SYNAP_LOG(INFO) << "SyNAP cache hit " << key << " (" << program->size() << " bytes, mapped, indexed)";
    if (foldDue || !recheck.empty()) {
        trace::Span fold(recheck.empty() ? "fold hit log" : "record program file", "cache");
        CacheUse cache(location);
        if (cache && cache->readOnly().empty()) {
            const Status written =
                    recheck.empty() ? cache->foldHits() : cache->recordProgramFile(key, compilerVersion, recheck);
            if (!written.isOk()) handleFailure(location, *cache, written, recheck.empty() ? "hit log fold" : "index write");
        }
    }
    return true;
}

}  // namespace

bool findCompiledProgram(const SynapCacheLocation& location, const std::string& key, uint32_t compilerVersion,
                         ProgramImage* program) {
    if (location.capacity <= 0 || key.empty()) return false;
    if (findIndexed(location, key, compilerVersion, program)) return true;
    trace::Span opening("cache open", "cache");
    CacheUse cache(location);
    opening.end();
    if (!cache) return false;
    cacheCounters().synapLookups++;
    Status refusedFile;
    const Status status = cache->findImage(key, compilerVersion, program, &refusedFile);
    if (!refusedFile.isOk()) {
        cacheCounters().programFileRefusals++;
        SYNAP_LOG(WARNING) << "refused " << refusedFile.message() << "; removed it, the program comes from "
                           << location.file;
    }
    switch (status.code()) {
        case StatusCode::OK:
            cacheCounters().synapHits++;
            if (program->mapped()) cacheCounters().synapMapped++;
            SYNAP_LOG(INFO) << "SyNAP cache hit " << key << " (" << program->size() << " bytes"
                            << (program->mapped() ? ", mapped" : "") << ")";
            return true;
        case StatusCode::NOT_FOUND: return false;
        case StatusCode::DAMAGED:
            cacheCounters().synapDrops++;
            SYNAP_LOG(WARNING) << (cache->readOnly().empty() ? "dropped" : "ignored (read-only cache)")
                               << " SyNAP cache entry " << key << " from " << location.file << ": " << status.message()
                               << "; compiling the network again";
            return false;
        default: handleFailure(location, *cache, status, "lookup"); return false;
    }
}

void storeCompiledProgram(const SynapCacheLocation& location, const std::string& key,
                          std::span<const uint8_t> program, uint32_t compilerVersion) {
    if (location.capacity <= 0 || key.empty()) return;
    if (!registry().storesAllowed(location.file)) return;
    CacheUse cache(location);
    if (!cache) return;
    if (!cache->readOnly().empty()) return registry().refuseStores(location.file, cache->readOnly());
    const Status status = cache->store(key, program, compilerVersion, location.capacity);
    if (status.isOk()) {
        cacheCounters().synapStores++;
        cache.keep();
        registry().checkpointAtExit();
        SYNAP_LOG(INFO) << "stored " << key << " (" << program.size() << " bytes) in the SyNAP cache";
    } else {
        handleFailure(location, *cache, status, "store");
    }
}

void aliasCompiledProgram(const SynapCacheLocation& location, const std::string& alias, const std::string& key) {
    if (location.capacity <= 0 || alias.empty() || key.empty()) return;
    if (!registry().storesAllowed(location.file)) return;
    CacheUse cache(location);
    if (!cache || !cache->readOnly().empty()) return;
    const Status status = cache->alias(alias, key, location.capacity);
    if (status.isOk()) {
        cache.keep();
        registry().checkpointAtExit();
        SYNAP_LOG(INFO) << "SyNAP cache entry " << alias << " names the program of " << key;
    } else if (status.code() != StatusCode::NOT_FOUND) {
        handleFailure(location, *cache, status, "alias");
    }
}

void dropCompiledProgram(const SynapCacheLocation& location, const std::string& key, const std::string& why) {
    if (location.capacity <= 0 || key.empty()) return;
    CacheUse cache(location);
    if (!cache || !cache->readOnly().empty()) return;  // a read-only cache keeps what it has
    cacheCounters().synapDrops++;
    SYNAP_LOG(WARNING) << "dropped SyNAP cache entry " << key << " from " << location.file << ": " << why
                       << "; compiling the network again";
    if (const Status status = cache->drop(key); !status.isOk()) handleFailure(location, *cache, status, "drop");
}

}  // namespace nnemu::cache
