#include "CacheTestSupport.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../synap/NnapiDevices.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"

namespace nnemu::cachetest {

void CacheTest::SetUp() {
    char pattern[] = "/tmp/nnemu-cache-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    setenv("NNEMU_ROOT", root_.c_str(), 1);
    unsetenv("SYNAP_CACHE_PATH");
    unsetenv("SYNAP_CACHE_CAPACITY");
    unsetenv("NNEMU_BOARD");
    cache::cacheCounters().reset();
}

std::string CacheTest::defaultCacheFile() const {
    if (props::isYocto()) return root_ + "/tmp/synap-cache." + props::programName();
    return root_ + "/data/vendor/synap/nnhal.cache";
}

void CacheTest::TearDown() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
    unsetenv("NNEMU_BOARD");
}

void CacheTest::setProperty(const std::string& name, const std::string& value) {
    const Status set = props::set(name, value);
    ASSERT_TRUE(set.isOk()) << set.message();
}

ANeuralNetworksDevice* deviceNamed(const std::string& name) { return test::deviceNamed(name); }

namespace {

float weight(uint32_t seed, size_t i) {
    uint64_t x = (uint64_t{seed} << 32) ^ (i * 0x9e3779b97f4a7c15ULL);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    return static_cast<float>(static_cast<int>(x % 2001) - 1000) / 8000.0f;
}

}  // namespace

ConvNetwork::ConvNetwork(const ConvNetworkSpec& spec, const std::string& weightsFile) : spec_(spec) {
    ANeuralNetworksModel* model = nullptr;
    if (ANeuralNetworksModel_create(&model) != ANEURALNETWORKS_NO_ERROR) return;
    const uint32_t c = spec.channels;
    const uint32_t actDims[4] = {1, spec.side, spec.side, c}, filterDims[4] = {c, 3, 3, c}, biasDims[1] = {c};
    const ANeuralNetworksOperandType activation{ANEURALNETWORKS_TENSOR_FLOAT32, 4, actDims, 0.0f, 0};
    const ANeuralNetworksOperandType filter{ANEURALNETWORKS_TENSOR_FLOAT32, 4, filterDims, 0.0f, 0};
    const ANeuralNetworksOperandType bias{ANEURALNETWORKS_TENSOR_FLOAT32, 1, biasDims, 0.0f, 0};
    const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
    bool ok = true;
    uint32_t next = 0;
    auto add = [&](const ANeuralNetworksOperandType& type) {
        ok = ok && ANeuralNetworksModel_addOperand(model, &type) == ANEURALNETWORKS_NO_ERROR;
        return next++;
    };
    const uint32_t input = add(activation);
    const uint32_t padding = add(scalar), stride = add(scalar), relu = add(scalar);
    const int32_t same = ANEURALNETWORKS_PADDING_SAME, one = 1, fuse = ANEURALNETWORKS_FUSED_RELU;
    ok = ok && ANeuralNetworksModel_setOperandValue(model, padding, &same, sizeof same) == 0 &&
         ANeuralNetworksModel_setOperandValue(model, stride, &one, sizeof one) == 0 &&
         ANeuralNetworksModel_setOperandValue(model, relu, &fuse, sizeof fuse) == 0;
    const size_t filterBytes = size_t{c} * 9 * c * sizeof(float);
    if (!weightsFile.empty()) {
        if (!std::filesystem::exists(weightsFile)) {
            std::ofstream file(weightsFile, std::ios::binary);
            for (uint32_t seed : spec.layerSeeds) {
                for (size_t i = 0; i < filterBytes / sizeof(float); ++i) {
                    const float value = weight(seed, i);
                    file.write(reinterpret_cast<const char*>(&value), sizeof value);
                }
            }
        }
        const int fd = open(weightsFile.c_str(), O_RDONLY | O_CLOEXEC);
        ok = fd >= 0 && ANeuralNetworksMemory_createFromFd(filterBytes * spec.layerSeeds.size(), PROT_READ, fd, 0,
                                                           &weights_) == ANEURALNETWORKS_NO_ERROR;
        if (fd >= 0) close(fd);  // the memory holds its own descriptor
    }
    uint32_t current = input;
    size_t layer = 0;
    for (uint32_t seed : spec.layerSeeds) {
        const uint32_t f = add(filter), b = add(bias), out = add(activation);
        values_.emplace_back(size_t{c} * 9 * c);
        for (size_t i = 0; i < values_.back().size(); ++i) values_.back()[i] = weight(seed, i);
        ok = ok && (weights_ != nullptr
                            ? ANeuralNetworksModel_setOperandValueFromMemory(model, f, weights_, filterBytes * layer++,
                                                                             filterBytes)
                            : ANeuralNetworksModel_setOperandValue(model, f, values_.back().data(), filterBytes)) == 0;
        values_.emplace_back(c);
        for (size_t i = 0; i < c; ++i) values_.back()[i] = weight(seed + 1000, i);
        ok = ok && ANeuralNetworksModel_setOperandValue(model, b, values_.back().data(), c * sizeof(float)) == 0;
        const uint32_t inputs[7] = {current, f, b, padding, stride, stride, relu};
        ok = ok && ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, inputs, 1, &out) == 0;
        current = out;
    }
    ok = ok && ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, &input, 1, &current) == 0 &&
         ANeuralNetworksModel_finish(model) == 0;
    if (!ok) {
        ANeuralNetworksModel_free(model);
        return;
    }
    model_ = model;
}

ConvNetwork::~ConvNetwork() {
    ANeuralNetworksModel_free(model_);
    ANeuralNetworksMemory_free(weights_);
}

ANeuralNetworksCompilation* ConvNetwork::compile(const std::string& cacheDir, const uint8_t* token,
                                                 const char* deviceName) const {
    const ANeuralNetworksDevice* device = deviceNamed(deviceName);
    ANeuralNetworksCompilation* compilation = nullptr;
    if (device == nullptr ||
        ANeuralNetworksCompilation_createForDevices(model_, &device, 1, &compilation) != ANEURALNETWORKS_NO_ERROR) {
        return nullptr;
    }
    if ((!cacheDir.empty() &&
         ANeuralNetworksCompilation_setCaching(compilation, cacheDir.c_str(), token) != ANEURALNETWORKS_NO_ERROR) ||
        ANeuralNetworksCompilation_finish(compilation) != ANEURALNETWORKS_NO_ERROR) {
        ANeuralNetworksCompilation_free(compilation);
        return nullptr;
    }
    return compilation;
}

std::vector<float> ConvNetwork::run(ANeuralNetworksCompilation* compilation) const {
    const size_t elements = size_t{spec_.side} * spec_.side * spec_.channels;
    std::vector<float> in(elements), out(elements);
    for (size_t i = 0; i < elements; ++i) in[i] = static_cast<float>((i * 7) % 13) / 6.0f - 1.0f;
    ANeuralNetworksExecution* execution = nullptr;
    if (ANeuralNetworksExecution_create(compilation, &execution) != ANEURALNETWORKS_NO_ERROR) return {};
    const bool ok =
            ANeuralNetworksExecution_setInput(execution, 0, nullptr, in.data(), in.size() * sizeof(float)) == 0 &&
            ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), out.size() * sizeof(float)) == 0 &&
            ANeuralNetworksExecution_compute(execution) == 0;
    ANeuralNetworksExecution_free(execution);
    return ok ? out : std::vector<float>{};
}

void runSmallConvCapturingLog(std::string* log) {
    ConvNetwork network({8, 8, {1}});
    // From the compilation on: a warm start's lookup starts when synap-npu prepares the model.
    testing::internal::CaptureStderr();
    ANeuralNetworksCompilation* compilation = network.compile();
    const std::vector<float> output = compilation != nullptr ? network.run(compilation) : std::vector<float>{};
    ANeuralNetworksCompilation_free(compilation);
    *log = testing::internal::GetCapturedStderr();
    ASSERT_NE(compilation, nullptr);
    EXPECT_FALSE(output.empty());
}

namespace {

void drain(int fd, std::string* into) {
    char buffer[4096];
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got > 0) into->append(buffer, static_cast<size_t>(got));
}

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, long fileSizeLimit) {
    ProcessResult result;
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return result;
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        if (fileSizeLimit > 0) {
            const rlimit limit{static_cast<rlim_t>(fileSizeLimit), static_cast<rlim_t>(fileSizeLimit)};
            setrlimit(RLIMIT_FSIZE, &limit);
            signal(SIGXFSZ, SIG_IGN);  // writes past the limit then fail with EFBIG
        }
        std::vector<char*> args;
        for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open = 2;
    while (open > 0 && poll(fds, 2, -1) > 0) {
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            std::string& into = i == 0 ? result.out : result.err;
            const size_t before = into.size();
            drain(fds[i].fd, &into);
            if (into.size() == before) {  // EOF
                close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
}

std::map<std::string, std::string> parseReport(const std::string& line) {
    std::map<std::string, std::string> report;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
        const auto equals = word.find('=');
        if (equals != std::string::npos) report[word.substr(0, equals)] = word.substr(equals + 1);
    }
    return report;
}

size_t countOccurrences(const std::string& text, const std::string& needle) {
    size_t count = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
    return count;
}

std::vector<uint8_t> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void waitPastChangeTime(const std::string& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return;
    const auto past = [&] {
        timespec now {};
        clock_gettime(CLOCK_REALTIME_COARSE, &now);  // the clock file times are taken from
        return now.tv_sec > info.st_ctim.tv_sec || (now.tv_sec == info.st_ctim.tv_sec && now.tv_nsec > info.st_ctim.tv_nsec);
    };
    while (!past()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::map<std::string, std::string> snapshotDirectory(const std::string& directory) {
    namespace fs = std::filesystem;
    std::map<std::string, std::string> entries;
    for (const auto& entry : fs::recursive_directory_iterator(directory)) {
        const std::string name = fs::relative(entry.path(), directory).string();
        if (entry.is_symlink()) {
            entries[name] = "-> " + fs::read_symlink(entry.path()).string();
        } else if (entry.is_regular_file()) {
            const auto bytes = readFile(entry.path().string());
            entries[name] = std::string(bytes.begin(), bytes.end());
        } else {
            entries[name] = "(directory or special file)";
        }
    }
    return entries;
}

void createSqliteDatabase(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << message;
    sqlite3_free(message);
    sqlite3_close(db);
}

}  // namespace nnemu::cachetest
