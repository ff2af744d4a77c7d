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

// A refusal saying why, with errno set to `err` for the caller (a missing file is often no error).
Status refused(std::string message, int err) {
    Status status(StatusCode::UNAVAILABLE, std::move(message));
    errno = err;
    return status;
}

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
Result<std::vector<std::string>> componentsBelow(const std::string& root, const std::string& path) {
    const std::vector<std::string> rootNames = names(root);
    std::vector<std::string> parts = names(path);
    if (root.empty() || root.front() != '/' || path.empty() || path.front() != '/' ||
        parts.size() < rootNames.size() || !std::equal(rootNames.begin(), rootNames.end(), parts.begin())) {
        return refused(path + " is not inside the device root " + root, EINVAL);
    }
    parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(rootNames.size()));
    if (std::find(parts.begin(), parts.end(), "..") != parts.end()) {
        return refused(path + " climbs out of the device root", EINVAL);
    }
    if (parts.empty()) return refused(path + " names the device root itself, not a file in it", EINVAL);
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
Result<int> openParent(const std::string& root, const std::vector<std::string>& parts, bool makeParents) {
    int dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 && errno == ENOENT && makeParents) {
        makeRoot(root);
        dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (dir < 0) return refused(refusal(root, errno), errno);
    std::string where = root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        where += "/" + parts[i];
        if (makeParents && ::mkdirat(dir, parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
            const int err = errno;
            ::close(dir);
            return refused(refusal(where, err), err);
        }
        const int next = ::openat(dir, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int err = errno;
        ::close(dir);
        if (next < 0) return refused(refusal(where, err), err);
        dir = next;
    }
    return dir;
}

}  // namespace

Result<int> openInsideRoot(const std::string& root, const std::string& path, int flags, mode_t mode,
                           bool makeParents) {
    NNEMU_ASSIGN_OR_RETURN(const std::vector<std::string> parts, componentsBelow(root, path));
    NNEMU_ASSIGN_OR_RETURN(const int dir, openParent(root, parts, makeParents));
    const int fd = ::openat(dir, parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
    const int err = errno;
    ::close(dir);
    if (fd < 0) return refused(refusal(path, err), err);
    return fd;
}

Status makeDirectoriesInsideRoot(const std::string& root, const std::string& directory) {
    NNEMU_ASSIGN_OR_RETURN(std::vector<std::string> parts, componentsBelow(root, directory));
    parts.emplace_back();  // openParent creates and enters every component before the last
    NNEMU_ASSIGN_OR_RETURN(const int fd, openParent(root, parts, true));
    ::close(fd);
    return {};
}

}  // namespace nnemu::base
