// How the statistics folder's files are reached and updated (StatisticsState.h covers `.state`).
//
// The folder is opened by base::openInsideRoot's O_NOFOLLOW walk from the device root; every file
// in it is then reached with *at calls and O_NOFOLLOW from that descriptor. No existing file is
// ever opened for writing unless it is a regular file with no other name.
//
// An NPU execution rewrites the visible files without a system call: each process keeps them
// mapped (PublishedFile) and stores the new text over the old, under the state's lock, while the
// length stays (the totals gain a digit at each power of ten). A file whose length changes is
// cut or extended (networks, network_profile: one ftruncate) or replaced whole by a new version
// renamed over it (inference_count, inference_time, whose own name then never sees a
// modification but a user's). What can change the folder behind a process's back (a file
// deleted, replaced, hard-linked, written; `.state` cut; a folder above moved) is reported by
// inotify (FolderWatch): checking costs one read per update, and anything reported sends the
// process to look at the files again.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "StatisticsState.h"
#include "nnemu/base/Process.h"
#include "nnemu/base/Status.h"

namespace nnemu::synap {

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    void reset(int fd = -1);
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_;
};

using base::processId;  // getpid() without a system call

// A directory inside the device root. Its descriptor is reused while the path still names the
// same directory (a planted link changes what the path names and sends us back to the walk).
class RootedDirectory {
public:
    RootedDirectory(std::string root, std::string path) : root_(std::move(root)), path_(std::move(path)) {}
    // Creates the directory if missing; the walk's refusal (errno set) otherwise.
    Result<int> get();
    // Counts the times the folder was opened anew (a watch on the old one is stale).
    unsigned generation() const { return generation_; }

private:
    std::string root_, path_;
    Fd fd_;
    dev_t device_ = 0;  // fd_'s directory, as opened
    ino_t inode_ = 0;
    unsigned generation_ = 0;
};

// Writes `text` as the file `name` of `dir`: a new file under a name private to this process,
// given `mode`, renamed over `name` (a reader holding the old version keeps it whole).
bool replaceFile(int dir, const char* name, std::string_view text, mode_t mode);

// A visible file mapped for in-place updates.
class PublishedFile {
public:
    ~PublishedFile() { close(); }
    // Opens and maps `name` in `dir`, refusing anything but a regular file with no other name.
    // `mode` is the file's: a read-only file of ours is opened for writing through a moment of u+w.
    bool open(int dir, const char* name, mode_t mode);
    void close();
    bool isOpen() const { return map_ != nullptr; }
    // `named` (what the name holds) is the mapped file, with no other name.
    bool holds(const struct stat& named) const { return sameFile(named) && named.st_nlink == 1; }
    // `named` is the mapped file, whatever its names.
    bool sameFile(const struct stat& named) const;
    size_t size() const { return size_; }
    // Re-reads the size (someone changed it).
    bool refreshSize();
    // The text now (false: the file was cut under us).
    bool read(std::string* text) const;
    // Stores `text` over the old one, cutting or extending the file when the length differs
    // (`resize` false: a different length is refused, false with errno 0). False: cut under us
    // (errno EFAULT), or the file system refused (errno).
    bool write(std::string_view text, bool resize);

private:
    bool remap(size_t bytes);

    Fd fd_;
    char* map_ = nullptr;
    size_t mapped_ = 0;
    size_t size_ = 0;
    dev_t device_ = 0;
    ino_t inode_ = 0;
    pid_t owner_ = 0;  // a forked child maps its own
};

// Which files FolderWatch::poll names (the visible files' indexes, StatisticsView.h).
struct FolderEvents {
    bool look = false;          // something changed that only a new look at the folder tells
    bool resized[4] = {};       // a visible file was cut, extended or written
};

// inotify on the statistics folder and every folder from the device root down to it.
class FolderWatch {
public:
    ~FolderWatch() { stop(); }
    // False (errno): no watch; every update then looks at the folder.
    bool start(const std::string& root, const std::string& path, int dir);
    void stop();
    bool active() const { return fd_.get() >= 0; }
    // A watched folder went away or events were lost: start again after the look.
    bool broken() const { return broken_; }
    // What happened since the last poll: one read. Without a watch, always a look.
    FolderEvents poll();

private:
    Fd fd_;
    int folder_ = -1;                              // the folder's watch
    std::vector<std::pair<int, std::string>> above_;  // the folders above: watch, name of the next one down
    pid_t owner_ = 0;
    bool broken_ = false;
};

// Deletes the spares (".<file>.<pid>.tmp") of `owner` (this process, at exit); or, with owner 0,
// those of every process that no longer exists.
void removeSpares(int dir, pid_t owner);

}  // namespace nnemu::synap
