#include "PropertyFile.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "nnemu/base/RootedFile.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props {
namespace {

bool isTrimmed(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view text) {
    while (!text.empty() && isTrimmed(text.front())) text.remove_prefix(1);
    while (!text.empty() && isTrimmed(text.back())) text.remove_suffix(1);
    return text;
}

int64_t nanoseconds(const timespec& time) { return int64_t{time.tv_sec} * 1000000000 + time.tv_nsec; }

FileSignature signatureOf(const struct stat& info) {
    FileSignature signature;
    signature.exists = true;
    signature.device = info.st_dev;
    signature.inode = info.st_ino;
    signature.size = info.st_size;
    signature.mtimeNs = nanoseconds(info.st_mtim);
    signature.ctimeNs = nanoseconds(info.st_ctim);
    return signature;
}

const char* kindOf(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "a special file";
}

// /proc and /sys files claim a size of 0 or 4096 whatever they hold, and some block on read.
bool isPseudoFile(int fd) {
    struct statfs info {};
    if (::fstatfs(fd, &info) != 0) return false;
    return info.f_type == PROC_SUPER_MAGIC || info.f_type == SYSFS_MAGIC;
}

std::string tooLarge(const std::string& label) {
    return label + " is larger than " + std::to_string(kMaxPropertyFileSize >> 20) +
           " MiB, too large for a property file; not reading it";
}

// Reads up to `limit` + 1 bytes, so that a file that grew past the limit is noticed.
bool readAtMost(int fd, off_t limit, std::string& text) {
    char buffer[8192];
    while (static_cast<off_t>(text.size()) <= limit) {
        const ssize_t count = ::read(fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) return false;
        if (count == 0) break;
        text.append(buffer, static_cast<size_t>(count));
    }
    return true;
}

}  // namespace

PropertyLine parsePropertyLine(std::string_view line) {
    PropertyLine parsed;
    std::string_view content = trim(line);
    if (content.empty() || content.front() == '#') return parsed;
    parsed.kind = PropertyLine::Kind::kMalformed;
    size_t equals = content.find('=');
    if (equals == std::string_view::npos) {
        parsed.problem = "no '=' in \"" + std::string(content) + "\"";
        return parsed;
    }
    std::string_view name = trim(content.substr(0, equals));
    std::string_view value = trim(content.substr(equals + 1));
    if (Status valid = isValidName(name); !valid) {
        parsed.problem = valid.message();
        return parsed;
    }
    if (Status valid = isValidValue(value); !valid) {
        parsed.problem = valid.message();
        return parsed;
    }
    parsed.kind = PropertyLine::Kind::kEntry;
    parsed.name = name;
    parsed.value = value;
    return parsed;
}

std::vector<std::pair<std::string, std::string>> parsePropertyText(std::string_view text, std::string_view fileLabel,
                                                                   std::vector<std::string>* problems) {
    std::vector<std::pair<std::string, std::string>> entries;
    size_t lineNumber = 0;
    while (!text.empty()) {
        ++lineNumber;
        size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        PropertyLine parsed = parsePropertyLine(line);
        if (parsed.kind == PropertyLine::Kind::kEntry) {
            entries.emplace_back(std::move(parsed.name), std::move(parsed.value));
        } else if (parsed.kind == PropertyLine::Kind::kMalformed && problems != nullptr) {
            problems->push_back(std::string(fileLabel) + ":" + std::to_string(lineNumber) +
                                ": skipping malformed property line: " + parsed.problem);
        }
    }
    return entries;
}

FileSignature statSignature(const std::string& path) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) return FileSignature{};
    return signatureOf(info);
}

Result<PropertyFileText> readPropertyDescriptor(int fd, const std::string& label) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) return unavailable("cannot stat " + label + ": " + std::strerror(errno));
    if (!S_ISREG(info.st_mode)) {
        return unavailable(label + " is " + kindOf(info.st_mode) + ", not a regular file; not reading it");
    }
    if (isPseudoFile(fd)) {
        return unavailable(label + " is a /proc or /sys pseudo-file, not a property file; not reading it");
    }
    if (info.st_size > kMaxPropertyFileSize) return unavailable(tooLarge(label));
    PropertyFileText file;
    if (!readAtMost(fd, kMaxPropertyFileSize, file.text)) {
        return unavailable("cannot read " + label + ": " + std::strerror(errno));
    }
    if (static_cast<off_t>(file.text.size()) > kMaxPropertyFileSize) {  // it grew while being read
        return unavailable(tooLarge(label));
    }
    file.signature = signatureOf(info);
    return file;
}

Result<PropertyFileText> readPropertyFile(const std::string& root, const std::string& path) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    const Result<int> fd = base::openInsideRoot(root, path, O_RDONLY | O_NONBLOCK, 0, false);
    if (!fd.isOk()) {
        if (errno == ENOENT) return PropertyFileText{};  // a missing file is an empty one
        return fd.status();
    }
    Result<PropertyFileText> read = readPropertyDescriptor(*fd, path);
    ::close(*fd);
    return read;
}

}  // namespace nnemu::props
