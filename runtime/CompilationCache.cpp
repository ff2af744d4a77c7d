#include "CompilationCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "nnemu/base/Digest.h"
#include "nnemu/base/Log.h"

namespace nnemu::runtime {
namespace {

// The file descriptors of one prepared unit's cache files, closed when the prepare call is over
// (a driver that keeps a file dups its fd).
class CacheFiles {
public:
    ~CacheFiles() { closeAll(); }

    // Opens every model- and data-cache file O_RDWR, creating them (0600) when `create`. A
    // symbolic link in the file's place is refused (the app's directory is trusted, not what
    // was planted in it). False (and nothing open) if any one fails.
    bool open(const std::string& base, uint32_t modelCount, uint32_t dataCount, bool create) {
        const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (create ? O_CREAT : 0);
        for (auto [kind, count, fds] : {std::tuple{'1', modelCount, &model}, std::tuple{'2', dataCount, &data}}) {
            for (uint32_t i = 0; i < count; ++i) {
                const std::string name = base + kind + std::to_string(i);
                const int fd = ::open(name.c_str(), flags, 0600);
                if (fd < 0) {
                    // Said at the default log level: a missing or unwritable cache directory
                    // otherwise only shows as every run paying the full compile.
                    if (create && errno == ELOOP) {
                        NN_LOG(WARNING) << "compilation cache file " << name
                                        << " is a symbolic link; not following it, compiling without the cache";
                    } else if (create) {
                        NN_LOG(WARNING) << "cannot create the compilation cache file " << name << ": "
                                        << std::strerror(errno) << "; compiling without the cache";
                    }
                    closeAll();
                    return false;
                }
                fds->push_back(fd);
            }
        }
        return true;
    }

    std::vector<int> model;
    std::vector<int> data;

private:
    void closeAll() {
        for (int fd : model) ::close(fd);
        for (int fd : data) ::close(fd);
        model.clear();
        data.clear();
    }
};

bool allEmpty(const CacheFds& fds) {
    for (const auto* list : {&fds.model, &fds.data}) {
        for (int fd : *list) {
            struct stat info {};
            if (fstat(fd, &info) != 0 || info.st_size != 0) return false;
        }
    }
    return true;
}

// The application's own files: prepared from them unless they are still empty, else compiled
// with them for the driver to fill.
hal::PrepareResult prepareWithCacheFds(const Device& device, const std::shared_ptr<const hal::Model>& model,
                                       hal::ExecutionPreference preference, const CacheFds& fds,
                                       const hal::CacheToken& token, const hal::PrepareQos& qos) {
    hal::IDevice& driver = *device.driver;
    if (!allEmpty(fds)) {
        auto [status, prepared] = driver.prepareModelFromCacheWithQos(qos, fds.model, fds.data, token);
        if (status == hal::ErrorStatus::NONE && prepared != nullptr) return {status, prepared};
        NN_LOG(VERBOSE) << device.name << " could not prepare from the given cache files; compiling the model";
    }
    return driver.prepareSharedModelWithQos(model, preference, qos, fds.model, fds.data, token);
}

}  // namespace

CacheFds::~CacheFds() {
    for (int fd : model) ::close(fd);
    for (int fd : data) ::close(fd);
}

std::optional<hal::CacheToken> deriveCacheToken(const hal::CacheToken& appToken,
                                                const std::vector<uint32_t>& stepOperations,
                                                const std::string& deviceName, const std::string& deviceVersion,
                                                hal::ExecutionPreference preference) {
    base::Digest digest(base::DigestAlgorithm::SHA256);
    digest.update(appToken.data(), appToken.size());
    for (uint32_t operation : stepOperations) digest.updateValue(static_cast<int32_t>(operation));
    digest.update(deviceName.data(), deviceName.size());
    digest.update(deviceVersion.data(), deviceVersion.size());
    digest.updateValue(static_cast<int32_t>(preference));
    const std::vector<uint8_t> sum = digest.finish();
    hal::CacheToken token{};
    if (sum.size() != token.size()) return std::nullopt;
    std::copy(sum.begin(), sum.end(), token.begin());
    return token;
}

std::string cacheFileBaseName(const hal::CacheToken& token) {
    std::string name;
    name.reserve(token.size() * 2);
    for (uint8_t byte : token) {
        name += static_cast<char>('A' + (byte & 0x0F));
        name += static_cast<char>('A' + (byte >> 4));
    }
    return name;
}

hal::PrepareResult prepareWithCaching(const Device& device, const std::shared_ptr<const hal::Model>& model,
                                      hal::ExecutionPreference preference, const CacheSettings& settings,
                                      const std::vector<uint32_t>& stepOperations, const hal::PrepareQos& qos) {
    hal::IDevice& driver = *device.driver;
    const auto [modelCount, dataCount] = driver.getNumberOfCacheFilesNeeded();
    const bool deviceCaches = (modelCount > 0 || dataCount > 0) && modelCount <= hal::kMaxNumberOfCacheFiles &&
                              dataCount <= hal::kMaxNumberOfCacheFiles;
    std::optional<hal::CacheToken> token;
    if (settings.token && deviceCaches) {
        token = deriveCacheToken(*settings.token, stepOperations, device.name, device.version, preference);
    }
    // Given files serve one prepared model of the counts this device needs.
    if (token && settings.fds &&
        (!stepOperations.empty() || settings.fds->model.size() != modelCount || settings.fds->data.size() != dataCount)) {
        NN_LOG(VERBOSE) << device.name << ": the given cache files do not fit this compilation; compiling without them";
        token.reset();
    }
    if (!token) return driver.prepareSharedModelWithQos(model, preference, qos, {}, {}, hal::CacheToken{});
    if (settings.fds) return prepareWithCacheFds(device, model, preference, *settings.fds, *token, qos);

    const std::string base = settings.dir + cacheFileBaseName(*token);
    {
        CacheFiles existing;
        if (existing.open(base, modelCount, dataCount, false)) {
            auto [status, prepared] = driver.prepareModelFromCacheWithQos(qos, existing.model, existing.data, *token);
            if (status == hal::ErrorStatus::NONE && prepared != nullptr) {
                NN_LOG(VERBOSE) << device.name << " prepared from its compilation cache " << base;
                return {status, prepared};
            }
            NN_LOG(VERBOSE) << device.name << " could not prepare from " << base << "; compiling the model";
        }
    }
    CacheFiles created;
    created.open(base, modelCount, dataCount, true);  // warns when it cannot
    return driver.prepareSharedModelWithQos(model, preference, qos, created.model, created.data, *token);
}

}  // namespace nnemu::runtime
