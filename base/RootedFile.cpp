#include "nnemu/base/RootedFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace nnemu::base {
namespace {

// The names of a path, without empty ones ("//") and ".".
std::vector<std::string> names(const std::string& path) {
    std::vector<std::string> result;
    size_t start = 0;
    while (start <= path.size()) {
        const size_t end = std::min(path.find('/', start), path.size());
        std::string name = path.substr(start, end - start);
        if (!name.empty() && name != ".") result.push_back(std::move(name));
        start = end + 1;
    }
    return result;
}

// The names of `path` below `root`, compared name by name (so "/tmp//r" and "/tmp/r/" agree).
std::vector<std::string> componentsBelow(const std::string& root, const std::string& path, std::string* error) {
    const std::vector<std::string> rootNames = names(root);
    std::vector<std::string> parts = names(path);
    errno = EINVAL;
    if (root.empty() || root.front() != '/' || path.empty() || path.front() != '/' ||
        parts.size() < rootNames.size() || !std::equal(rootNames.begin(), rootNames.end(), parts.begin())) {
        *error = path + " is not inside the device root " + root;
        return {};
    }
    parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(rootNames.size()));
    if (std::find(parts.begin(), parts.end(), "..") != parts.end()) {
        *error = path + " climbs out of the device root";
        return {};
    }
    if (parts.empty()) *error = path + " names the device root itself, not a file in it";
    return parts;
}

std::string refusal(const std::string& where, int err) {
    if (err == ELOOP || err == ENOTDIR) return where + " is a symbolic link or not a directory; refusing to follow it out of the device root";
    return where + ": " + std::strerror(err);
}

// Creates the device root the user named, and its missing parents, as `mkdir -p` would: the root
// and the path above it are the user's choice and resolve normally (mkdir never follows a link in
// the last place, so a dangling link named as the root is left alone and refused by the open).
void makeRoot(const std::string& root) {
    for (size_t slash = root.find('/', 1);; slash = root.find('/', slash + 1)) {
        const std::string prefix = root.substr(0, slash);
        if (!prefix.empty() && prefix.back() != '/') ::mkdir(prefix.c_str(), 0755);
        if (slash == std::string::npos) return;
    }
}

// Opens the directories from the root down to (not including) the last component.
int openParent(const std::string& root, const std::vector<std::string>& parts, bool makeParents, std::string* error) {
    int dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 && errno == ENOENT && makeParents) {
        makeRoot(root);
        dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (dir < 0) {
        *error = refusal(root, errno);
        return -1;
    }
    std::string where = root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        where += "/" + parts[i];
        if (makeParents && ::mkdirat(dir, parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
            *error = refusal(where, errno);
            ::close(dir);
            return -1;
        }
        const int next = ::openat(dir, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int err = errno;
        ::close(dir);
        if (next < 0) {
            *error = refusal(where, err);
            errno = err;
            return -1;
        }
        dir = next;
    }
    return dir;
}

}  // namespace

int openInsideRoot(const std::string& root, const std::string& path, int flags, mode_t mode, bool makeParents,
                   std::string* error) {
    std::string ignored;
    if (error == nullptr) error = &ignored;
    const std::vector<std::string> parts = componentsBelow(root, path, error);
    if (parts.empty()) return -1;
    const int dir = openParent(root, parts, makeParents, error);
    if (dir < 0) return -1;
    const int fd = ::openat(dir, parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
    const int err = errno;
    ::close(dir);
    if (fd < 0) {
        *error = refusal(path, err);
        errno = err;
    }
    return fd;
}

bool makeDirectoriesInsideRoot(const std::string& root, const std::string& directory, std::string* error) {
    std::string ignored;
    if (error == nullptr) error = &ignored;
    std::vector<std::string> parts = componentsBelow(root, directory, error);
    if (parts.empty()) return false;
    parts.emplace_back();  // openParent creates and enters every component before the last
    const int fd = openParent(root, parts, true, error);
    if (fd < 0) return false;
    ::close(fd);
    return true;
}

}  // namespace nnemu::base
