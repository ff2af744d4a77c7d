// Plain-data HAL types mirroring NNAPI HAL 1.2. Drivers and the runtime exchange only these.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nnemu::hal {

enum class OperandType : int32_t {
    FLOAT32 = 0,
    INT32 = 1,
    UINT32 = 2,
    TENSOR_FLOAT32 = 3,
    TENSOR_INT32 = 4,
    TENSOR_QUANT8_ASYMM = 5,
    BOOL = 6,
    TENSOR_QUANT16_SYMM = 7,
    TENSOR_FLOAT16 = 8,
    TENSOR_BOOL8 = 9,
    FLOAT16 = 10,
    TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
    TENSOR_QUANT16_ASYMM = 12,
    TENSOR_QUANT8_SYMM = 13,
    TENSOR_QUANT8_ASYMM_SIGNED = 14,  // feature level 30
    SUBGRAPH = 15,                    // feature level 30: ANEURALNETWORKS_MODEL, a referenced model
    OEM = 10000,
    TENSOR_OEM_BYTE = 10001,
};

// Feature level codes (ANeuralNetworksDevice_getFeatureLevel, nnapi-fl30plus.md §0); 27 and 28
// are the API levels of the first two NNAPI releases.
constexpr int64_t kFeatureLevel27 = 27;
constexpr int64_t kFeatureLevel28 = 28;
constexpr int64_t kFeatureLevel29 = 29;
constexpr int64_t kFeatureLevel30 = 30;
constexpr int64_t kFeatureLevel5 = 31;
constexpr int64_t kFeatureLevel6 = 1000006;
constexpr int64_t kFeatureLevel7 = 1000007;
constexpr int64_t kFeatureLevel8 = 1000008;

// The rows of OperationTable.def, by code.
enum class OperationType : int32_t {
#define NN_OPERATION(name, code, featureLevel) name = code,
#include "nnemu/hal/OperationTable.def"
#undef NN_OPERATION
    OEM_OPERATION = 10000,
};

constexpr int32_t kNumberOfOperandTypes = 16;    // codes 0..15
// Codes 0..kNumberOfOperationTypes-1 (OperationTable.h checks that they are dense).
constexpr int32_t kNumberOfOperationTypes = 0
#define NN_OPERATION(name, code, featureLevel) +1
#include "nnemu/hal/OperationTable.def"
#undef NN_OPERATION
        ;

enum class ErrorStatus : int32_t {
    NONE = 0,
    DEVICE_UNAVAILABLE = 1,
    GENERAL_FAILURE = 2,
    OUTPUT_INSUFFICIENT_SIZE = 3,
    INVALID_ARGUMENT = 4,
    // feature level 30
    MISSED_DEADLINE_TRANSIENT = 5,
    MISSED_DEADLINE_PERSISTENT = 6,
    RESOURCE_EXHAUSTED_TRANSIENT = 7,
    RESOURCE_EXHAUSTED_PERSISTENT = 8,
    DEAD_OBJECT = 10000,
};

enum class DeviceStatus : int32_t { AVAILABLE = 0, BUSY = 1, OFFLINE = 2, UNKNOWN = 3 };

enum class OperandLifeTime : int32_t {
    TEMPORARY_VARIABLE = 0,
    MODEL_INPUT = 1,
    MODEL_OUTPUT = 2,
    CONSTANT_COPY = 3,
    CONSTANT_REFERENCE = 4,
    NO_VALUE = 5,
    SUBGRAPH = 6,  // feature level 30: location.offset indexes Model::referenced
};

enum class ExecutionPreference : int32_t { LOW_POWER = 0, FAST_SINGLE_ANSWER = 1, SUSTAINED_SPEED = 2 };
enum class DeviceType : int32_t { OTHER = 1, CPU = 2, GPU = 3, ACCELERATOR = 4 };
enum class MeasureTiming : int32_t { NO = 0, YES = 1 };

constexpr uint32_t kByteSizeOfCacheToken = 32;
constexpr uint32_t kMaxNumberOfCacheFiles = 32;
using CacheToken = std::array<uint8_t, kByteSizeOfCacheToken>;

// A block of memory that operands and request arguments point into. In-process the runtime
// hands drivers the mapped bytes directly; `fd` is kept for drivers that want to re-map.
class MemoryPool {
public:
    virtual ~MemoryPool() = default;
    virtual uint8_t* data() const = 0;  // nullptr if the memory cannot be mapped
    virtual size_t size() const = 0;
    virtual int fd() const { return -1; }
    virtual uint64_t fileOffset() const { return 0; }  // where in `fd` the bytes start
    virtual bool writable() const { return true; }  // false for memory mapped read-only
};

// A pool owning its bytes (runtime-internal buffers, constant copies).
class HeapPool final : public MemoryPool {
public:
    explicit HeapPool(size_t size) : bytes_(size) {}
    uint8_t* data() const override { return const_cast<uint8_t*>(bytes_.data()); }
    size_t size() const override { return bytes_.size(); }

private:
    std::vector<uint8_t> bytes_;
};

struct DataLocation {
    uint32_t poolIndex = 0;
    uint32_t offset = 0;
    uint32_t length = 0;
};

struct SymmPerChannelQuantParams {
    std::vector<float> scales;
    uint32_t channelDim = 0;
};

struct Operand {
    OperandType type = OperandType::FLOAT32;
    std::vector<uint32_t> dimensions;
    uint32_t numberOfConsumers = 0;
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    OperandLifeTime lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
    DataLocation location;
    std::optional<SymmPerChannelQuantParams> channelQuant;
};

struct Operation {
    OperationType type = OperationType::ADD;
    std::vector<uint32_t> inputs;
    std::vector<uint32_t> outputs;
};

// A model referenced by IF/WHILE (feature level 30). Its constants live in the enclosing
// Model's operandValues and pools; its SUBGRAPH operands index the same Model::referenced.
struct Subgraph {
    std::vector<Operand> operands;
    std::vector<Operation> operations;  // topologically sorted
    std::vector<uint32_t> inputIndexes;
    std::vector<uint32_t> outputIndexes;
};

// WHILE loop timeouts (nanoseconds): ANeuralNetworks_getDefaultLoopTimeout and
// ANeuralNetworks_getMaximumLoopTimeout.
constexpr uint64_t kLoopTimeoutDefault = 2'000'000'000;
constexpr uint64_t kLoopTimeoutMaximum = 15'000'000'000;

struct Model {
    std::vector<Operand> operands;
    std::vector<Operation> operations;  // topologically sorted
    std::vector<uint32_t> inputIndexes;
    std::vector<uint32_t> outputIndexes;
    std::vector<uint8_t> operandValues;  // CONSTANT_COPY data
    std::vector<std::shared_ptr<const MemoryPool>> pools;  // CONSTANT_REFERENCE data
    bool relaxComputationFloat32toFloat16 = false;
    std::vector<Subgraph> referenced;  // IF/WHILE bodies (feature level 30)
};

struct RequestArgument {
    bool hasNoValue = false;
    DataLocation location;
    std::vector<uint32_t> dimensions;  // empty: use the model's
};

struct Request {
    std::vector<RequestArgument> inputs;
    std::vector<RequestArgument> outputs;
    std::vector<std::shared_ptr<const MemoryPool>> pools;
    // How long one WHILE loop may run before the execution fails (feature level 30), in ns.
    uint64_t loopTimeoutDuration = kLoopTimeoutDefault;
    // Started by startComputeWithDependencies (feature level 30): the driver's sync fence of
    // this execution is what the application waits on.
    bool fenced = false;
};

struct OutputShape {
    std::vector<uint32_t> dimensions;
    bool isSufficient = true;
};

constexpr uint64_t kNoTiming = std::numeric_limits<uint64_t>::max();

struct Timing {
    uint64_t timeOnDevice = kNoTiming;  // microseconds
    uint64_t timeInDriver = kNoTiming;  // microseconds
};

struct PerformanceInfo {
    float execTime = std::numeric_limits<float>::max();
    float powerUsage = std::numeric_limits<float>::max();
};

struct Capabilities {
    PerformanceInfo relaxedFloat32toFloat16PerformanceScalar;
    PerformanceInfo relaxedFloat32toFloat16PerformanceTensor;
    struct OperandPerformance {
        OperandType type;
        PerformanceInfo info;
    };
    std::vector<OperandPerformance> operandPerformance;  // sorted by type; missing = FLT_MAX

    PerformanceInfo lookup(OperandType type) const;
};

struct Extension {
    std::string name;
};

}  // namespace nnemu::hal
