// The device root: the host directory that stands for the emulated board's file system.
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
}

std::string homeDirectory() {
    std::string home = environment("HOME");
    if (!home.empty()) return home;
    // No $HOME (daemons, some CI runners): ask the password database.
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd* result = nullptr;
    if (getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &result) == 0 && result != nullptr &&
        result->pw_dir != nullptr) {
        return result->pw_dir;
    }
    return "/tmp";
}

std::string withoutTrailingSlashes(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return path;
}

// A relative $NNEMU_ROOT names a folder below the current directory. Every file under the root
// is opened by a walk from an absolute root (base/RootedFile.h), so it is made absolute here, once
// per value: a later chdir does not move the root.
std::string absoluteRoot(const std::string& root) {
    if (root.front() == '/') return root;
    static std::mutex mutex;
    static std::string relative, absolute;
    std::lock_guard lock(mutex);
    if (root != relative) {
        std::error_code ec;
        const std::filesystem::path resolved = std::filesystem::absolute(root, ec);
        if (ec) return root;  // no current directory: left relative, and refused where used
        relative = root;
        absolute = resolved.lexically_normal().string();
    }
    return absolute;
}

}  // namespace

std::string deviceRoot() {
    std::string root = environment("NNEMU_ROOT");
    if (!root.empty()) return withoutTrailingSlashes(absoluteRoot(root));
    // The XDG base directory spec says to ignore a relative XDG_STATE_HOME.
    std::string state = environment("XDG_STATE_HOME");
    if (state.empty() || state.front() != '/') state = homeDirectory() + "/.local/state";
    return withoutTrailingSlashes(state) + "/nnemu";
}

std::string devicePath(std::string_view androidPath) {
    // Normalizing an absolute path folds every leading ".." into "/", so the result stays inside.
    std::filesystem::path inside = std::filesystem::path("/" + std::string(androidPath)).lexically_normal();
    std::string relative = inside.relative_path().string();
    std::string root = deviceRoot();
    if (relative.empty()) return root;
    return (root == "/" ? "" : root) + "/" + relative;
}

}  // namespace nnemu::props
