// synap_cache: the SyNAP compilation cache inspector. Lists entries, shows totals, verifies every
// stored program, evicts down to a count or clears, on the database that vendor.SYNAP_CACHE_PATH
// / $SYNAP_CACHE_PATH resolve to (or --path). Actions run in the order given; none means --stats.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "nnemu/synap/cache/SynapCache.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"
#include "nnemu/props/SynapProperties.h"

namespace {

using nnemu::cache::SynapCache;

constexpr const char* kUsage =
        "usage: synap_cache [--path FILE | --program NAME] [ACTION]...\n"
        "Inspect the SyNAP compilation cache (default: the file vendor.SYNAP_CACHE_PATH or\n"
        "$SYNAP_CACHE_PATH names, inside the device root $NNEMU_ROOT; on a Yocto board,\n"
        "NNEMU_BOARD=yocto, the cache of the program --program names).\n"
        "\n"
        "actions (run in order; default --stats):\n"
        "  --list       one line per entry: key, program size in bytes, hits, last use\n"
        "  --stats      totals: entries, programs, bytes with and without sharing, hits\n"
        "  --verify     check every stored program and chunk; drop damaged ones\n"
        "               (exit status 1 when something was damaged)\n"
        "  --evict N    evict least recently used entries until N remain\n"
        "  --clear      remove every entry; a damaged SyNAP cache file is deleted, but\n"
        "               nothing that is not recognisably a SyNAP cache\n"
        "options:\n"
        "  --path FILE  use this cache database instead\n"
        "  --program NAME  the Yocto per-program cache /tmp/synap-cache.NAME in the device root\n"
        "  --help       show this help\n";

struct Action {
    std::string name;
    uint64_t count = 0;
};

bool parseCount(const char* text, uint64_t* value) {
    if (text == nullptr || *text < '0' || *text > '9') return false;
    errno = 0;
    char* end = nullptr;
    const unsigned long long parsed = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') return false;
    *value = parsed;
    return true;
}

std::string formatTime(int64_t microseconds) {
    const std::time_t seconds = static_cast<std::time_t>(microseconds / 1000000);
    std::tm local{};
    localtime_r(&seconds, &local);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
    return text;
}

int usageError(const std::string& message) {
    std::fprintf(stderr, "synap_cache: %s\n%s", message.c_str(), kUsage);
    return 2;
}

void list(SynapCache& cache) {
    std::printf("%-32s  %10s  %6s  %s\n", "KEY", "SIZE", "HITS", "LAST USE");
    for (const auto& entry : cache.entries()) {
        std::printf("%-32s  %10llu  %6llu  %s\n", entry.key.c_str(), static_cast<unsigned long long>(entry.size),
                    static_cast<unsigned long long>(entry.hits), formatTime(entry.lastUseUs).c_str());
    }
}

void stats(SynapCache& cache) {
    const auto totals = cache.totals();
    const auto number = [](uint64_t value) { return static_cast<unsigned long long>(value); };
    std::printf("cache file:     %s\n", cache.file().c_str());
    std::printf("capacity:       %lld entries\n", static_cast<long long>(nnemu::props::SynapProperties::cacheCapacity()));
    std::printf("entries:        %llu\n", number(totals.entries));
    std::printf("programs:       %llu distinct\n", number(totals.programs));
    std::printf("chunks:         %llu distinct\n", number(totals.chunks));
    std::printf("entry bytes:    %llu (the programs of all entries, unshared)\n", number(totals.entryBytes));
    std::printf("stored bytes:   %llu (identical content kept once)\n", number(totals.storedBytes));
    std::printf("database bytes: %llu\n", number(totals.fileBytes));
    std::printf("hits:           %llu\n", number(totals.hits));
}

bool verify(SynapCache& cache) {
    const auto report = cache.verify();
    const auto number = [](uint64_t value) { return static_cast<unsigned long long>(value); };
    std::printf("database: %s\n", report.integrity.c_str());
    std::printf("verified %llu programs in %llu chunks: ", number(report.programs), number(report.chunks));
    const bool clean = report.integrity == "ok" && report.damagedPrograms == 0 && report.damagedChunks == 0 &&
                       report.mismatchedEntries == 0 && report.entriesDropped == 0;
    if (clean) {
        std::printf("all intact\n");
    } else {
        std::printf("%llu damaged programs, %llu damaged chunks, %llu entries not matching their key; "
                    "dropped %llu entries\n",
                    number(report.damagedPrograms), number(report.damagedChunks), number(report.mismatchedEntries),
                    number(report.entriesDropped));
    }
    return clean;
}

// A cache too damaged to open or clear can only be reset by deleting it (with its WAL files);
// whatever is not recognisably a SyNAP cache is refused, never deleted.
int removeDamaged(const std::string& file, const std::string& why) {
    if (const nnemu::Status removed = SynapCache::removeFile(file, nnemu::props::deviceRoot()); !removed) {
        std::fprintf(stderr, "synap_cache: cannot clear %s (%s): %s\n", file.c_str(), why.c_str(),
                     removed.message().c_str());
        return 1;
    }
    std::printf("removed the damaged cache %s (%s)\n", file.c_str(), why.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path;
    std::vector<Action> actions;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::printf("%s", kUsage);
            return 0;
        } else if (arg == "--path") {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') return usageError("--path needs a file");
            path = argv[++i];
        } else if (arg == "--program") {
            if (i + 1 >= argc || argv[i + 1][0] == '\0' || std::string(argv[i + 1]).find('/') != std::string::npos) {
                return usageError("--program needs a program name (no '/')");
            }
            path = nnemu::props::devicePath(nnemu::props::SynapProperties::yoctoCachePath(argv[++i]));
        } else if (arg == "--list" || arg == "--stats" || arg == "--verify" || arg == "--clear") {
            actions.push_back({arg});
        } else if (arg == "--evict") {
            Action action{arg};
            if (i + 1 >= argc || !parseCount(argv[i + 1], &action.count)) {
                return usageError("--evict needs a number of entries to keep");
            }
            ++i;
            actions.push_back(action);
        } else {
            return usageError("unknown argument '" + arg + "'");
        }
    }
    if (actions.empty()) actions.push_back({"--stats"});
    if (path.empty() && nnemu::props::isYocto() && std::getenv("SYNAP_CACHE_PATH") == nullptr) {
        return usageError("a Yocto board keeps one cache per program: name it with --program NAME (or --path)");
    }
    if (path.empty()) path = nnemu::props::SynapProperties::cacheFile();

    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
        std::printf("no SyNAP cache at %s (nothing compiled yet, or the cache is off)\n", path.c_str());
        return 0;
    }
    nnemu::Result<std::unique_ptr<SynapCache>> opened = SynapCache::open(path, false, nnemu::props::deviceRoot());
    if (!opened.isOk()) {
        for (const auto& action : actions) {
            if (action.name == "--clear") return removeDamaged(path, opened.message());
        }
        std::fprintf(stderr, "synap_cache: cannot use %s: %s\n", path.c_str(), opened.message().c_str());
        return 1;
    }
    std::unique_ptr<SynapCache> cache = std::move(opened).value();
    int status = 0;
    for (const auto& action : actions) {
        if (action.name == "--list") {
            list(*cache);
        } else if (action.name == "--stats") {
            stats(*cache);
        } else if (action.name == "--verify") {
            if (!verify(*cache)) status = 1;
        } else if (action.name == "--evict") {
            const uint64_t evicted = cache->evictTo(action.count);
            if (!cache->error().empty() && evicted == 0 && cache->entries().size() > action.count) {
                std::fprintf(stderr, "synap_cache: cannot evict: %s\n", cache->error().c_str());
                return 1;
            }
            std::printf("evicted %llu entries\n", static_cast<unsigned long long>(evicted));
        } else if (action.name == "--clear") {
            if (!cache->clear()) {
                const std::string why = cache->error();
                if (cache->errorIsDamage()) {
                    cache.reset();
                    return removeDamaged(path, why);
                }
                std::fprintf(stderr, "synap_cache: cannot clear: %s\n", why.c_str());
                return 1;
            }
            std::printf("cleared %s\n", path.c_str());
        }
    }
    return status;
}
