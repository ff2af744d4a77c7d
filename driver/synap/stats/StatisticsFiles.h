// How the statistics folder's files are reached and rewritten (StatisticsState.h covers `.state`).
//
// The folder is opened by base::openInsideRoot's O_NOFOLLOW walk from the device root; every file
// in it is then reached with *at calls and O_NOFOLLOW from that descriptor: the same guarantee as
// one walk per file, at a fraction of the cost. No existing file is ever opened for writing
// unless it is this process's own: a spare (below) or the version it last put in place, either
// with no other name.
//
// A reader sees one whole version of a visible file, never a mix, by one of two ways:
// - In place (the usual one). A process keeps open the version it last put in place
//   (InPlaceFile). While the name still holds it, it has no other name and nobody else has it
//   open, the process takes a write lease on it (the kernel grants one only then, and makes
//   anyone opening or truncating the file wait until it is released), writes the new text over
//   the old and releases the lease: no reader has the file open during the write, and the next
//   one opens the finished text. Only a text at least as long as the old one is written so
//   (counts only grow between resets): nothing is ever cut in place. Four system calls (five
//   with the back-dating), no directory change. The limits: a process stopped (SIGSTOP, a
//   debugger) inside those microseconds makes a reader opening the file wait until it resumes or
//   the kernel breaks the lease (/proc/sys/fs/lease-break-time, 45 s by default); one killed
//   between the rewrite of inference_count or inference_time and its back-dating leaves a
//   modification time the next update takes for a reset.
// - By exchange, when the lease is refused (a reader holds the file open, another process put
//   the version in place, the file was replaced or deleted) or the text is shorter. The new version is written under a
//   name private to this process (".<name>.<pid>.tmp") and the two names are exchanged, so a
//   reader holding the old version keeps it whole. The version exchanged out is kept as the next
//   exchange's spare and rewritten in place only if nobody has it open (again a write lease) and
//   it has no other name; otherwise it is deleted and a new file is created. The version
//   exchanged in becomes the process's InPlaceFile. Reusing versions matters: ext4 makes a create
//   plus a delete per file and update cost over 100 times the rest of the update, and it flushes
//   to disk a file renamed over another.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

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

// inference_count and inference_time carry a modification time in the past, which no later
// write (it sets the time to now) reproduces: a write of the value a file already shows is
// noticed too. The time to give a version written now; 0 for the other files.
time_t backdatedTime();

// The version of a visible file this process last put in place, kept open to be rewritten in
// place (see above).
class InPlaceFile {
public:
    // Keeps `fd`, the version just exchanged in.
    void adopt(int fd);
    void drop();
    // Takes the write lease, granted when nobody else has the version open; from then on anyone
    // opening or truncating it waits until release() or rewrite(). False (and the version
    // dropped): the next rewrite needs an exchange.
    bool lease();
    // Leased, and `named` (what the name holds, looked at under the lease) is this version with
    // no other name.
    bool holds(const struct stat& named) const;
    // What the version will look like once rewritten with `size` bytes and mtime `backdate`.
    FileIdentity identity(size_t size, time_t backdate) const;
    // Writes `text` over the leased version (never shorter than it: nothing is cut) and releases
    // the lease, even on failure.
    bool rewrite(const std::string& text, time_t backdate);
    // Releases the lease if held, leaving the version as it is.
    void release();

private:
    Fd fd_;
    dev_t device_ = 0;
    ino_t inode_ = 0;
    pid_t owner_ = 0;  // a forked child does not rewrite its parent's descriptor
    bool leased_ = false;
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
    // (backdatedTime(), or 0) gives it the past modification time the reset check relies on.
    // `identity` receives what the file will look like once in place.
    bool prepare(const std::string& text, mode_t mode, time_t backdate, FileIdentity* identity);
    // Puts the new version in place.
    bool commit();
    // After commit: the version now in place, open for writing (-1 when not kept).
    int takeFile() { return keepSpare_ && committed_ ? file_.release() : -1; }

    static std::string spareName(const std::string& name, pid_t pid);

private:
    int reuseSpare();
    int createSpare(mode_t mode);

    int dir_;
    Fd file_;               // the new version, open for writing
    struct stat spare_ {};  // the reused spare's status, as reuseSpare checked it
    std::string name_, temp_;
    bool keepSpare_, ready_ = false, committed_ = false;
};

// Deletes the spares of `owner` (this process, at exit); or, with owner 0, those of every
// process that no longer exists.
void removeSpares(int dir, pid_t owner);

}  // namespace nnemu::synap
