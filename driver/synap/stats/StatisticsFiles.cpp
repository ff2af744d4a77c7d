#include "StatisticsFiles.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "MappedGuard.h"
#include "StatisticsView.h"
#include "nnemu/base/RootedFile.h"

namespace nnemu::synap {
namespace {

constexpr size_t kPage = 4096;

bool writeAllAt(int fd, std::string_view text) {
    for (size_t done = 0; done < text.size();) {
        const ssize_t written = pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        done += static_cast<size_t>(written);
    }
    return true;
}

std::string spareName(const char* name, pid_t pid) { return "." + std::string(name) + "." + std::to_string(pid) + ".tmp"; }

// The pid in a spare's name (".<name>.<pid>.tmp"), or 0.
pid_t spareOwner(std::string_view name) {
    constexpr std::string_view kSuffix = ".tmp";
    if (name.size() < 2 || name[0] != '.' || !name.ends_with(kSuffix)) return 0;
    name.remove_suffix(kSuffix.size());
    const size_t dot = name.rfind('.');
    if (dot == 0 || dot == std::string_view::npos) return 0;
    pid_t pid = 0;
    const auto [end, error] = std::from_chars(name.data() + dot + 1, name.data() + name.size(), pid);
    return error == std::errc() && end == name.data() + name.size() && pid > 0 ? pid : 0;
}

// Index of a visible file's name, -1 for `.state`, -2 for anything else.
int fileIndex(const char* name) {
    for (int file = 0; file < 4; ++file) {
        if (std::strcmp(name, kFiles[file].name) == 0) return file;
    }
    return std::strcmp(name, ".state") == 0 ? -1 : -2;
}

// A guarded access that was cut short: EFAULT tells it from a refusal of the file system.
bool faulted() {
    errno = EFAULT;
    return false;
}

}  // namespace

void Fd::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

Result<int> RootedDirectory::get() {
    struct stat named {};
    if (fd_.get() >= 0 && fstatat(AT_FDCWD, path_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        named.st_dev == device_ && named.st_ino == inode_) {
        return fd_.get();
    }
    fd_.reset();
    NNEMU_RETURN_IF_ERROR(base::makeDirectoriesInsideRoot(root_, path_));
    NNEMU_ASSIGN_OR_RETURN(const int opened, base::openInsideRoot(root_, path_, O_RDONLY | O_DIRECTORY, 0, false));
    fd_.reset(opened);
    struct stat held {};
    if (fstat(fd_.get(), &held) != 0) {
        const int err = errno;
        fd_.reset();
        errno = err;
        return Status(StatusCode::UNAVAILABLE, {});
    }
    device_ = held.st_dev;
    inode_ = held.st_ino;
    ++generation_;
    return fd_.get();
}

bool replaceFile(int dir, const char* name, std::string_view text, mode_t mode) {
    const std::string temp = spareName(name, processId());
    const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    Fd fd(openat(dir, temp.c_str(), flags, mode));
    if (fd.get() < 0 && errno == EEXIST && unlinkat(dir, temp.c_str(), 0) == 0) {
        fd.reset(openat(dir, temp.c_str(), flags, mode));  // left by a crashed process that had our pid
    }
    if (fd.get() < 0) return false;
    if (!writeAllAt(fd.get(), text) || renameat(dir, temp.c_str(), dir, name) != 0) {
        const int cause = errno;
        unlinkat(dir, temp.c_str(), 0);
        errno = cause;
        return false;
    }
    return true;
}

void PublishedFile::close() {
    if (map_ != nullptr && owner_ == processId()) munmap(map_, mapped_);
    map_ = nullptr;
    mapped_ = size_ = 0;
    fd_.reset();
}

bool PublishedFile::open(int dir, const char* name, mode_t mode) {
    close();
    constexpr int kFlags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    Fd fd(openat(dir, name, kFlags));
    if (fd.get() < 0 && errno == EACCES && !(mode & S_IWUSR)) {  // network_profile, 0444 like the kernel's
        Fd readOnly(openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        struct stat info {};
        if (readOnly.get() >= 0 && fstat(readOnly.get(), &info) == 0 && S_ISREG(info.st_mode) && info.st_nlink == 1 &&
            fchmod(readOnly.get(), (info.st_mode & 07777) | S_IWUSR) == 0) {
            fd.reset(openat(dir, name, kFlags));
            fchmod(readOnly.get(), info.st_mode & 07777);
            struct stat opened {};
            if (fd.get() >= 0 && (fstat(fd.get(), &opened) != 0 || opened.st_ino != info.st_ino)) fd.reset();
        }
    }
    struct stat info {};
    if (fd.get() < 0 || fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_nlink != 1) return false;
    fd_.reset(fd.release());
    size_ = static_cast<size_t>(info.st_size);
    device_ = info.st_dev;
    inode_ = info.st_ino;
    owner_ = processId();
    if (!remap(size_)) {
        close();
        return false;
    }
    return true;
}

bool PublishedFile::remap(size_t bytes) {
    if (map_ != nullptr) munmap(map_, mapped_);
    map_ = nullptr;
    const size_t size = std::max(kPage, (bytes + kPage - 1) & ~(kPage - 1));
    void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
    if (map == MAP_FAILED) return false;
    map_ = static_cast<char*>(map);
    mapped_ = size;
    return true;
}

bool PublishedFile::sameFile(const struct stat& named) const {
    return map_ != nullptr && owner_ == processId() && S_ISREG(named.st_mode) && named.st_dev == device_ &&
           named.st_ino == inode_;
}

bool PublishedFile::refreshSize() {
    struct stat info {};
    if (fstat(fd_.get(), &info) != 0) return false;
    size_ = static_cast<size_t>(info.st_size);
    return true;
}

bool PublishedFile::read(std::string* text) const {
    const size_t size = std::min(size_, mapped_);
    text->resize(size);
    if (size == 0) return true;
    return guarded([&] { std::memcpy(text->data(), map_, size); }) || faulted();
}

bool PublishedFile::write(std::string_view text, bool resize) {
    if (text.size() != size_) {
        if (!resize) {
            errno = 0;
            return false;
        }
        if (text.size() > mapped_ && !remap(text.size())) return false;
        // Extended first, or cut after: the mapping is never touched past the file's end.
        // The new tail written, so that a full file system says so here, not with a SIGBUS. Written
        // rather than allocated (fallocate): ext4 gives written bytes their block at writeback,
        // so the cut that takes a process's line away again at its exit frees nothing, where
        // freeing an allocated block took 2-4 ms (a disk mounted with discard).
        if (text.size() > size_) {
            const size_t tail = text.size() - size_;
            const ssize_t wrote = pwrite(fd_.get(), text.data() + size_, tail, static_cast<off_t>(size_));
            if (wrote != static_cast<ssize_t>(tail)) {
                if (wrote >= 0) errno = ENOSPC;
                return false;
            }
        }
        if (!text.empty() && !guarded([&] { std::memcpy(map_, text.data(), text.size()); })) return faulted();
        if (text.size() < size_ && ftruncate(fd_.get(), static_cast<off_t>(text.size())) != 0) return false;
        size_ = text.size();
        return true;
    }
    if (text.empty()) return true;  // an empty file has no page to touch
    const bool stored = guarded([&] {
        if (text.size() <= 8) {
            // One aligned store: the bytes past the end of the text are past the file's end too.
            uint64_t word = 0;
            std::memcpy(&word, text.data(), text.size());
            std::atomic_ref<uint64_t> stored(*reinterpret_cast<uint64_t*>(map_));
            if (stored.load(std::memory_order_relaxed) != word) stored.store(word, std::memory_order_relaxed);
        } else if (std::memcmp(map_, text.data(), text.size()) != 0) {
            std::memcpy(map_, text.data(), text.size());
        }
    });
    return stored || faulted();
}

bool FolderWatch::start(const std::string& root, const std::string& path, int dir) {
    stop();
    if (path.size() <= root.size() || path.compare(0, root.size(), root) != 0 || path[root.size()] != '/') return false;
    fd_.reset(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (fd_.get() < 0) return false;
    broken_ = false;
    owner_ = processId();
    constexpr uint32_t kAbove = IN_ONLYDIR | IN_DONT_FOLLOW | IN_MOVE_SELF | IN_DELETE_SELF | IN_CREATE | IN_DELETE |
                                IN_MOVED_FROM | IN_MOVED_TO;
    std::string above = root;
    for (size_t start = root.size() + 1; start < path.size();) {
        size_t end = path.find('/', start);
        if (end == std::string::npos) end = path.size();
        const int watch = inotify_add_watch(fd_.get(), above.c_str(), kAbove);
        if (watch < 0) return stop(), false;
        above_.emplace_back(watch, path.substr(start, end - start));
        above += "/" + path.substr(start, end - start);
        start = end + 1;
    }
    // The folder held open, whatever the path names by now.
    const std::string held = "/proc/self/fd/" + std::to_string(dir);
    folder_ = inotify_add_watch(fd_.get(), held.c_str(),
                                IN_ONLYDIR | IN_MOVE_SELF | IN_DELETE_SELF | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                        IN_MOVED_TO | IN_MODIFY | IN_ATTRIB);
    if (folder_ < 0) return stop(), false;
    return true;
}

void FolderWatch::stop() {
    fd_.reset();
    above_.clear();
    folder_ = -1;
}

FolderEvents FolderWatch::poll() {
    FolderEvents events;
    if (!active() || owner_ != processId()) {
        events.look = true;
        return events;
    }
    alignas(inotify_event) char buffer[sizeof(inotify_event) + NAME_MAX + 1 + 4096];
    for (;;) {
        const ssize_t bytes = ::read(fd_.get(), buffer, sizeof buffer);
        if (bytes < 0 && errno == EINTR) continue;
        if (bytes <= 0) {
            if (bytes < 0 && errno != EAGAIN) events.look = true;
            break;
        }
        for (ssize_t at = 0; at < bytes;) {
            const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
            at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            const char* name = event->len > 0 ? event->name : "";
            if (event->mask & (IN_Q_OVERFLOW | IN_IGNORED | IN_MOVE_SELF | IN_DELETE_SELF | IN_UNMOUNT)) {
                events.look = true;
                broken_ = true;
            } else if (event->wd == folder_) {
                const int file = fileIndex(name);
                if (file >= 0 && (event->mask & IN_MODIFY)) {
                    events.resized[file] = true;
                } else if (file != -2) {
                    events.look = true;
                }
            } else {
                for (const auto& [watch, next] : above_) events.look |= watch == event->wd && next == name;
            }
        }
    }
    return events;
}

void removeSpares(int dir, pid_t owner) {
    const int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // its own offset, unlike a dup
    DIR* listing = fd >= 0 ? fdopendir(fd) : nullptr;
    if (listing == nullptr) {
        if (fd >= 0) ::close(fd);
        return;
    }
    while (const dirent* entry = readdir(listing)) {
        const pid_t pid = spareOwner(entry->d_name);
        if (pid == 0) continue;
        if (owner != 0 ? pid == owner : (pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH)) {
            unlinkat(dir, entry->d_name, 0);
        }
    }
    closedir(listing);
}

}  // namespace nnemu::synap
