// nnemu-sysfs: mounts a FUSE view over the statistics folder of the device root. Every name
// passes through to the folder underneath (held open from before the mount), so the driver
// keeps its record, spares and layer tables there exactly as without the view; but the four
// visible files are sysfs-like: a read computes their text from the shared record (a pending
// reset, dead processes and networks of another boot already applied), and a write to
// inference_count or inference_time resets the counters at once, with no process alive.
//
// A reset is made in the shared record itself (StatisticsState.h), under the driver's lock:
// reads see it immediately; the driver's next update rewrites the files underneath, and after an
// unmount the plain files show it at the next start-up of any process loading the library.
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <fcntl.h>
#include <fuse.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <mutex>
#include <thread>

#include "StatisticsFiles.h"
#include "StatisticsState.h"
#include "StatisticsView.h"
#include "nnemu/base/RootedFile.h"
#include "nnemu/props/Properties.h"

namespace {

using namespace nnemu::synap;

constexpr long kFuseSuperMagic = 0x65735546;
constexpr const char* kUsage =
        "usage: nnemu-sysfs [-f]\n"
        "Mounts a sysfs-like view over the synap statistics folder of the device root ($NNEMU_ROOT;\n"
        "the folder of NNEMU_BOARD's board): reads are computed from the shared counters, a write\n"
        "to inference_count or inference_time resets them. -f stays in the foreground.\n"
        "Unmount with: fusermount3 -u <folder>\n";

int gBacking = -1;  // the folder underneath the mount

// An open file: a descriptor of the underlying file, or (fd -1) one of the four view files.
struct Handle {
    int fd = -1;
    int file = -1;
    std::string text;
    bool rendered = false;
};

Handle* handleOf(const fuse_file_info* fi) { return fi == nullptr ? nullptr : reinterpret_cast<Handle*>(fi->fh); }

std::string relative(const char* path) { return path[1] == '\0' ? "." : path + 1; }

// Index of a view file ("/inference_count" ...), or -1.
int viewFile(const char* path) {
    for (int i = 0; i < 4; ++i) {
        if (path[0] == '/' && std::strcmp(path + 1, kFiles[i].name) == 0) return i;
    }
    return -1;
}

int result(int value) { return value < 0 ? -errno : value; }

std::mutex gStateMutex;  // FUSE's threads take turns with the shared record
StateMap gState;

// Runs `use` on the shared record under its lock (the driver's lock, a word of the mapped
// `.state`); what `use` changes is stored back when it returns true. False when there is no
// usable record (none yet, or damaged: the driver rebuilds it at its next update).
template <typename Use>
bool withRecord(Use&& use) {
    std::lock_guard guard(gStateMutex);
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (!gState.current(gBacking) && !gState.open(gBacking, "statistics")) return false;
        // The driver's lock word, and flock(2) for the driver working through this view (it
        // cannot map the record: its pages through FUSE are not the file's underneath).
        const bool flocked = flock(gState.fd(), LOCK_EX) == 0;
        const StateMap::Locked locked = gState.lock();
        if (locked == StateMap::Locked::FAULT) {  // cut under us: open it again
            if (flocked) flock(gState.fd(), LOCK_UN);
            gState.close();
            continue;
        }
        StateRecord record{};
        const bool usable = gState.load(&record) && stateDamage(record).empty();
        const bool stored = usable && (!use(record) || gState.store(record));
        gState.unlock();
        if (flocked) flock(gState.fd(), LOCK_UN);
        if (usable && stored) return true;
        if (usable) {
            gState.close();
            continue;
        }
        return false;
    }
    return false;
}

// The files' texts as the driver would publish them now.
void render(std::string texts[4]) {
    StateRecord record{};
    initializeState(&record);
    withRecord([&](StateRecord& stored) {
        record = stored;
        return false;
    });
    const bool otherBoot = std::strncmp(record.bootId, currentBootId().c_str(), sizeof record.bootId) != 0;
    for (StateSlot& slot : record.slots) {
        if (slot.pid > 0 && (otherBoot || (kill(slot.pid, 0) != 0 && errno == ESRCH))) slot = StateSlot{};
    }
    Fd profiles(openat(gBacking, kProfilesName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    renderStatistics(record, profiles.get(), texts);
}

// A write to inference_count or inference_time: the counters are reset in the shared record, so
// every reader and the driver's next update (which rewrites the files underneath) see it.
int reset() {
    withRecord([](StateRecord& record) {
        resetCounters(&record);
        return true;
    });
    return 0;
}

void* init(fuse_conn_info*, fuse_config* config) {
    config->use_ino = 1;  // the driver compares inode numbers
    config->entry_timeout = config->attr_timeout = config->negative_timeout = 0;
    config->direct_io = 1;  // no page cache: every process sees every write at once
    config->hard_remove = 1;
    return nullptr;
}

int getattr(const char* path, struct stat* info, fuse_file_info* fi) {
    if (Handle* handle = handleOf(fi); handle != nullptr && handle->fd >= 0) return result(fstat(handle->fd, info));
    if (fstatat(gBacking, relative(path).c_str(), info, AT_SYMLINK_NOFOLLOW) == 0) return 0;
    const int file = viewFile(path);
    if (file < 0) return -errno;
    *info = {};  // sysfs always has them, published or not
    info->st_mode = S_IFREG | kFiles[file].mode;
    info->st_nlink = 1;
    info->st_uid = getuid();
    info->st_gid = getgid();
    info->st_size = 4096;
    return 0;
}

int readlink(const char* path, char* buffer, size_t size) {
    const ssize_t length = readlinkat(gBacking, relative(path).c_str(), buffer, size - 1);
    if (length < 0) return -errno;
    buffer[length] = '\0';
    return 0;
}

int mkdir(const char* path, mode_t mode) { return result(mkdirat(gBacking, relative(path).c_str(), mode)); }
int unlink(const char* path) { return result(unlinkat(gBacking, relative(path).c_str(), 0)); }
int rmdir(const char* path) { return result(unlinkat(gBacking, relative(path).c_str(), AT_REMOVEDIR)); }
int symlink(const char* target, const char* path) { return result(symlinkat(target, gBacking, relative(path).c_str())); }

int rename(const char* from, const char* to, unsigned int flags) {
    return result(renameat2(gBacking, relative(from).c_str(), gBacking, relative(to).c_str(), flags));
}

int link(const char* from, const char* to) {
    return result(linkat(gBacking, relative(from).c_str(), gBacking, relative(to).c_str(), 0));
}

int chmod(const char* path, mode_t mode, fuse_file_info* fi) {
    if (Handle* handle = handleOf(fi); handle != nullptr && handle->fd >= 0) return result(fchmod(handle->fd, mode));
    return result(fchmodat(gBacking, relative(path).c_str(), mode, 0));
}

int truncate(const char* path, off_t size, fuse_file_info* fi) {
    if (Handle* handle = handleOf(fi); handle != nullptr && handle->fd >= 0) return result(ftruncate(handle->fd, size));
    if (viewFile(path) >= 0) return 0;  // as on sysfs, only a write stores anything
    Fd fd(openat(gBacking, relative(path).c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    return fd.get() < 0 ? -errno : result(ftruncate(fd.get(), size));
}

int utimens(const char* path, const timespec times[2], fuse_file_info* fi) {
    if (Handle* handle = handleOf(fi); handle != nullptr && handle->fd >= 0) return result(futimens(handle->fd, times));
    return result(utimensat(gBacking, relative(path).c_str(), times, AT_SYMLINK_NOFOLLOW));
}

int openFile(const char* path, fuse_file_info* fi, bool create, mode_t mode) {
    auto* handle = new Handle();
    const int file = viewFile(path);
    if (file >= 0 && !create) {
        if ((fi->flags & O_ACCMODE) != O_RDONLY && file == PROFILE) {
            delete handle;
            return -EACCES;
        }
        handle->file = file;
    } else {
        const int flags = (fi->flags & ~O_NOCTTY) | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0);
        handle->fd = openat(gBacking, relative(path).c_str(), flags, mode);
        if (handle->fd < 0) {
            const int error = errno;
            delete handle;
            return -error;
        }
    }
    fi->fh = reinterpret_cast<uint64_t>(handle);
    fi->direct_io = 1;
    return 0;
}

int open(const char* path, fuse_file_info* fi) { return openFile(path, fi, false, 0); }
int create(const char* path, mode_t mode, fuse_file_info* fi) { return openFile(path, fi, viewFile(path) < 0, mode); }

int read(const char*, char* buffer, size_t size, off_t offset, fuse_file_info* fi) {
    Handle* handle = handleOf(fi);
    if (handle->fd >= 0) return result(static_cast<int>(pread(handle->fd, buffer, size, offset)));
    if (!handle->rendered || offset == 0) {  // like sysfs: the text of the first read, kept per open file
        std::string texts[4];
        render(texts);
        handle->text = texts[handle->file];
        handle->rendered = true;
    }
    if (offset >= static_cast<off_t>(handle->text.size())) return 0;
    const size_t bytes = std::min(size, handle->text.size() - static_cast<size_t>(offset));
    std::memcpy(buffer, handle->text.data() + offset, bytes);
    return static_cast<int>(bytes);
}

int write(const char*, const char* buffer, size_t size, off_t offset, fuse_file_info* fi) {
    Handle* handle = handleOf(fi);
    if (handle->fd >= 0) return result(static_cast<int>(pwrite(handle->fd, buffer, size, offset)));
    if (handle->file == COUNT || handle->file == TIME) {
        if (const int error = reset(); error != 0) return error;
    }
    return static_cast<int>(size);  // networks: accepted, as the kernel's (a window it does not emulate)
}

int flock(const char*, fuse_file_info* fi, int operation) {
    Handle* handle = handleOf(fi);
    return handle->fd >= 0 ? result(::flock(handle->fd, operation)) : 0;
}

int fsync(const char*, int dataOnly, fuse_file_info* fi) {
    Handle* handle = handleOf(fi);
    if (handle->fd < 0) return 0;
    return result(dataOnly ? fdatasync(handle->fd) : ::fsync(handle->fd));
}

int release(const char*, fuse_file_info* fi) {
    Handle* handle = handleOf(fi);
    if (handle->fd >= 0) ::close(handle->fd);
    delete handle;
    return 0;
}

int readdir(const char* path, void* buffer, fuse_fill_dir_t fill, off_t, fuse_file_info*, fuse_readdir_flags) {
    const int fd = openat(gBacking, relative(path).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR* listing = fd >= 0 ? fdopendir(fd) : nullptr;
    if (listing == nullptr) {
        const int error = errno;
        if (fd >= 0) ::close(fd);
        return -error;
    }
    bool seen[4] = {};
    while (const dirent* entry = ::readdir(listing)) {
        for (int i = 0; i < 4; ++i) seen[i] = seen[i] || std::strcmp(entry->d_name, kFiles[i].name) == 0;
        fill(buffer, entry->d_name, nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
    }
    closedir(listing);
    for (int i = 0; i < 4 && std::strcmp(path, "/") == 0; ++i) {
        if (!seen[i]) fill(buffer, kFiles[i].name, nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
    }
    return 0;
}

int statfs(const char*, struct statvfs* info) { return result(fstatvfs(gBacking, info)); }

fuse_operations operations() {
    fuse_operations ops{};
    ops.init = init;
    ops.getattr = getattr;
    ops.readlink = readlink;
    ops.mkdir = mkdir;
    ops.unlink = unlink;
    ops.rmdir = rmdir;
    ops.symlink = symlink;
    ops.rename = rename;
    ops.link = link;
    ops.chmod = chmod;
    ops.truncate = truncate;
    ops.utimens = utimens;
    ops.open = open;
    ops.create = create;
    ops.read = read;
    ops.write = write;
    ops.flock = flock;
    ops.fsync = fsync;
    ops.release = release;
    ops.readdir = readdir;
    ops.statfs = statfs;
    return ops;
}

}  // namespace

int main(int argc, char** argv) {
    bool foreground = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::printf("%s", kUsage);
            return 0;
        }
        if (arg != "-f") {
            std::fprintf(stderr, "nnemu-sysfs: unknown argument '%s'\n%s", argv[i], kUsage);
            return 2;
        }
        foreground = true;
    }
    const std::string root = nnemu::props::deviceRoot();
    const std::string folder = statisticsDir();
    const nnemu::Status made = nnemu::base::makeDirectoriesInsideRoot(root, folder);
    const nnemu::Result<int> backing =
            made ? nnemu::base::openInsideRoot(root, folder, O_RDONLY | O_DIRECTORY, 0, false) : nnemu::Result<int>(made);
    if (!backing.isOk()) {
        std::fprintf(stderr, "nnemu-sysfs: cannot open %s: %s\n", folder.c_str(), backing.message().c_str());
        return 1;
    }
    gBacking = *backing;
    struct statfs mounted {};
    if (fstatfs(gBacking, &mounted) == 0 && mounted.f_type == kFuseSuperMagic) {
        std::fprintf(stderr, "nnemu-sysfs: %s is already a FUSE mount (fusermount3 -u it first)\n", folder.c_str());
        return 1;
    }
    // The view shows the four files even before any NPU work; a record to go with them keeps the
    // driver from taking their presence for a lost record (and warning) on a fresh root.
    if (gState.open(gBacking, folder) && gState.lock() != StateMap::Locked::FAULT) {
        StateRecord record{};
        if (gState.takeOpenDamage() == kStateMissing && gState.load(&record) && !stateDamage(record).empty()) {
            initializeState(&record);
            gState.store(record);
        }
        gState.unlock();
    }
    fuse_args args = FUSE_ARGS_INIT(0, nullptr);
    fuse_opt_add_arg(&args, argv[0]);
    fuse_opt_add_arg(&args, "-ofsname=nnemu-sysfs,subtype=nnemu-sysfs");
    const fuse_operations ops = operations();
    fuse* fs = fuse_new(&args, &ops, sizeof ops, nullptr);
    if (fs == nullptr || fuse_mount(fs, folder.c_str()) != 0) {
        std::fprintf(stderr, "nnemu-sysfs: cannot mount on %s (is /dev/fuse available, fusermount3 installed?)\n",
                     folder.c_str());
        if (fs != nullptr) fuse_destroy(fs);
        fuse_opt_free_args(&args);
        return 1;
    }
    std::printf("nnemu-sysfs: mounted on %s\n", folder.c_str());
    std::fflush(stdout);
    fuse_daemonize(foreground ? 1 : 0);
    fuse_set_signal_handlers(fuse_get_session(fs));
    const int status = fuse_loop_mt(fs, 0);
    fuse_remove_signal_handlers(fuse_get_session(fs));
    fuse_unmount(fs);
    fuse_destroy(fs);
    fuse_opt_free_args(&args);
    return status == 0 ? 0 : 1;
}
