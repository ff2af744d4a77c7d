#include "CacheFile.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "nnemu/cache/SqliteDatabase.h"
#include "nnemu/base/RootedFile.h"

namespace nnemu::cache {
namespace {

namespace fs = std::filesystem;

constexpr size_t kSqliteHeaderSize = 100;
constexpr char kSqliteMagic[16] = "SQLite format 3";  // with its terminating zero
constexpr int kCreateTimeoutMs = 10000;

bool isBelow(const fs::path& path, const fs::path& root) {
    const fs::path relative = path.lexically_relative(root);
    return !relative.empty() && *relative.begin() != ".." && relative != ".";
}

// The path the kernel has for an open directory: symlinks resolved at the moment it was opened.
std::string pathOfDescriptor(int fd, const std::string& fallback) {
    char buffer[PATH_MAX];
    const ssize_t size = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buffer, sizeof buffer - 1);
    if (size > 0 && buffer[0] == '/') return std::string(buffer, static_cast<size_t>(size));
    std::error_code ec;
    const fs::path canonical = fs::canonical(fallback, ec);
    return ec ? std::string() : canonical.string();
}

int64_t bigEndian32(const uint8_t* at) {
    return static_cast<int32_t>((uint32_t{at[0]} << 24) | (uint32_t{at[1]} << 16) | (uint32_t{at[2]} << 8) | at[3]);
}

CacheFileHeader refused(CacheFileHeader::Kind kind, std::string why) {
    CacheFileHeader header;
    header.kind = kind;
    header.why = std::move(why);
    return header;
}

// Reads the header of the regular file open at `fd`.
CacheFileHeader readHeader(int fd) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) return refused(CacheFileHeader::Kind::UNREADABLE, std::strerror(errno));
    if (!S_ISREG(info.st_mode)) return refused(CacheFileHeader::Kind::NOT_A_CACHE, "the file is not a regular file");
    if (info.st_size == 0) return refused(CacheFileHeader::Kind::NOT_A_CACHE, "the file is empty, not a SyNAP cache");
    uint8_t bytes[kSqliteHeaderSize] = {};
    ssize_t got;
    while ((got = ::pread(fd, bytes, sizeof bytes, 0)) < 0 && errno == EINTR) {
    }
    if (got < 0) return refused(CacheFileHeader::Kind::UNREADABLE, std::strerror(errno));
    if (static_cast<size_t>(got) < sizeof bytes || std::memcmp(bytes, kSqliteMagic, sizeof kSqliteMagic) != 0) {
        return refused(CacheFileHeader::Kind::NOT_A_CACHE,
                       "the file is not a database (no SQLite header), so not a SyNAP cache");
    }
    const int64_t applicationId = bigEndian32(bytes + 68);
    if (applicationId != kApplicationId) {
        const std::string id = applicationId == 0 ? "" : " (application id " + std::to_string(applicationId) + ")";
        return refused(CacheFileHeader::Kind::NOT_A_CACHE,
                       "the file is an SQLite database of another program" + id + ", not a SyNAP cache");
    }
    CacheFileHeader header;
    header.kind = CacheFileHeader::Kind::SYNAP_CACHE;
    header.schemaVersion = bigEndian32(bytes + 60);
    header.wal = bytes[18] == 2 && bytes[19] == 2;
    header.device = info.st_dev;
    header.inode = info.st_ino;
    return header;
}

// Gives the private file its name unless something already has it (then that one stays).
Status placeFile(const CacheDirectory& directory, const std::string& temporary) {
    const int dir = directory.fd();
    if (::linkat(dir, temporary.c_str(), dir, directory.name().c_str(), 0) == 0 || errno == EEXIST) return {};
    // File systems without hard links may still rename without replacing.
    if (::renameat2(dir, temporary.c_str(), dir, directory.name().c_str(), RENAME_NOREPLACE) == 0 || errno == EEXIST) {
        return {};
    }
    return unavailable("cannot create " + directory.pathOf(directory.name()) + ": " + std::strerror(errno));
}

}  // namespace

CacheDirectory::~CacheDirectory() {
    if (fd_ >= 0) ::close(fd_);
}

Status CacheDirectory::open(const std::string& root, const std::string& file, Path resolve) {
    const fs::path path = fs::path(file).lexically_normal();
    name_ = path.filename().string();
    if (name_.empty() || name_ == "." || name_ == "..") return unavailable(file + " does not name a file");
    const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    const fs::path rootPath = fs::path(root).lexically_normal();
    if (!root.empty() && path.is_absolute() && isBelow(parent, rootPath)) {
        NNEMU_ASSIGN_OR_RETURN(fd_, base::openInsideRoot(root, parent.string(), O_RDONLY | O_DIRECTORY, 0, false));
    } else {
        fd_ = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ < 0) return unavailable(parent.string() + ": " + std::strerror(errno));
    }
    if (resolve == Path::kNone) return {};
    path_ = pathOfDescriptor(fd_, parent.string());
    if (path_.empty() || path_.find(" (deleted)") != std::string::npos) {
        return unavailable("cannot resolve the directory " + parent.string());
    }
    if (path_ == "/") path_.clear();
    return {};
}

CacheFileHeader inspectCacheFile(const CacheDirectory& directory) {
    const int fd = ::openat(directory.fd(), directory.name().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return {};
        if (errno == ELOOP) {
            return refused(CacheFileHeader::Kind::NOT_A_CACHE, "the file is a symbolic link; refusing to follow it");
        }
        return refused(CacheFileHeader::Kind::UNREADABLE, std::strerror(errno));
    }
    CacheFileHeader header = readHeader(fd);
    ::close(fd);
    return header;
}

bool stillNames(const CacheDirectory& directory, const CacheFileHeader& header) {
    struct stat info {};
    return ::fstatat(directory.fd(), directory.name().c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISREG(info.st_mode) && info.st_dev == header.device && info.st_ino == header.inode;
}

Status createCacheFile(const CacheDirectory& directory, const std::function<bool(SqliteDatabase&)>& initialize) {
    static std::atomic<unsigned> counter{0};
    std::string temporary;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temporary = "." + directory.name() + ".new-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        fd = ::openat(directory.fd(), temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return unavailable("cannot create a file in " + directory.pathOf("") + ": " + std::strerror(errno));
    ::close(fd);
    Status placed;
    {
        SqliteDatabase database;  // the only connection: closing it checkpoints and drops the WAL
        const bool built = database.open(directory.pathOf(temporary), kCreateTimeoutMs) && initialize(database) &&
                           database.execute("PRAGMA journal_mode=WAL");
        if (!built) {
            const std::string refusal = database.error().writeRefusal();  // e.g. no space left
            placed = unavailable("cannot create it: " + (refusal.empty() ? database.error().message : refusal));
        }
    }
    if (placed) placed = placeFile(directory, temporary);
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
        ::unlinkat(directory.fd(), (temporary + suffix).c_str(), 0);
    }
    return placed;
}

std::string fileSystemRefusal(int dirfd) {
    struct statvfs info {};
    if (dirfd < 0 || ::fstatvfs(dirfd, &info) != 0) return {};
    if (info.f_flag & ST_RDONLY) return std::strerror(EROFS);
    if (info.f_bavail == 0) return std::strerror(ENOSPC);
    return {};
}

Status removeCacheFile(const CacheDirectory& directory) {
    const CacheFileHeader header = inspectCacheFile(directory);
    if (header.kind == CacheFileHeader::Kind::MISSING) return {StatusCode::NOT_FOUND, "there is no file to remove"};
    if (header.kind != CacheFileHeader::Kind::SYNAP_CACHE) {
        return unavailable("refusing to delete it: " + header.why +
                           " (only a file whose header marks it as a SyNAP cache is deleted)");
    }
    if (!stillNames(directory, header)) return unavailable("the file changed while it was being checked");
    if (::unlinkat(directory.fd(), directory.name().c_str(), 0) != 0) {
        return unavailable(std::string("cannot remove it: ") + std::strerror(errno));
    }
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
        if (::unlinkat(directory.fd(), (directory.name() + suffix).c_str(), 0) != 0 && errno != ENOENT) {
            return unavailable("removed the database but not its " + std::string(suffix + 1) + " file: " +
                               std::strerror(errno));
        }
    }
    return {};
}

bool writeAll(int fd, std::span<const uint8_t> bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

bool replaceFile(int dir, const std::string& name, std::span<const uint8_t> bytes) {
    static std::atomic<unsigned> counter{0};
    const std::string temp = "." + name + "." + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".tmp";
    const int fd = ::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    const bool written = writeAll(fd, bytes);
    ::close(fd);
    if (written && ::renameat(dir, temp.c_str(), dir, name.c_str()) == 0) return true;
    ::unlinkat(dir, temp.c_str(), 0);
    return false;
}

void removeFilesMatching(int dir, const std::function<bool(const std::string&)>& matches) {
    const int listFd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* list = listFd >= 0 ? ::fdopendir(listFd) : nullptr;
    if (list == nullptr) {
        if (listFd >= 0) ::close(listFd);
        return;
    }
    while (const dirent* entry = ::readdir(list)) {
        if (matches(entry->d_name)) ::unlinkat(dir, entry->d_name, 0);
    }
    ::closedir(list);
}

}  // namespace nnemu::cache
