// The writing side of the property store (what setprop does): local.prop is rewritten whole under
// an exclusive flock, through a temp file in the same directory that is fsync'ed and renamed over
// it. Readers therefore see the old or the new file, never a torn one, and concurrent writers in
// other processes serialize on the lock, so no update is lost. The property directory is opened
// once through openInsideRoot; the lock, the temp file and local.prop are then opened relative to
// it with O_NOFOLLOW, so a symlink planted below the device root is refused, never followed.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "PropertyFile.h"
#include "nnemu/base/Log.h"
#include "nnemu/base/RootedFile.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

std::string errnoText(const std::string& what) { return what + ": " + std::strerror(errno); }

// Why opening `path` (the last component, with O_NOFOLLOW) to `what` it failed.
std::string openFailure(const std::string& what, const std::string& path, int err) {
    if (err == ELOOP) return path + " is a symbolic link; refusing to follow it out of the device root";
    return "cannot " + what + " " + path + ": " + std::strerror(err);
}

constexpr const char* kLocalPropName = "local.prop";
constexpr const char* kLockName = "local.prop.lock";

// Closes a descriptor (releasing any flock on it) when the writer returns, whatever the path.
class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return fd_; }
    int release() {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_;
};

bool writeAll(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t count = ::write(fd, data.data(), data.size());
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) return false;
        data.remove_prefix(static_cast<size_t>(count));
    }
    return true;
}

// The property directory, opened without following symlinks; every name below is relative to it.
struct PropertyDirectory {
    int fd;
    std::string path;
    std::string pathOf(const char* name) const { return path + "/" + name; }
};

// Whether an earlier property file (build.prop) gives `name` a value that an unset must mask.
bool definedBelowLocalProp(const std::string& root, std::string_view name) {
    const Result<PropertyFileText> file = readPropertyFile(root, devicePath(kBuildPropPath));
    if (!file.isOk()) return false;
    bool defined = false;
    for (const auto& [entryName, value] : parsePropertyText(file->text, "", nullptr)) {
        if (entryName == name) defined = !value.empty();
    }
    return defined;
}

// local.prop's new text: `name` set in place of its first line (later duplicates dropped), or
// appended; every other line (comments, unknown lines) kept as it was.
std::string updatedText(const std::string& root, std::string_view text, std::string_view name,
                        std::string_view value) {
    const std::string entry = std::string(name) + "=" + std::string(value) + "\n";
    std::string result;
    bool written = false;
    while (!text.empty()) {
        size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        PropertyLine parsed = parsePropertyLine(line);
        if (parsed.kind == PropertyLine::Kind::kEntry && parsed.name == name) {
            if (!written && !value.empty()) result += entry;
            written = true;
            continue;
        }
        result.append(line);
        result += '\n';
    }
    if (value.empty()) {
        // Unsetting: an empty entry is needed only to hide a build.prop default.
        if (definedBelowLocalProp(root, name)) result += entry;
    } else if (!written) {
        result += entry;
    }
    return result;
}

// Opens the lock file, creating it 0600 if missing. Only a file created here is chmod'ed: an
// existing one may be a hard link to a file elsewhere, which opening and flock leave untouched.
Result<int> openLock(const PropertyDirectory& directory) {
    const std::string path = directory.pathOf(kLockName);
    int err = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
        int fd = ::openat(directory.fd, kLockName, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ::fchmod(fd, 0600);  // the umask may have narrowed it
            return fd;
        }
        err = errno;
        if (err != EEXIST) break;
        fd = ::openat(directory.fd, kLockName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        err = errno;
        if (fd < 0 && err == ENOENT) continue;  // removed meanwhile: create it again
        if (fd < 0) break;
        struct stat info {};
        if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) return fd;
        ::close(fd);
        return unavailable(path + " is not a regular file; refusing to use it as the lock");
    }
    return unavailable(openFailure("open the lock file", path, err));
}

// local.prop's current text; a missing file is empty with exists=false.
Result<PropertyFileText> readLocalProp(const PropertyDirectory& directory) {
    const std::string path = directory.pathOf(kLocalPropName);
    Descriptor fd(::openat(directory.fd, kLocalPropName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        const int err = errno;
        if (err == ENOENT) return PropertyFileText{};
        return unavailable(openFailure("read", path, err));
    }
    return readPropertyDescriptor(fd.get(), path);
}

// A fresh file in the directory, created exclusively (never an existing name or a symlink).
struct TempFile {
    int fd;
    std::string name;
};
Result<TempFile> createTempFile(const PropertyDirectory& directory) {
    std::random_device device;
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[24];
        std::snprintf(suffix, sizeof suffix, "%08x%08x", device(), device());
        std::string name = std::string(".local.prop.") + suffix;
        const int fd =
            ::openat(directory.fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) return TempFile{fd, std::move(name)};
        if (errno != EEXIST) return unavailable(errnoText("cannot create a temporary file in " + directory.path));
    }
    return unavailable("cannot create a temporary file in " + directory.path + ": every name tried exists");
}

Status replaceFile(const PropertyDirectory& directory, std::string_view text) {
    NNEMU_ASSIGN_OR_RETURN(const TempFile created, createTempFile(directory));
    const std::string& temp = created.name;
    Descriptor fd(created.fd);
    // 0644 exactly, whatever the umask: every process of the user reads the board's properties.
    bool ok = writeAll(fd.get(), text) && ::fchmod(fd.get(), 0644) == 0 && ::fsync(fd.get()) == 0;
    int closeResult = ::close(fd.release());
    if (!ok || closeResult != 0) {
        std::string message = errnoText("cannot write " + directory.pathOf(temp.c_str()));
        ::unlinkat(directory.fd, temp.c_str(), 0);
        return unavailable(message);
    }
    // renameat replaces the name local.prop itself, never what a symlink there points to.
    if (::renameat(directory.fd, temp.c_str(), directory.fd, kLocalPropName) != 0) {
        std::string message = errnoText("cannot rename " + directory.pathOf(temp.c_str()) + " to " +
                                        directory.pathOf(kLocalPropName));
        ::unlinkat(directory.fd, temp.c_str(), 0);
        return unavailable(message);
    }
    // Make the rename itself durable; a file system that cannot sync directories is no error.
    ::fsync(directory.fd);
    return {};
}

}  // namespace

Status set(std::string_view name, std::string_view value) {
    NNEMU_RETURN_IF_ERROR(isValidName(name));
    NNEMU_RETURN_IF_ERROR(isValidValue(value));
    if (isYocto()) return unavailable(std::string(kNoPropertyService));

    const std::string root = deviceRoot();
    const std::string path = devicePath(kLocalPropPath);
    const std::string directoryPath = std::filesystem::path(path).parent_path().string();
    if (const Status made = base::makeDirectoriesInsideRoot(root, directoryPath); !made) {
        return unavailable("cannot create directory " + directoryPath + ": " + made.message());
    }
    const Result<int> opened = base::openInsideRoot(root, directoryPath, O_RDONLY | O_DIRECTORY, 0, false);
    if (!opened) return unavailable("cannot open directory " + directoryPath + ": " + opened.message());
    Descriptor directoryFd(*opened);
    const PropertyDirectory directory{directoryFd.get(), directoryPath};

    NNEMU_ASSIGN_OR_RETURN(const int lockFd, openLock(directory));
    Descriptor lock(lockFd);
    int locked;
    do {
        locked = ::flock(lock.get(), LOCK_EX);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0) return unavailable(errnoText("cannot lock " + directory.pathOf(kLockName)));

    NNEMU_ASSIGN_OR_RETURN(const PropertyFileText current, readLocalProp(directory));
    std::string updated = updatedText(root, current.text, name, value);
    if (current.signature.exists && updated == current.text) return {};
    if (static_cast<off_t>(updated.size()) > kMaxPropertyFileSize) {
        return unavailable(path + " would grow past the size a property file may have; not writing it");
    }
    NNEMU_RETURN_IF_ERROR(replaceFile(directory, updated));
    NN_LOG(VERBOSE) << "setprop " << name << "=" << value << " (" << path << ")";
    return {};
}

}  // namespace nnemu::props
