#include "GraphCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "nnemu/base/RootedFile.h"
#include "nnemu/cache/ModelCacheFile.h"
#include "nnemu/props/Properties.h"

namespace nnemu::vx {
namespace {

// Closes on scope exit.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

// The directory holding `path`, opened, and the file's name in it; -1 with `error`.
int openDirectory(const std::string& path, std::string* name, std::string* error) {
    const size_t slash = path.rfind('/');
    const std::string directory = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    *name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name->empty() || *name == "." || *name == "..") {
        *error = "it names no file";
        return -1;
    }
    const std::string root = props::deviceRoot();
    int fd = -1;
    if (!root.empty() && directory.rfind(root + "/", 0) == 0) {
        fd = base::openInsideRoot(root, directory, O_RDONLY | O_DIRECTORY, 0, false, error);
    } else if (directory == root) {
        fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd < 0 && error->empty()) *error = "cannot open its directory: " + std::string(std::strerror(errno));
    return fd;
}

// Opens the file itself, never through a symlink; -1 with errno.
int openFile(int directory, const std::string& name) {
    return openat(directory, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

std::string refused(const std::string& path, const std::string& why, bool replaced) {
    return "cache_file_path " + path + ": " + why + "; the graph compiles" +
           (replaced ? " and its program replaces the file." : ", the file is left untouched.");
}

// Whether the file at `name` may be replaced: absent, empty or written by nnemu.
bool replaceable(int directory, const std::string& name) {
    Fd file{openFile(directory, name)};
    if (file.fd < 0) return errno == ENOENT;
    struct stat info {};
    if (fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode)) return false;
    return info.st_size == 0 || cache::hasModelCacheMagic(file.fd);
}

}  // namespace

CachedGraph loadCachedGraph(const std::string& path, const GraphKey& key, uint32_t compilerVersion) {
    CachedGraph result;
    std::string name, error;
    Fd directory{openDirectory(path, &name, &error)};
    if (directory.fd < 0) {
        result.message = refused(path, error, false);
        return result;
    }
    Fd file{openFile(directory.fd, name)};
    if (file.fd < 0) {
        result.mayReplace = errno == ENOENT;
        if (!result.mayReplace) {
            result.message = refused(path, errno == ELOOP ? "a symbolic link is not followed"
                                                          : "cannot be read: " + std::string(std::strerror(errno)),
                                     false);
        }
        return result;
    }
    struct stat info {};
    if (fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        result.message = refused(path, "not a regular file", false);
        return result;
    }
    if (info.st_size == 0) {  // an empty file is a cache to fill (§6.1)
        result.mayReplace = true;
        return result;
    }
    if (!cache::hasModelCacheMagic(file.fd)) {
        result.message = refused(path, "not an nnemu compiled-graph cache file", false);
        return result;
    }
    result.mayReplace = true;
    if (!cache::readModelCacheFile(file.fd, key, compilerVersion, &result.program, &error)) {
        result.program.clear();
        if (error == "written for another cache token") error = "holds the compiled graph of another model";
        result.message = refused(path, error, true);
    }
    return result;
}

bool saveCachedGraph(const std::string& path, const GraphKey& key, uint32_t compilerVersion,
                     const std::vector<uint8_t>& program, std::string* error) {
    std::string name;
    Fd directory{openDirectory(path, &name, error)};
    if (directory.fd < 0) return false;
    const std::string temporary = "." + name + ".tmp" + std::to_string(getpid());
    unlinkat(directory.fd, temporary.c_str(), 0);  // a leftover of a crashed run of this pid
    Fd file{openat(directory.fd, temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
    if (file.fd < 0) {
        *error = "cannot create " + temporary + ": " + std::strerror(errno);
        return false;
    }
    bool ok = cache::writeModelCacheFile(file.fd, key, compilerVersion, program, error);
    // Checked again just before the rename: a file that appeared meanwhile and is not ours stays.
    if (ok && !replaceable(directory.fd, name)) {
        *error = "the file is no longer one nnemu may replace";
        ok = false;
    }
    if (ok && renameat(directory.fd, temporary.c_str(), directory.fd, name.c_str()) != 0) {
        *error = std::string("cannot rename the new file into place: ") + std::strerror(errno);
        ok = false;
    }
    if (!ok) {
        unlinkat(directory.fd, temporary.c_str(), 0);
        return false;
    }
    fsync(directory.fd);
    return true;
}

}  // namespace nnemu::vx
