#include "PropertyFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
    std::string why;
    if (!isValidName(name, &why)) {
        parsed.problem = why;
        return parsed;
    }
    if (!isValidValue(value, &why)) {
        parsed.problem = why;
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
    if (::stat(path.c_str(), &info) != 0) return FileSignature{};
    return signatureOf(info);
}

bool readPropertyFile(const std::string& path, std::string* text, FileSignature* signature, std::string* error) {
    text->clear();
    *signature = FileSignature{};
    // O_NONBLOCK: a FIFO in place of the file must give an error, not a hang.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return true;
        *error = "cannot open " + path + ": " + std::strerror(errno);
        return false;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        *error = "cannot stat " + path + ": " + std::strerror(errno);
        ::close(fd);
        return false;
    }
    if (!S_ISREG(info.st_mode)) {
        *error = path + " is not a regular file";
        ::close(fd);
        return false;
    }
    char buffer[8192];
    for (;;) {
        ssize_t count = ::read(fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) {
            *error = "cannot read " + path + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
        if (count == 0) break;
        text->append(buffer, static_cast<size_t>(count));
    }
    ::close(fd);
    *signature = signatureOf(info);
    return true;
}

}  // namespace nnemu::props
