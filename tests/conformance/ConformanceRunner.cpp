// nnemu_conformance: runs the conformance vectors of ../shared/conformance (one JSON file per
// CTS spec) through the public NNAPI C API and compares the results with the golden data.
//
// By default the variants run in worker processes (this same program, started with
// --worker-fd), so that a crash or a hang inside the runtime is reported as a failure of the
// variant that caused it and the run goes on with the next one.

#include <android/NeuralNetworks.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "Variant.h"
#include "VariantRunner.h"

extern char** environ;

namespace nnemu::conformance {
namespace {

namespace fs = std::filesystem;

constexpr int kExitUsage = 2;
constexpr int kExitSkipped = 77;  // CTest's SKIP_RETURN_CODE for these tests

enum class ModeChoice { Rotate, Sync, Async, Burst };

struct Options {
    fs::path vectors;
    std::optional<std::string> device;
    std::string filter;
    std::optional<fs::path> expectedFailures;
    bool requireAll = false;
    bool skipIfMissing = false;
    bool verbose = false;
    ModeChoice mode = ModeChoice::Rotate;
    bool isolate = true;
    unsigned jobs = 0;  // 0 = choose
    double timeoutSeconds = 300.0;
    // Worker side (internal).
    int workerFd = -1;
    size_t shard = 0;
    size_t shards = 1;
    size_t resumeFile = 0;
    size_t resumeVariant = 0;
};

void printUsage(std::FILE* to) {
    std::fprintf(
            to,
            "usage: nnemu_conformance --vectors DIR [--device NAME] [--filter PATTERN]\n"
            "                         [--expected-failures FILE] [--require-all] [--verbose]\n"
            "                         [--mode rotate|compute|startCompute|burstCompute]\n"
            "                         [--jobs N] [--timeout SECONDS] [--no-isolate]\n"
            "                         [--skip-if-missing]\n"
            "\n"
            "  --vectors DIR            read every *.json under DIR (recursively, sorted)\n"
            "  --device NAME            check support on and compile for this device only\n"
            "  --filter PATTERN         run the variants whose \"<version>/<spec>/<name>\"\n"
            "                           contains PATTERN\n"
            "  --expected-failures FILE ids of variants known to fail (one a line, # comments);\n"
            "                           exit 0 only if exactly those fail among those that ran\n"
            "  --require-all            a skipped variant also makes the exit status non-zero\n"
            "  --verbose                print PASSED lines too\n"
            "  --mode M                 compute mode; 'rotate' (default) uses compute,\n"
            "                           startCompute+wait and burstCompute in turn, by\n"
            "                           (file number + variant number in the file) %% 3\n"
            "  --jobs N                 worker processes (default: up to 2, by CPU count)\n"
            "  --timeout SECONDS        a variant running longer fails as timed out (300)\n"
            "  --no-isolate             run in this process (a runtime crash ends the run)\n"
            "  --skip-if-missing        a DIR that does not exist is a skip: exit 77, not 2\n");
}

std::optional<Options> parseOptions(int argc, char** argv) {
    Options o;
    bool haveVectors = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char* what) -> std::optional<std::string> {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "nnemu_conformance: %s needs a value\n", what);
                return std::nullopt;
            }
            return std::string(argv[++i]);
        };
        auto number = [&](const std::string& text, size_t* out) {
            char* end = nullptr;
            errno = 0;
            const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || errno != 0) return false;
            *out = static_cast<size_t>(v);
            return true;
        };
        if (arg == "--help" || arg == "-h") {
            printUsage(stdout);
            std::exit(0);
        } else if (arg == "--vectors") {
            auto v = value("--vectors");
            if (!v) return std::nullopt;
            o.vectors = *v;
            haveVectors = true;
        } else if (arg == "--device") {
            auto v = value("--device");
            if (!v) return std::nullopt;
            o.device = *v;
        } else if (arg == "--filter") {
            auto v = value("--filter");
            if (!v) return std::nullopt;
            o.filter = *v;
        } else if (arg == "--expected-failures") {
            auto v = value("--expected-failures");
            if (!v) return std::nullopt;
            o.expectedFailures = *v;
        } else if (arg == "--require-all") {
            o.requireAll = true;
        } else if (arg == "--verbose" || arg == "-v") {
            o.verbose = true;
        } else if (arg == "--skip-if-missing") {
            o.skipIfMissing = true;
        } else if (arg == "--no-isolate") {
            o.isolate = false;
        } else if (arg == "--mode") {
            auto v = value("--mode");
            if (!v) return std::nullopt;
            if (*v == "rotate") {
                o.mode = ModeChoice::Rotate;
            } else if (*v == "compute" || *v == "sync") {
                o.mode = ModeChoice::Sync;
            } else if (*v == "startCompute" || *v == "async") {
                o.mode = ModeChoice::Async;
            } else if (*v == "burstCompute" || *v == "burst") {
                o.mode = ModeChoice::Burst;
            } else {
                std::fprintf(stderr, "nnemu_conformance: unknown mode %s\n", v->c_str());
                return std::nullopt;
            }
        } else if (arg == "--jobs" || arg == "-j") {
            auto v = value("--jobs");
            size_t n = 0;
            if (!v || !number(*v, &n) || n == 0 || n > 64) {
                std::fprintf(stderr, "nnemu_conformance: --jobs needs a number in 1..64\n");
                return std::nullopt;
            }
            o.jobs = static_cast<unsigned>(n);
        } else if (arg == "--timeout") {
            auto v = value("--timeout");
            if (!v) return std::nullopt;
            char* end = nullptr;
            o.timeoutSeconds = std::strtod(v->c_str(), &end);
            if (*end != '\0' || !(o.timeoutSeconds > 0)) {
                std::fprintf(stderr, "nnemu_conformance: bad --timeout %s\n", v->c_str());
                return std::nullopt;
            }
        } else if (arg == "--worker-fd") {  // internal: run as a worker of a parent run
            auto v = value("--worker-fd");
            size_t fd = 0;
            if (!v || !number(*v, &fd)) return std::nullopt;
            o.workerFd = static_cast<int>(fd);
        } else if (arg == "--worker-shard") {  // internal: I/N
            auto v = value("--worker-shard");
            if (!v) return std::nullopt;
            const auto slash = v->find('/');
            if (slash == std::string::npos || !number(v->substr(0, slash), &o.shard) ||
                !number(v->substr(slash + 1), &o.shards) || o.shards == 0) {
                return std::nullopt;
            }
        } else if (arg == "--worker-resume") {  // internal: FILE:VARIANT
            auto v = value("--worker-resume");
            if (!v) return std::nullopt;
            const auto colon = v->find(':');
            if (colon == std::string::npos || !number(v->substr(0, colon), &o.resumeFile) ||
                !number(v->substr(colon + 1), &o.resumeVariant)) {
                return std::nullopt;
            }
        } else {
            std::fprintf(stderr, "nnemu_conformance: unknown argument %s\n", arg.c_str());
            return std::nullopt;
        }
    }
    if (!haveVectors) {
        std::fprintf(stderr, "nnemu_conformance: --vectors DIR is required\n");
        return std::nullopt;
    }
    return o;
}

// ---- Results ----

enum class Status { Passed, Failed, Skipped };

struct Record {
    size_t file = 0;
    long variant = -1;  // index in the file; -1 for a failure of the whole file
    Status status = Status::Passed;
    std::string id;
    std::string reason;
};

std::string oneLine(std::string text) {
    for (char& c : text) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    return text;
}

struct VectorFile {
    fs::path path;
    std::string relative;  // e.g. "V1_0/add.json"
};

// The sorted list of *.json files under dir; nullopt, after saying why on stderr, when it cannot
// be listed. (The runner is a client of the C API only: no nnemu::Status here.)
std::optional<std::vector<VectorFile>> listVectorFiles(const fs::path& dir) {
    std::vector<VectorFile> files;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        std::fprintf(stderr, "nnemu_conformance: not a directory: %s\n", dir.string().c_str());
        return std::nullopt;
    }
    fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code fileError;
        if (it->path().extension() == ".json" && it->is_regular_file(fileError)) {
            files.push_back({it->path(), it->path().lexically_relative(dir).generic_string()});
        }
    }
    if (ec) {
        std::fprintf(stderr, "nnemu_conformance: cannot list %s: %s\n", dir.string().c_str(), ec.message().c_str());
        return std::nullopt;
    }
    std::sort(files.begin(), files.end(),
              [](const VectorFile& a, const VectorFile& b) { return a.relative < b.relative; });
    return files;
}

// Whether a file that cannot be read might hold variants selected by the filter: its failure
// is reported unless the filter clearly points elsewhere.
bool fileMayMatch(const VectorFile& file, const std::string& filter) {
    if (filter.empty()) return true;
    std::string stem = file.relative;
    if (stem.size() > 5) stem.resize(stem.size() - 5);  // drop ".json"
    return stem.find(filter) != std::string::npos || filter.rfind(stem + "/", 0) == 0 ||
           file.relative.find(filter) != std::string::npos;
}

ComputeMode modeFor(ModeChoice choice, size_t file, size_t variant) {
    switch (choice) {
        case ModeChoice::Sync: return ComputeMode::Sync;
        case ModeChoice::Async: return ComputeMode::Async;
        case ModeChoice::Burst: return ComputeMode::Burst;
        case ModeChoice::Rotate: break;
    }
    switch ((file + variant) % 3) {
        case 0: return ComputeMode::Sync;
        case 1: return ComputeMode::Async;
        default: return ComputeMode::Burst;
    }
}

// ---- Running the variants (in this process or in a worker) ----

class Sink {
public:
    virtual ~Sink() = default;
    virtual void loading(size_t file) = 0;
    virtual void begin(size_t file, size_t variant, const std::string& id) = 0;
    virtual void result(const Record& record) = 0;
    virtual void fatal(const std::string& message) = 0;
    virtual void done() = 0;
};

// Picks the devices; returns nothing (after reporting to the sink) on error.
std::optional<VariantRunner> makeRunner(const Options& o, Sink& sink) {
    uint32_t count = 0;
    int rc = ANeuralNetworks_getDeviceCount(&count);
    if (rc != ANEURALNETWORKS_NO_ERROR) {
        sink.fatal("ANeuralNetworks_getDeviceCount returned " + resultCodeText(rc));
        return std::nullopt;
    }
    std::vector<const ANeuralNetworksDevice*> all;
    std::vector<std::string> names;
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        rc = ANeuralNetworks_getDevice(i, &device);
        if (rc != ANEURALNETWORKS_NO_ERROR || device == nullptr) {
            sink.fatal("ANeuralNetworks_getDevice(" + std::to_string(i) + ") returned " +
                       resultCodeText(rc));
            return std::nullopt;
        }
        const char* name = nullptr;
        rc = ANeuralNetworksDevice_getName(device, &name);
        if (rc != ANEURALNETWORKS_NO_ERROR || name == nullptr) {
            sink.fatal("ANeuralNetworksDevice_getName(device " + std::to_string(i) +
                       ") returned " + resultCodeText(rc));
            return std::nullopt;
        }
        all.push_back(device);
        names.emplace_back(name);
    }
    if (!o.device) return VariantRunner(all, false);
    for (size_t i = 0; i < all.size(); ++i) {
        if (names[i] == *o.device) return VariantRunner({all[i]}, true);
    }
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    sink.fatal("unknown device '" + *o.device + "' (devices: " +
               (known.empty() ? std::string("none") : known) + ")");
    return std::nullopt;
}

void runVariants(const Options& o, const std::vector<VectorFile>& files, Sink& sink) {
    std::optional<VariantRunner> runner = makeRunner(o, sink);
    if (!runner) return;
    const auto keep = [&](const std::string& id) {
        return o.filter.empty() || id.find(o.filter) != std::string::npos;
    };
    for (size_t f = std::max(o.resumeFile, o.shard); f < files.size(); ++f) {
        if (f % o.shards != o.shard) continue;
        sink.loading(f);
        SpecFile spec;
        try {
            spec = loadSpecFile(files[f].path, keep);
        } catch (const SpecFileError& e) {
            // The converter's index.json sits beside the specs; it is not a spec itself.
            if (files[f].path.filename() == "index.json") continue;
            if (fileMayMatch(files[f], o.filter)) {
                sink.result({f, -1, Status::Failed, files[f].path.string(), oneLine(e.what())});
            }
            continue;
        } catch (const std::exception& e) {
            sink.result({f, -1, Status::Failed, files[f].path.string(), oneLine(e.what())});
            continue;
        }
        for (const SpecFile::Entry& entry : spec.entries) {
            if (f == o.resumeFile && entry.indexInFile < o.resumeVariant) continue;
            const auto v = static_cast<long>(entry.indexInFile);
            sink.begin(f, entry.indexInFile, entry.id());
            Record record{f, v, Status::Failed, entry.id(), {}};
            if (entry.broken) {
                record.reason = oneLine(entry.broken->error);
            } else {
                Outcome outcome;
                try {
                    outcome = runner->run(*entry.variant,
                                          modeFor(o.mode, f, entry.indexInFile));
                } catch (const std::exception& e) {
                    outcome = {Outcome::Status::Failed, std::string("exception: ") + e.what()};
                }
                record.status = outcome.status == Outcome::Status::Passed    ? Status::Passed
                                : outcome.status == Outcome::Status::Skipped ? Status::Skipped
                                                                             : Status::Failed;
                record.reason = oneLine(outcome.reason);
            }
            sink.result(record);
        }
    }
    sink.done();
}

// ---- Worker protocol: one tab-separated record per line on the worker fd ----
//   L <file>                      loading a file
//   B <file> <variant> <id>       starting a variant
//   R <file> <variant> <P|F|S> <id> <reason>
//   X <message>                   fatal error (the worker stops)
//   D                             finished

class WorkerSink : public Sink {
public:
    explicit WorkerSink(int fd) : mFd(fd) {}
    void loading(size_t file) override { send("L\t" + std::to_string(file)); }
    void begin(size_t file, size_t variant, const std::string& id) override {
        send("B\t" + std::to_string(file) + "\t" + std::to_string(variant) + "\t" + oneLine(id));
    }
    void result(const Record& r) override {
        const char* status = r.status == Status::Passed ? "P"
                             : r.status == Status::Skipped ? "S"
                                                           : "F";
        send("R\t" + std::to_string(r.file) + "\t" + std::to_string(r.variant) + "\t" + status +
             "\t" + oneLine(r.id) + "\t" + oneLine(r.reason));
    }
    void fatal(const std::string& message) override { send("X\t" + oneLine(message)); }
    void done() override { send("D"); }

private:
    void send(std::string line) {
        line += '\n';
        const char* p = line.data();
        size_t left = line.size();
        while (left > 0) {
            const ssize_t n = ::write(mFd, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) std::_Exit(3);  // the parent is gone
            p += n;
            left -= static_cast<size_t>(n);
        }
    }
    int mFd;
};

// ---- Reporting ----

class Reporter {
public:
    Reporter(const Options& o, bool streaming) : mOptions(o), mStreaming(streaming) {}

    void add(Record record) {
        if (mStreaming) print(record);
        mRecords.push_back(std::move(record));
    }
    void fatal(const std::string& message) {
        if (mFatal.insert(message).second) {
            std::fprintf(stderr, "nnemu_conformance: error: %s\n", message.c_str());
        }
    }
    bool hasFatal() const { return !mFatal.empty(); }

    // Prints what is left and the summary; returns the exit status.
    int finish(const std::optional<std::set<std::string>>& expected) {
        if (!mStreaming) {
            std::stable_sort(mRecords.begin(), mRecords.end(),
                             [](const Record& a, const Record& b) {
                                 return a.file != b.file ? a.file < b.file
                                                         : a.variant < b.variant;
                             });
            for (const Record& r : mRecords) print(r);
        }
        size_t passed = 0, failedCount = 0, skipped = 0;
        std::set<std::string> failedIds, passedIds;
        for (const Record& r : mRecords) {
            switch (r.status) {
                case Status::Passed:
                    ++passed;
                    passedIds.insert(r.id);
                    break;
                case Status::Failed:
                    ++failedCount;
                    failedIds.insert(r.id);
                    break;
                case Status::Skipped:
                    ++skipped;
                    break;
            }
        }
        int status = 0;
        if (expected) {
            size_t stillFailing = 0;
            for (const Record& r : mRecords) {
                if (r.status != Status::Failed) continue;
                if (expected->count(r.id) || (r.variant < 0 && expected->count(relative(r)))) {
                    ++stillFailing;
                } else {
                    std::printf("UNEXPECTED FAILURE %s\n", r.id.c_str());
                    status = 1;
                }
            }
            for (const std::string& id : *expected) {
                if (passedIds.count(id) && !failedIds.count(id)) {
                    std::printf("NOW PASSES %s: remove it from %s\n", id.c_str(),
                                mOptions.expectedFailures->string().c_str());
                    status = 1;
                }
            }
            std::printf("expected failures: %zu of those that ran failed as listed\n",
                        stillFailing);
        } else if (failedCount > 0) {
            status = 1;
        }
        if (mOptions.requireAll && skipped > 0) status = 1;
        if (hasFatal()) status = kExitUsage;
        std::printf("conformance: %zu passed, %zu failed", passed, failedCount);
        if (skipped > 0) std::printf(", %zu skipped", skipped);
        std::printf("\n");
        std::fflush(stdout);
        return status;
    }

    void setFiles(const std::vector<VectorFile>* files) { mFiles = files; }

private:
    std::string relative(const Record& r) const {
        return mFiles && r.file < mFiles->size() ? (*mFiles)[r.file].relative : r.id;
    }
    void print(const Record& r) {
        switch (r.status) {
            case Status::Failed:
                std::printf("FAILED %s: %s\n", r.id.c_str(), r.reason.c_str());
                break;
            case Status::Skipped:
                std::printf("SKIPPED %s: %s\n", r.id.c_str(), r.reason.c_str());
                break;
            case Status::Passed:
                if (mOptions.verbose) std::printf("PASSED %s\n", r.id.c_str());
                break;
        }
        std::fflush(stdout);
    }

    const Options& mOptions;
    bool mStreaming;
    std::vector<Record> mRecords;
    std::set<std::string> mFatal;
    const std::vector<VectorFile>* mFiles = nullptr;
};

class InProcessSink : public Sink {
public:
    explicit InProcessSink(Reporter& reporter) : mReporter(reporter) {}
    void loading(size_t) override {}
    void begin(size_t, size_t, const std::string&) override {}
    void result(const Record& r) override { mReporter.add(r); }
    void fatal(const std::string& message) override { mReporter.fatal(message); }
    void done() override {}

private:
    Reporter& mReporter;
};

// ---- Supervisor: runs and watches the worker processes ----

std::string describeExit(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = sigabbrev_np(sig);
        return "crashed with signal " + std::to_string(sig) +
               (name ? std::string(" (SIG") + name + ")" : std::string());
    }
    if (WIFEXITED(status)) {
        return "worker exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "worker stopped";
}

class Supervisor {
public:
    Supervisor(const Options& o, const std::vector<VectorFile>& files, Reporter& reporter)
        : mOptions(o), mFiles(files), mReporter(reporter) {}

    void run(unsigned jobs) {
        for (unsigned s = 0; s < jobs; ++s) {
            Worker w;
            w.shard = s;
            mWorkers.push_back(w);
        }
        for (Worker& w : mWorkers) start(w);
        while (true) {
            std::vector<pollfd> fds;
            std::vector<Worker*> owners;
            for (Worker& w : mWorkers) {
                if (w.fd >= 0) {
                    fds.push_back({w.fd, POLLIN, 0});
                    owners.push_back(&w);
                }
            }
            if (fds.empty()) break;
            const int ready = ::poll(fds.data(), fds.size(), 500);
            if (ready < 0 && errno != EINTR) {
                mReporter.fatal(std::string("poll: ") + std::strerror(errno));
                break;
            }
            for (size_t i = 0; i < fds.size(); ++i) {
                if (fds[i].revents != 0) readFrom(*owners[i]);
            }
            checkTimeouts();
        }
    }

private:
    using Clock = std::chrono::steady_clock;

    struct Worker {
        size_t shard = 0;
        pid_t pid = -1;
        int fd = -1;
        std::string buffer;
        size_t resumeFile = 0;
        size_t resumeVariant = 0;
        bool done = false;
        bool fatal = false;
        bool timedOut = false;
        std::optional<size_t> loadingFile;
        struct Pending {
            size_t file;
            size_t variant;
            std::string id;
            Clock::time_point since;
        };
        std::optional<Pending> pending;
    };

    void start(Worker& w) {
        int pipeFds[2];
        if (::pipe(pipeFds) != 0) {
            mReporter.fatal(std::string("pipe: ") + std::strerror(errno));
            return;
        }
        // Keep both ends above the fd the worker writes to, and out of the worker.
        const int readFd = ::fcntl(pipeFds[0], F_DUPFD_CLOEXEC, 10);
        const int writeFd = ::fcntl(pipeFds[1], F_DUPFD_CLOEXEC, 10);
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        if (readFd < 0 || writeFd < 0) {
            mReporter.fatal(std::string("fcntl: ") + std::strerror(errno));
            return;
        }
        constexpr int kWorkerFd = 3;
        std::vector<std::string> args = {"nnemu_conformance",
                                         "--worker-fd",
                                         std::to_string(kWorkerFd),
                                         "--vectors",
                                         mOptions.vectors.string(),
                                         "--worker-shard",
                                         std::to_string(w.shard) + "/" +
                                                 std::to_string(mWorkers.size()),
                                         "--worker-resume",
                                         std::to_string(w.resumeFile) + ":" +
                                                 std::to_string(w.resumeVariant)};
        if (mOptions.device) {
            args.push_back("--device");
            args.push_back(*mOptions.device);
        }
        if (!mOptions.filter.empty()) {
            args.push_back("--filter");
            args.push_back(mOptions.filter);
        }
        static const char* const kModes[] = {"rotate", "compute", "startCompute", "burstCompute"};
        args.push_back("--mode");
        args.push_back(kModes[static_cast<int>(mOptions.mode)]);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);

        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, writeFd, kWorkerFd);
        pid_t pid = -1;
        std::fflush(stdout);
        const int err = ::posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(),
                                      environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(writeFd);
        if (err != 0) {
            ::close(readFd);
            mReporter.fatal(std::string("cannot start a worker: ") + std::strerror(err));
            return;
        }
        w.pid = pid;
        w.fd = readFd;
        w.buffer.clear();
        w.done = w.fatal = w.timedOut = false;
        w.loadingFile.reset();
        w.pending.reset();
    }

    static std::vector<std::string> split(const std::string& line) {
        std::vector<std::string> fields;
        size_t at = 0;
        while (true) {
            const size_t tab = line.find('\t', at);
            fields.push_back(line.substr(at, tab == std::string::npos ? std::string::npos
                                                                        : tab - at));
            if (tab == std::string::npos) break;
            at = tab + 1;
        }
        return fields;
    }

    void handleLine(Worker& w, const std::string& line) {
        const auto fields = split(line);
        const std::string& kind = fields[0];
        auto toSize = [](const std::string& s) { return static_cast<size_t>(std::stoull(s)); };
        try {
            if (kind == "L" && fields.size() >= 2) {
                w.loadingFile = toSize(fields[1]);
                w.pending.reset();
            } else if (kind == "B" && fields.size() >= 4) {
                w.pending = Worker::Pending{toSize(fields[1]), toSize(fields[2]), fields[3],
                                            Clock::now()};
            } else if (kind == "R" && fields.size() >= 6) {
                Record r;
                r.file = toSize(fields[1]);
                r.variant = std::stol(fields[2]);
                r.status = fields[3] == "P"   ? Status::Passed
                           : fields[3] == "S" ? Status::Skipped
                                              : Status::Failed;
                r.id = fields[4];
                r.reason = fields[5];
                if (r.variant >= 0) w.pending.reset();
                mReporter.add(std::move(r));
            } else if (kind == "X" && fields.size() >= 2) {
                w.fatal = true;
                mReporter.fatal(fields[1]);
            } else if (kind == "D") {
                w.done = true;
            }
        } catch (const std::exception&) {
            // A garbled line: ignore it (the worker's state is re-derived on its exit).
        }
    }

    void readFrom(Worker& w) {
        char chunk[65536];
        const ssize_t n = ::read(w.fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) return;
        if (n > 0) {
            w.buffer.append(chunk, static_cast<size_t>(n));
            size_t newline;
            while ((newline = w.buffer.find('\n')) != std::string::npos) {
                const std::string line = w.buffer.substr(0, newline);
                w.buffer.erase(0, newline + 1);
                handleLine(w, line);
            }
            return;
        }
        // End of stream: the worker finished or died.
        ::close(w.fd);
        w.fd = -1;
        int status = 0;
        while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
        }
        w.pid = -1;
        if (w.fatal) return;
        if (w.done && WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
        const std::string how =
                w.timedOut ? "timed out after " + std::to_string(static_cast<long>(
                                                          mOptions.timeoutSeconds)) + " s"
                           : describeExit(status);
        if (w.pending) {
            mReporter.add({w.pending->file, static_cast<long>(w.pending->variant), Status::Failed,
                           w.pending->id, how});
            w.resumeFile = w.pending->file;
            w.resumeVariant = w.pending->variant + 1;
        } else if (w.loadingFile && !w.done) {
            const size_t f = *w.loadingFile;
            mReporter.add({f, -1, Status::Failed, mFiles[f].path.string(),
                           how + " while reading the file"});
            w.resumeFile = f + 1;
            w.resumeVariant = 0;
        } else if (w.done) {
            return;  // finished its work, died on the way out: nothing left to attribute
        } else {
            mReporter.fatal("a worker " + how + " before running any variant");
            return;
        }
        start(w);
    }

    void checkTimeouts() {
        const auto limit = std::chrono::duration<double>(mOptions.timeoutSeconds);
        for (Worker& w : mWorkers) {
            if (w.pid > 0 && w.pending && !w.timedOut && Clock::now() - w.pending->since > limit) {
                w.timedOut = true;
                ::kill(w.pid, SIGKILL);
            }
        }
    }

    const Options& mOptions;
    const std::vector<VectorFile>& mFiles;
    Reporter& mReporter;
    std::vector<Worker> mWorkers;
};

std::optional<std::set<std::string>> readExpectedFailures(const fs::path& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::set<std::string> ids;
    std::string line;
    while (std::getline(in, line)) {
        if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) continue;
        const auto last = line.find_last_not_of(" \t\r");
        ids.insert(line.substr(first, last - first + 1));
    }
    return ids;
}

int runMain(int argc, char** argv) {
    const std::optional<Options> parsed = parseOptions(argc, argv);
    if (!parsed) {
        printUsage(stderr);
        return kExitUsage;
    }
    const Options& o = *parsed;

    // The tests are registered only where the vectors were found at configure time; the folder
    // may have gone since (../shared removed or moved).
    std::error_code ec;
    if (o.skipIfMissing && !fs::exists(o.vectors, ec)) {
        std::printf("SKIPPED: conformance vectors not found at %s (../shared is missing; see NNEMU_SHARED_DIR)\n",
                    o.vectors.string().c_str());
        return kExitSkipped;
    }
    const std::optional<std::vector<VectorFile>> listed = listVectorFiles(o.vectors);
    if (!listed) return kExitUsage;
    const std::vector<VectorFile>& files = *listed;

    if (o.workerFd >= 0) {  // worker of a supervising parent
        ::signal(SIGPIPE, SIG_IGN);
        WorkerSink sink(o.workerFd);
        runVariants(o, files, sink);
        return 0;
    }

    std::optional<std::set<std::string>> expected;
    if (o.expectedFailures) {
        expected = readExpectedFailures(*o.expectedFailures);
        if (!expected) {
            std::fprintf(stderr, "nnemu_conformance: cannot read %s\n",
                         o.expectedFailures->string().c_str());
            return kExitUsage;
        }
    }

    unsigned jobs = o.jobs;
    if (jobs == 0) jobs = std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
    if (!o.isolate) jobs = 1;
    jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(files.size(), 1)));

    Reporter reporter(o, /*streaming=*/jobs == 1);
    reporter.setFiles(&files);
    if (o.isolate) {
        Supervisor supervisor(o, files, reporter);
        supervisor.run(jobs);
    } else {
        InProcessSink sink(reporter);
        runVariants(o, files, sink);
    }
    return reporter.finish(expected);
}

}  // namespace
}  // namespace nnemu::conformance

int main(int argc, char** argv) {
    try {
        return nnemu::conformance::runMain(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nnemu_conformance: internal error: %s\n", e.what());
        return 2;
    }
}
