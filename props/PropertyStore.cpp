// The reading side of the property store: a per-process view of the property files that is
// re-validated at every call with one stat per file and re-parsed only when a file changed.
#include <time.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "PropertyFile.h"
#include "nnemu/base/Log.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

// A file whose mtime is this close to the moment it was read may still change without its
// signature changing (same size, coarse timestamps, a reused inode): such a file is re-read at
// every call until it has been quiet for this long. 2 s covers one-second timestamp granularity.
constexpr int64_t kRacyWindowNs = 2'000'000'000;

int64_t nowNs() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

class PropertyStore {
public:
    static PropertyStore& instance() {
        static PropertyStore store;
        return store;
    }

    // The effective value of `name` after every override; "" when unset.
    std::string lookup(std::string_view name) {
        std::lock_guard<std::mutex> lock(mutex_);
        refresh();
        auto it = merged_.find(std::string(name));
        return it == merged_.end() ? std::string() : it->second;
    }

    std::map<std::string, std::string> snapshot() {
        std::lock_guard<std::mutex> lock(mutex_);
        refresh();
        std::map<std::string, std::string> result;
        for (const auto& [name, value] : merged_) {
            if (!value.empty()) result.emplace(name, value);
        }
        return result;
    }

    // Warns once per (name, value), so a getter called at every inference does not flood the log.
    bool shouldWarn(std::string_view name, std::string_view value) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto [it, inserted] = warnedValues_.try_emplace(std::string(name), value);
        if (inserted) return true;
        if (it->second == value) return false;
        it->second = value;
        return true;
    }

private:
    struct CachedFile {
        std::string path;
        FileSignature signature;
        bool loaded = false;
        bool racy = false;
        std::string text;
        std::string error;
        std::vector<std::pair<std::string, std::string>> entries;
    };

    void refresh() {
        std::string root = deviceRoot();
        if (root != root_) {
            root_ = root;
            files_[0] = CachedFile{devicePath(kBuildPropPath), {}, false, false, {}, {}, {}};
            files_[1] = CachedFile{devicePath(kLocalPropPath), {}, false, false, {}, {}, {}};
        }
        bool changed = false;
        for (CachedFile& file : files_) changed |= reload(root_, file);
        if (!changed) return;
        merged_.clear();
        for (const CachedFile& file : files_) {
            for (const auto& [name, value] : file.entries) merged_[name] = value;
        }
    }

    // Returns whether the file's entries changed. Warnings come once per change of the file (its
    // text, or why it cannot be read), however often a racy file is re-read.
    static bool reload(const std::string& root, CachedFile& file) {
        if (file.loaded && !file.racy && statSignature(file.path) == file.signature) return false;
        Result<PropertyFileText> read = readPropertyFile(root, file.path);
        const bool readable = read.isOk();
        const std::string error = read.message();
        std::string text;
        FileSignature signature;
        if (readable) {
            text = std::move(read->text);
            signature = read->signature;
        } else {
            // Refused (a symlink, a FIFO, too large, no permission): the file counts as empty.
            signature = statSignature(file.path);
            if (error != file.error) {
                NN_LOG(WARNING) << "ignoring property file: " << error;
            }
        }
        file.error = readable ? std::string() : error;
        file.racy = signature.exists && nowNs() - signature.mtimeNs < kRacyWindowNs;
        file.signature = signature;
        if (file.loaded && text == file.text) return false;
        file.loaded = true;
        file.text = std::move(text);
        std::vector<std::string> problems;
        file.entries = parsePropertyText(file.text, file.path, &problems);
        for (const std::string& problem : problems) {
            NN_LOG(WARNING) << problem;
        }
        return true;
    }

    std::mutex mutex_;
    std::string root_;
    std::array<CachedFile, 2> files_;
    std::map<std::string, std::string> merged_;  // empty values mask earlier files
    std::map<std::string, std::string> warnedValues_;
};

}  // namespace

std::optional<std::string> get(std::string_view name) {
    if (!isValidName(name) || isYocto()) return std::nullopt;  // a Yocto board has no property service
    std::string value = PropertyStore::instance().lookup(name);
    if (value.empty()) return std::nullopt;
    return value;
}

std::string get(std::string_view name, std::string_view fallback) {
    std::optional<std::string> value = get(name);
    return value ? *value : std::string(fallback);
}

int64_t getInt(std::string_view name, int64_t fallback) {
    std::optional<std::string> value = get(name);
    if (!value) return fallback;
    // android::base::ParseInt: hexadecimal with a 0x prefix, decimal otherwise (no octal).
    const char* text = value->c_str();
    int base = (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ? 16 : 10;
    errno = 0;
    char* end = nullptr;
    long long parsed = std::strtoll(text, &end, base);
    const bool outOfRange = errno == ERANGE;
    if (!outOfRange && end != text && *end == '\0') return parsed;
    if (PropertyStore::instance().shouldWarn(name, *value)) {
        NN_LOG(WARNING) << "property " << name << "=" << *value
                        << (outOfRange ? " is out of range" : " is not an integer") << "; using " << fallback;
    }
    return fallback;
}

bool getBool(std::string_view name, bool fallback) {
    std::optional<std::string> value = get(name);
    if (!value) return fallback;
    if (*value == "1" || *value == "y" || *value == "yes" || *value == "on" || *value == "true") return true;
    if (*value == "0" || *value == "n" || *value == "no" || *value == "off" || *value == "false") return false;
    if (PropertyStore::instance().shouldWarn(name, *value)) {
        NN_LOG(WARNING) << "property " << name << "=" << *value
                        << " is not a boolean (1/y/yes/on/true or 0/n/no/off/false); using "
                        << (fallback ? "true" : "false");
    }
    return fallback;
}

std::map<std::string, std::string> all() {
    return isYocto() ? std::map<std::string, std::string>() : PropertyStore::instance().snapshot();
}

}  // namespace nnemu::props
