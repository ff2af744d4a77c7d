// How the statistics folder's files are reached and rewritten (StatisticsState.h covers `.state`).
//
// The folder is opened by base::openInsideRoot's O_NOFOLLOW walk from the device root; every file
// in it is then reached with *at calls and O_NOFOLLOW from that descriptor: the same guarantee as
// one walk per file, at a fraction of the cost. No existing file is ever opened for writing
// unless it is this process's own spare (below) with no other name.
//
// A visible file is rewritten whole: its new version is written under a name private to this
// process (".<name>.<pid>.tmp") and the two names are exchanged, so a reader sees the old or the
// new version, never a mix. The version exchanged out is kept as the next update's spare and
// rewritten in place only if nobody has it open (a write lease is granted only then) and it has
// no other name (no hard link to elsewhere); otherwise it is deleted and a new file is created.
// Reusing versions matters: ext4 makes a create plus a delete per file and update cost over
// 100 times the rest of the update, and it flushes to disk a file renamed over another.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

#include "StatisticsState.h"
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

// getpid(), without a system call each time (updated in the child at fork).
pid_t processId();

FileIdentity identityOf(const struct stat& info);
bool matches(const FileIdentity& identity, const struct stat& info);

// A directory inside the device root. Its descriptor is reused while the path still names the
// same directory (a planted link changes what the path names and sends us back to the walk).
class RootedDirectory {
public:
    RootedDirectory(std::string root, std::string path) : root_(std::move(root)), path_(std::move(path)) {}
    // Creates the directory if missing; the walk's refusal (errno set) otherwise.
    Result<int> get();

private:
    std::string root_, path_;
    Fd fd_;
    dev_t device_ = 0;  // fd_'s directory, as opened
    ino_t inode_ = 0;
};

// One rewrite of the file `name` in the directory `dir`.
class Replacement {
public:
    // `keepSpare`: keep the version exchanged out for the next rewrite (the visible files);
    // otherwise it is deleted (the profile tables, rewritten rarely).
    Replacement(int dir, const std::string& name, bool keepSpare);
    ~Replacement();
    Replacement(const Replacement&) = delete;
    Replacement& operator=(const Replacement&) = delete;

    // Writes the new version with `mode` (kept when a read-only spare is reused); `backdate`
    // gives it the past modification time the reset check relies on. `identity` receives what
    // the file will look like once in place.
    bool prepare(const std::string& text, mode_t mode, bool backdate, FileIdentity* identity);
    // Puts the new version in place.
    bool commit();

    static std::string spareName(const std::string& name, pid_t pid);

private:
    int reuseSpare();
    int createSpare(mode_t mode);

    int dir_;
    struct stat spare_ {};  // the reused spare's status, as reuseSpare checked it
    std::string name_, temp_;
    bool keepSpare_, ready_ = false, committed_ = false;
};

// Deletes the spares of `owner` (this process, at exit); or, with owner 0, those of every
// process that no longer exists.
void removeSpares(int dir, pid_t owner);

}  // namespace nnemu::synap
