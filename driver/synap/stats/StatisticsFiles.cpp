#include "StatisticsFiles.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>  // renameat2
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <ctime>
#include <string_view>

#include "nnemu/base/RootedFile.h"

namespace nnemu::synap {
namespace {

// How far in the past backdatedTime() is.
constexpr time_t kBackdateSeconds = 10;
constexpr int kSpareFlags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;

bool writeAllAt(int fd, const std::string& text) {
    for (size_t done = 0; done < text.size();) {
        const ssize_t written = pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        done += static_cast<size_t>(written);
    }
    return true;
}

// A write lease is granted only when no other descriptor has the file open. Someone opening it
// while we hold the lease makes the kernel signal us, with SIGIO by default, which would end the
// process: the notice is sent as SIGURG (ignored by default). Releasing a lease resets the
// descriptor's signal to SIGIO, so it is set before each lease.
bool takeLease(int fd) { return fcntl(fd, F_SETSIG, SIGURG) == 0 && fcntl(fd, F_SETLEASE, F_WRLCK) == 0; }
void releaseLease(int fd) { fcntl(fd, F_SETLEASE, F_UNLCK); }

// The time set is the time stored (backdatedTime): no status to read back.
FileIdentity backdatedIdentity(ino_t inode, size_t size, time_t backdate) {
    return {static_cast<uint64_t>(inode), static_cast<int64_t>(size), static_cast<int64_t>(backdate), 0};
}

bool setTimes(int fd, time_t backdate) {
    if (backdate == 0) return true;
    const struct timespec times[2] = {{0, UTIME_OMIT}, {backdate, 0}};
    return futimens(fd, times) == 0;
}

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

}  // namespace

void Fd::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

FileIdentity identityOf(const struct stat& info) {
    return {static_cast<uint64_t>(info.st_ino), static_cast<int64_t>(info.st_size),
            static_cast<int64_t>(info.st_mtim.tv_sec), static_cast<int64_t>(info.st_mtim.tv_nsec)};
}

bool matches(const FileIdentity& identity, const struct stat& info) {
    const FileIdentity now = identityOf(info);
    return identity.inode == now.inode && identity.size == now.size && identity.mtimeSec == now.mtimeSec &&
           identity.mtimeNsec == now.mtimeNsec;
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
    return fd_.get();
}

// An even second with no fraction: what every file system stores exactly (FAT keeps even seconds),
// so the time set is the time a later look reads.
time_t backdatedTime() { return (std::time(nullptr) - kBackdateSeconds) & ~time_t{1}; }

void InPlaceFile::adopt(int fd) {
    drop();
    fd_.reset(fd);
    struct stat info {};
    if (fd < 0 || fstat(fd, &info) != 0) return fd_.reset();
    device_ = info.st_dev;
    inode_ = info.st_ino;
    owner_ = processId();
}

void InPlaceFile::drop() {
    fd_.reset();  // closing it ends any lease
    leased_ = false;
}

bool InPlaceFile::lease() {
    if (fd_.get() >= 0 && owner_ == processId() && takeLease(fd_.get())) return leased_ = true;
    drop();
    return false;
}

bool InPlaceFile::holds(const struct stat& named) const {
    return leased_ && S_ISREG(named.st_mode) && named.st_dev == device_ && named.st_ino == inode_ && named.st_nlink == 1;
}

FileIdentity InPlaceFile::identity(size_t size, time_t backdate) const { return backdatedIdentity(inode_, size, backdate); }

bool InPlaceFile::rewrite(const std::string& text, time_t backdate) {
    const bool written = writeAllAt(fd_.get(), text) && setTimes(fd_.get(), backdate);
    const int cause = errno;
    if (written) {
        release();
    } else {
        drop();  // what it holds is not known: the next update exchanges a new version in
    }
    errno = cause;
    return written;
}

void InPlaceFile::release() {
    if (leased_) releaseLease(fd_.get());
    leased_ = false;
}

Replacement::Replacement(int dir, const std::string& name, bool keepSpare)
    : dir_(dir), name_(name), temp_(spareName(name, processId())), keepSpare_(keepSpare) {}

Replacement::~Replacement() {
    if (ready_ && !committed_ && !keepSpare_) unlinkat(dir_, temp_.c_str(), 0);
}

std::string Replacement::spareName(const std::string& name, pid_t pid) {
    return "." + name + "." + std::to_string(pid) + ".tmp";
}

int Replacement::reuseSpare() {
    Fd fd(openat(dir_, temp_.c_str(), kSpareFlags));
    if (fd.get() < 0 && errno == EACCES) {  // a read-only version (network_profile): make it writable
        Fd readOnly(openat(dir_, temp_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        struct stat info {};
        if (readOnly.get() >= 0 && fstat(readOnly.get(), &info) == 0 && S_ISREG(info.st_mode) &&
            fchmod(readOnly.get(), (info.st_mode & 07777) | S_IWUSR) == 0) {
            fd.reset(openat(dir_, temp_.c_str(), kSpareFlags));
        }
    }
    if (fd.get() < 0 && errno == ENOENT) return -1;
    // A reader still holding the version it was, or another name for it, forbids rewriting it.
    struct stat& info = spare_;
    if (fd.get() < 0 || fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_nlink != 1 ||
        !takeLease(fd.get())) {
        unlinkat(dir_, temp_.c_str(), 0);
        return -1;
    }
    return fd.release();  // the caller releases the lease once the new version is written
}

int Replacement::createSpare(mode_t mode) {
    const int flags = kSpareFlags | O_CREAT | O_EXCL;
    int fd = openat(dir_, temp_.c_str(), flags, mode);
    if (fd < 0 && errno == EEXIST && unlinkat(dir_, temp_.c_str(), 0) == 0) {
        fd = openat(dir_, temp_.c_str(), flags, mode);  // left by a crashed process that had our pid
    }
    return fd;
}

bool Replacement::prepare(const std::string& text, mode_t mode, time_t backdate, FileIdentity* identity) {
    const int reused = keepSpare_ ? reuseSpare() : -1;
    file_.reset(reused);
    struct stat info = spare_;  // a reused spare's, checked under the lease; a new file's is read
    if (file_.get() < 0) file_.reset(createSpare(mode));
    if (file_.get() < 0) return false;
    ready_ = true;  // from here the name holds something of ours
    const int fd = file_.get();
    const bool written =
            (fd == reused || fstat(fd, &info) == 0) && writeAllAt(fd, text) &&
            (info.st_size <= static_cast<off_t>(text.size()) || ftruncate(fd, static_cast<off_t>(text.size())) == 0) &&
            ((mode & S_IWUSR) || !(info.st_mode & S_IWUSR) || fchmod(fd, info.st_mode & 07777 & ~0222) == 0) &&
            setTimes(fd, backdate);
    const int cause = errno;
    if (fd == reused) releaseLease(fd);  // written whole: whoever opens the spare now sees this version
    errno = cause;
    if (!written) return false;
    if (identity == nullptr) return true;
    if (backdate == 0) {
        if (fstat(fd, &info) != 0) return false;
        *identity = identityOf(info);
        return true;
    }
    *identity = backdatedIdentity(info.st_ino, text.size(), backdate);
    return true;
}

bool Replacement::commit() {
    if (!ready_) return false;
    if (renameat2(dir_, temp_.c_str(), dir_, name_.c_str(), RENAME_EXCHANGE) == 0) {
        if (!keepSpare_) unlinkat(dir_, temp_.c_str(), 0);  // the previous version
    } else if (renameat(dir_, temp_.c_str(), dir_, name_.c_str()) != 0) {  // no previous version, or no exchange here
        return false;
    }
    committed_ = true;
    return true;
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
