#include "nnemu/base/Trace.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include "nnemu/base/Log.h"
#include "nnemu/base/Status.h"

namespace nnemu::trace {

std::atomic<int> detail::state{detail::kUnknown};

namespace {

// The file is one JSON object; every write leaves it complete, ending with kTrailer.
constexpr std::string_view kHeader = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
constexpr std::string_view kTrailer = "\n]}\n";
// Events kept before the buffer is written out (about 200 bytes each).
constexpr size_t kCapacity = 1 << 15;

struct Event {
    std::string name;
    const char* category;
    int64_t startNs;
    int64_t durationNs;
    int tid;
    std::string args;
};

// Never destroyed: threads may still end spans while the process exits.
struct Tracer {
    std::string path;
    std::mutex bufferMutex;
    std::vector<Event> buffer;
    std::mutex fileMutex;  // one writer at a time within the process; flock across processes
    bool processNamed = false;
};

Tracer& tracer() {
    static Tracer* instance = new Tracer;
    return *instance;
}

thread_local int cachedTid = 0;

int currentTid() {
    if (cachedTid == 0) cachedTid = static_cast<int>(syscall(SYS_gettid));
    return cachedTid;
}

// fork() holds both locks, so the child gets them in a known state. A forked child keeps nothing
// of its parent's buffer: those events are the parent's to write.
void beforeFork() {
    tracer().fileMutex.lock();
    tracer().bufferMutex.lock();
}

void afterForkInParent() {
    tracer().bufferMutex.unlock();
    tracer().fileMutex.unlock();
}

void afterForkInChild() {
    cachedTid = 0;
    Tracer& t = tracer();
    t.buffer.clear();
    t.processNamed = false;
    afterForkInParent();
}

void appendEscaped(std::string& out, std::string_view text) {
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (byte < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
            out.append(escaped);
        } else {
            out.push_back(c);
        }
    }
}

// Microseconds with the nanoseconds kept, so children stay inside their parents after rounding.
void appendMicros(std::string& out, int64_t ns) {
    char text[24];
    char* end = std::to_chars(text, text + sizeof text, ns / 1000).ptr;
    const auto fraction = static_cast<int>(ns % 1000);
    *end++ = '.';
    *end++ = static_cast<char>('0' + fraction / 100);
    *end++ = static_cast<char>('0' + fraction / 10 % 10);
    *end++ = static_cast<char>('0' + fraction % 10);
    out.append(text, end);
}

void appendInteger(std::string& out, int64_t value) {
    char text[24];
    out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}

std::string processName() {
    std::ifstream comm("/proc/self/comm");
    std::string name;
    std::getline(comm, name);
    return name.empty() ? "nnemu" : name;
}

std::string render(const std::vector<Event>& events, bool nameProcess) {
    const std::string pid = std::to_string(getpid());
    std::string out;
    out.reserve(events.size() * 192);
    if (nameProcess) {
        out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + pid + ",\"args\":{\"name\":\"";
        appendEscaped(out, processName());
        out += "\"}}";
    }
    for (const Event& event : events) {
        if (!out.empty()) out += ",\n";
        out += "{\"name\":\"";
        appendEscaped(out, event.name);
        out += "\",\"cat\":\"";
        out += event.category;
        out += "\",\"ph\":\"X\",\"ts\":";
        appendMicros(out, event.startNs);
        out += ",\"dur\":";
        appendMicros(out, event.durationNs);
        out += ",\"pid\":";
        out += pid;
        out += ",\"tid\":";
        appendInteger(out, event.tid);
        out += ",\"args\":{";
        out += event.args;
        out += "}}";
    }
    return out;
}

void turnOff(const std::string& why) {
    if (detail::state.exchange(detail::kOff) == detail::kOn) {
        NN_LOG(WARNING) << "NNEMU_TRACE: " << why << "; tracing is off";
    }
}

bool writeAll(int fd, std::string_view text, off_t offset) {
    while (!text.empty()) {
        const ssize_t n = pwrite(fd, text.data(), text.size(), offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        text.remove_prefix(static_cast<size_t>(n));
        offset += n;
    }
    return true;
}

// Adds `events` (rendered, comma-separated) to the file under an exclusive lock: a new file gets
// the header, an existing trace has its trailer replaced. A file that is not such a trace is left
// alone.
Status appendToFile(const std::string& path, const std::string& events) {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return unavailable("cannot open " + path + ": " + std::strerror(errno));
    bool ok = flock(fd, LOCK_EX) == 0;
    struct stat status {};
    ok = ok && fstat(fd, &status) == 0;
    std::string tail(kTrailer.size(), '\0');
    if (ok && status.st_size == 0) {
        ok = writeAll(fd, std::string(kHeader) + events + std::string(kTrailer), 0);
    } else if (ok) {
        const off_t end = status.st_size - static_cast<off_t>(kTrailer.size());
        const bool isTrace = end >= static_cast<off_t>(kHeader.size()) &&
                             pread(fd, tail.data(), tail.size(), end) == static_cast<ssize_t>(tail.size()) &&
                             tail == kTrailer;
        if (!isTrace) {
            close(fd);
            return unavailable(path + " holds something else than a trace nnemu wrote");
        }
        const bool empty = end == static_cast<off_t>(kHeader.size());
        ok = writeAll(fd, (empty ? "" : ",\n") + events + std::string(kTrailer), end);
    }
    Status written = ok ? Status() : unavailable("cannot write " + path + ": " + std::strerror(errno));
    close(fd);  // releases the lock
    return written;
}

void writeOut(std::vector<Event> events) {
    Tracer& t = tracer();
    std::lock_guard<std::mutex> lock(t.fileMutex);
    const bool nameProcess = !t.processNamed;
    if (events.empty() && !nameProcess) return;
    if (const Status appended = appendToFile(t.path, render(events, nameProcess)); !appended) {
        turnOff(appended.message());
        return;
    }
    t.processNamed = true;
}

std::vector<Event> takeBuffer() {
    Tracer& t = tracer();
    std::lock_guard<std::mutex> lock(t.bufferMutex);
    std::vector<Event> events;
    events.swap(t.buffer);
    return events;
}

// Written at exit, or when the library holding this code is unloaded.
struct FlushAtExit {
    ~FlushAtExit() {
        if (detail::state.load() == detail::kOn) writeOut(takeBuffer());
    }
};

}  // namespace

bool detail::enableFromEnvironment() {
    static std::once_flag once;
    std::call_once(once, [] {
        const char* path = std::getenv("NNEMU_TRACE");
        if (path == nullptr || *path == '\0') {
            state.store(kOff);
            return;
        }
        const int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            NN_LOG(WARNING) << "NNEMU_TRACE: cannot open " << path << ": " << std::strerror(errno)
                            << "; tracing is off";
            state.store(kOff);
            return;
        }
        close(fd);
        tracer().path = path;
        pthread_atfork(beforeFork, afterForkInParent, afterForkInChild);
        static FlushAtExit flushAtExit;
        state.store(kOn);
    });
    return state.load(std::memory_order_relaxed) == kOn;
}

void detail::appendArg(std::string& args, const char* key, std::string_view value) {
    if (!args.empty()) args.push_back(',');
    args.push_back('"');
    args.append(key);
    args.append("\":\"");
    appendEscaped(args, value);
    args.push_back('"');
}

void detail::appendArg(std::string& args, const char* key, int64_t value) {
    if (!args.empty()) args.push_back(',');
    args.push_back('"');
    args.append(key);
    args.append("\":");
    appendInteger(args, value);
}

void complete(std::string_view name, const char* category, Clock::time_point start, Clock::time_point end,
              std::string args) {
    if (!enabled()) return;
    auto ns = [](Clock::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); };
    Event event{std::string(name), category, ns(start.time_since_epoch()), ns(end - start), currentTid(),
                std::move(args)};
    std::vector<Event> full;
    {
        Tracer& t = tracer();
        std::lock_guard<std::mutex> lock(t.bufferMutex);
        t.buffer.push_back(std::move(event));
        if (t.buffer.size() >= kCapacity) full.swap(t.buffer);
    }
    if (full.empty()) return;
    const auto flushStart = Clock::now();
    writeOut(std::move(full));
    complete("nnemu trace flush", "trace", flushStart, Clock::now());
}

void flush() {
    if (enabled()) writeOut(takeBuffer());
}

}  // namespace nnemu::trace
