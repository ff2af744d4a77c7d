// The `synap-npu` device: claims what its NPU core runs correctly, prepares by validating and
// compiles each network at its first execution.
#include <fcntl.h>
#include <sys/stat.h>

#include "../compiler/Compiler.h"
#include "NpuFaults.h"
#include "SynapLog.h"
#include "PreparedNetwork.h"
#include "../stats/Statistics.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cache/ModelCacheFile.h"
#include "nnemu/synap/cache/ModelCacheSeals.h"
#include "nnemu/hal/DeviceRegistry.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/Validation.h"
#include "nnemu/props/Properties.h"
#include "nnemu/props/SynapProperties.h"
#include "nnemu/synap/DirectAccess.h"

namespace nnemu::synap {
namespace {

using hal::ErrorStatus;

class SynapDevice final : public hal::IDevice {
public:
    std::string getName() const override { return "synap-npu"; }
    // It answers getSupportedOperations for every operation code through feature level 7 (what it
    // does not claim runs elsewhere); the runtime reports the smaller of this and its own level.
    int64_t getFeatureLevel() const override { return hal::kFeatureLevel7; }
    // Changes with the compiler, so cached programs of another compiler never match.
    std::string getVersionString() const override {
        return "nnemu-" NNEMU_VERSION "-npu" + std::to_string(kCompilerVersion);
    }
    hal::DeviceType getType() const override { return hal::DeviceType::ACCELERATOR; }

    hal::Capabilities getCapabilities() const override {
        // Lower than the CPU's 1.0 so the runtime prefers the NPU for what it claims.
        const hal::PerformanceInfo fast{0.1f, 0.1f};
        hal::Capabilities capabilities;
        capabilities.relaxedFloat32toFloat16PerformanceScalar = fast;
        capabilities.relaxedFloat32toFloat16PerformanceTensor = fast;
        capabilities.operandPerformance = {{hal::OperandType::TENSOR_FLOAT32, fast},
                                           {hal::OperandType::TENSOR_QUANT8_ASYMM, fast},
                                           {hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, fast}};
        return capabilities;
    }

    std::pair<ErrorStatus, std::vector<bool>> getSupportedOperations(const hal::Model& model) override {
        Result<std::vector<bool>> claimed = claimOperations(model);
        if (!claimed.isOk()) {
            SYNAP_LOG(ERROR) << "invalid model: " << claimed.message();
            return {ErrorStatus::INVALID_ARGUMENT, {}};
        }
        std::vector<bool> supported = std::move(claimed).value();
        touchStatistics();  // a compilation is a statistics touch: a pending reset shows now
        props::faults::refresh();  // the fault properties, read at every compilation
        // vendor.NNAPI_SYNAP_DISABLE=1 hides the NPU from NNAPI; read at every compilation.
        if (props::SynapProperties::disable()) supported.assign(supported.size(), false);
        return {ErrorStatus::NONE, supported};
    }

    // The NNAPI compilation cache: one model cache file holding the whole NPU program, offered
    // only while vendor.npu.cache.model=1 (read at each call).
    std::pair<uint32_t, uint32_t> getNumberOfCacheFilesNeeded() const override {
        return props::SynapProperties::cacheModel() ? std::pair<uint32_t, uint32_t>{1, 0}
                                                    : std::pair<uint32_t, uint32_t>{0, 0};
    }

    hal::PrepareResult prepareModelFromCache(const std::vector<int>& modelCache, const std::vector<int>& dataCache,
                                             const hal::CacheToken& token) override {
        if (!props::SynapProperties::cacheModel()) return {ErrorStatus::GENERAL_FAILURE, nullptr};
        if (modelCache.size() != 1 || !dataCache.empty()) return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        // A failed read: the runtime prepares the model instead, as Android's does.
        props::faults::refresh();
        if (auto fault = npuFault(props::faults::Point::CACHE_READ)) return {*fault, nullptr};
        const int flags = fcntl(modelCache[0], F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) != O_RDWR) return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        // The file's seal, when the driver knows it to be right (ModelCacheSeals.h): the payload's
        // checksum is skipped if the file still has it.
        const std::string sealsBeside = props::SynapProperties::cacheFile();
        const std::string root = props::deviceRoot();
        struct stat file {};
        const cache::ModelCacheSeal known = fstat(modelCache[0], &file) == 0
                                                    ? cache::recordedModelCacheSeal(sealsBeside, root, file)
                                                    : cache::ModelCacheSeal{};
        cache::ModelCacheSeal verified;
        Result<cache::ProgramImage> program =
                cache::mapModelCacheFile(modelCache[0], token, kCompilerVersion, known, &verified);
        Result<std::shared_ptr<PreparedNetwork>> network =
                program.isOk() ? PreparedNetwork::fromCachedProgram(std::move(program).value()) : program.status();
        if (network.isOk() && verified != known) cache::recordModelCacheSeal(sealsBeside, root, verified);
        if (!network.isOk()) {
            cache::cacheCounters().modelCacheRejects++;
            // An empty file is a compilation that never ran its first inference, not damage.
            struct stat info {};
            const bool empty = fstat(modelCache[0], &info) == 0 && info.st_size == 0;
            if (empty) {
                SYNAP_LOG(INFO) << "the NNAPI model cache file holds no program yet";
            } else {
                SYNAP_LOG(WARNING) << "refusing the NNAPI model cache file: " << network.message();
            }
            return {ErrorStatus::GENERAL_FAILURE, nullptr};
        }
        cache::cacheCounters().modelCacheLoads++;
        SYNAP_LOG(INFO) << "network loaded from the NNAPI model cache";
        return {ErrorStatus::NONE, std::move(network).value()};
    }

    hal::PrepareResult prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                    const std::vector<int>& modelCache, const std::vector<int>&,
                                    const hal::CacheToken& token) override {
        return prepareShared(std::make_shared<const hal::Model>(model), preference, modelCache, token);
    }

    // The runtime's model is kept as is, not copied (the network compiles it at its first inference).
    hal::PrepareResult prepareSharedModelWithQos(const std::shared_ptr<const hal::Model>& model,
                                                 hal::ExecutionPreference preference, const hal::PrepareQos& qos,
                                                 const std::vector<int>& modelCache, const std::vector<int>&,
                                                 const hal::CacheToken& token) override {
        if (hal::deadlinePassed(qos.deadline)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, nullptr};
        return prepareShared(model, preference, modelCache, token);
    }

private:
    hal::PrepareResult prepareShared(const std::shared_ptr<const hal::Model>& shared, hal::ExecutionPreference preference,
                                     const std::vector<int>& modelCache, const hal::CacheToken& token) {
        const hal::Model& model = *shared;
        if (static_cast<int32_t>(preference) < 0 || static_cast<int32_t>(preference) > 2) {
            return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        }
        auto [status, supported] = getSupportedOperations(model);
        if (status != ErrorStatus::NONE) return {status, nullptr};
        if (auto fault = npuFault(props::faults::Point::PREPARE)) return {*fault, nullptr};
        for (size_t i = 0; i < supported.size(); ++i) {
            if (!supported[i]) {
                SYNAP_LOG(ERROR) << "cannot run " << hal::operationName(model.operations[i].type);
                return {ErrorStatus::INVALID_ARGUMENT, nullptr};
            }
        }
        auto network = std::make_shared<PreparedNetwork>(shared);
        // vendor.npu.cache.model is read when the prepared model is built (synap-behaviors.md §1.1).
        if (modelCache.size() == 1 && props::SynapProperties::cacheModel()) network->saveProgramTo(modelCache[0], token);
        return {ErrorStatus::NONE, std::move(network)};
    }
};

// Rank 0: the NPU is listed first, before nnapi-reference.
const hal::DeviceRegistrar kRegistrar(0, [] { return std::make_shared<SynapDevice>(); });

}  // namespace
}  // namespace nnemu::synap
