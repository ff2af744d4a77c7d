// The writing side of the property store (what setprop does): local.prop is rewritten whole under
// an exclusive flock, through a temp file in the same directory that is fsync'ed and renamed over
// it. Readers therefore see the old or the new file, never a torn one, and concurrent writers in
// other processes serialize on the lock, so no update is lost.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "PropertyFile.h"
#include "nnemu/base/Log.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

bool fail(std::string* error, std::string message) {
    if (error != nullptr) *error = std::move(message);
    return false;
}

std::string errnoText(const std::string& what) { return what + ": " + std::strerror(errno); }

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

// Whether an earlier property file (build.prop) gives `name` a value that an unset must mask.
bool definedBelowLocalProp(std::string_view name) {
    std::string text;
    FileSignature signature;
    std::string error;
    if (!readPropertyFile(devicePath(kBuildPropPath), &text, &signature, &error)) return false;
    bool defined = false;
    for (const auto& [entryName, value] : parsePropertyText(text, "", nullptr)) {
        if (entryName == name) defined = !value.empty();
    }
    return defined;
}

// local.prop's new text: `name` set in place of its first line (later duplicates dropped), or
// appended; every other line (comments, unknown lines) kept as it was.
std::string updatedText(std::string_view text, std::string_view name, std::string_view value) {
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
        if (definedBelowLocalProp(name)) result += entry;
    } else if (!written) {
        result += entry;
    }
    return result;
}

bool replaceFile(const std::string& directory, const std::string& path, std::string_view text, std::string* error) {
    std::string temp = directory + "/.local.prop.XXXXXX";
    Descriptor fd(::mkostemp(temp.data(), O_CLOEXEC));
    if (fd.get() < 0) return fail(error, errnoText("cannot create a temporary file in " + directory));
    bool ok = writeAll(fd.get(), text) && ::fchmod(fd.get(), 0644) == 0 && ::fsync(fd.get()) == 0;
    int closeResult = ::close(fd.release());
    if (!ok || closeResult != 0) {
        std::string message = errnoText("cannot write " + temp);
        ::unlink(temp.c_str());
        return fail(error, message);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        std::string message = errnoText("cannot rename " + temp + " to " + path);
        ::unlink(temp.c_str());
        return fail(error, message);
    }
    // Make the rename itself durable; a file system that cannot sync directories is no error.
    Descriptor directoryFd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (directoryFd.get() >= 0) ::fsync(directoryFd.get());
    return true;
}

}  // namespace

bool set(std::string_view name, std::string_view value, std::string* error) {
    std::string why;
    if (!isValidName(name, &why) || !isValidValue(value, &why)) return fail(error, why);

    const std::string path = devicePath(kLocalPropPath);
    const std::string directory = std::filesystem::path(path).parent_path().string();
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec) return fail(error, "cannot create directory " + directory + ": " + ec.message());

    const std::string lockPath = directory + "/local.prop.lock";
    Descriptor lock(::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (lock.get() < 0) return fail(error, errnoText("cannot open lock file " + lockPath));
    int locked;
    do {
        locked = ::flock(lock.get(), LOCK_EX);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0) return fail(error, errnoText("cannot lock " + lockPath));

    std::string text;
    FileSignature signature;
    if (!readPropertyFile(path, &text, &signature, &why)) return fail(error, why);
    std::string updated = updatedText(text, name, value);
    if (signature.exists && updated == text) return true;
    if (!replaceFile(directory, path, updated, error)) return false;
    NN_LOG(VERBOSE) << "setprop " << name << "=" << value << " (" << path << ")";
    return true;
}

}  // namespace nnemu::props
