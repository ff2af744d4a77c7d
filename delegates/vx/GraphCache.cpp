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

// The directory holding `path`, opened, and the file's name in it (set first).
Result<int> openDirectory(const std::string& path, std::string& name) {
    const size_t slash = path.rfind('/');
    const std::string directory = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..") return unavailable("it names no file");
    const std::string root = props::deviceRoot();
    if (!root.empty() && directory.rfind(root + "/", 0) == 0) {
        return base::openInsideRoot(root, directory, O_RDONLY | O_DIRECTORY, 0, false);
    }
    const int fd = open((directory == root ? root : directory).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return unavailable("cannot open its directory: " + std::string(std::strerror(errno)));
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
    std::string name;
    const Result<int> opened = openDirectory(path, name);
    if (!opened.isOk()) {
        result.message = refused(path, opened.message(), false);
        return result;
    }
    Fd directory{*opened};
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
    Result<std::vector<uint8_t>> read = cache::readModelCacheFile(file.fd, key, compilerVersion);
    if (read.isOk()) {
        result.program = std::move(read).value();
    } else {
        const std::string& error = read.message();
        result.message = refused(path,
                                 error == "written for another cache token" ? "holds the compiled graph of another model"
                                                                             : error,
                                 true);
    }
    return result;
}

Status saveCachedGraph(const std::string& path, const GraphKey& key, uint32_t compilerVersion,
                       const std::vector<uint8_t>& program) {
    std::string name;
    NNEMU_ASSIGN_OR_RETURN(const int opened, openDirectory(path, name));
    Fd directory{opened};
    const std::string temporary = "." + name + ".tmp" + std::to_string(getpid());
    unlinkat(directory.fd, temporary.c_str(), 0);  // a leftover of a crashed run of this pid
    Fd file{openat(directory.fd, temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
    if (file.fd < 0) return unavailable("cannot create " + temporary + ": " + std::strerror(errno));
    Status saved = cache::writeModelCacheFile(file.fd, key, compilerVersion, std::span<const uint8_t>(program));
    // Checked again just before the rename: a file that appeared meanwhile and is not ours stays.
    if (saved && !replaceable(directory.fd, name)) saved = unavailable("the file is no longer one nnemu may replace");
    if (saved && renameat(directory.fd, temporary.c_str(), directory.fd, name.c_str()) != 0) {
        saved = unavailable(std::string("cannot rename the new file into place: ") + std::strerror(errno));
    }
    if (!saved) {
        unlinkat(directory.fd, temporary.c_str(), 0);
        return saved;
    }
    fsync(directory.fd);
    return {};
}

}  // namespace nnemu::vx
