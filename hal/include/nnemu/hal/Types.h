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

enum class OperationType : int32_t {
    ADD = 0, AVERAGE_POOL_2D = 1, CONCATENATION = 2, CONV_2D = 3, DEPTHWISE_CONV_2D = 4,
    DEPTH_TO_SPACE = 5, DEQUANTIZE = 6, EMBEDDING_LOOKUP = 7, FLOOR = 8, FULLY_CONNECTED = 9,
    HASHTABLE_LOOKUP = 10, L2_NORMALIZATION = 11, L2_POOL_2D = 12,
    LOCAL_RESPONSE_NORMALIZATION = 13, LOGISTIC = 14, LSH_PROJECTION = 15, LSTM = 16,
    MAX_POOL_2D = 17, MUL = 18, RELU = 19, RELU1 = 20, RELU6 = 21, RESHAPE = 22,
    RESIZE_BILINEAR = 23, RNN = 24, SOFTMAX = 25, SPACE_TO_DEPTH = 26, SVDF = 27, TANH = 28,
    BATCH_TO_SPACE_ND = 29, DIV = 30, MEAN = 31, PAD = 32, SPACE_TO_BATCH_ND = 33, SQUEEZE = 34,
    STRIDED_SLICE = 35, SUB = 36, TRANSPOSE = 37, ABS = 38, ARGMAX = 39, ARGMIN = 40,
    AXIS_ALIGNED_BBOX_TRANSFORM = 41, BIDIRECTIONAL_SEQUENCE_LSTM = 42,
    BIDIRECTIONAL_SEQUENCE_RNN = 43, BOX_WITH_NMS_LIMIT = 44, CAST = 45, CHANNEL_SHUFFLE = 46,
    DETECTION_POSTPROCESSING = 47, EQUAL = 48, EXP = 49, EXPAND_DIMS = 50, GATHER = 51,
    GENERATE_PROPOSALS = 52, GREATER = 53, GREATER_EQUAL = 54, GROUPED_CONV_2D = 55,
    HEATMAP_MAX_KEYPOINT = 56, INSTANCE_NORMALIZATION = 57, LESS = 58, LESS_EQUAL = 59, LOG = 60,
    LOGICAL_AND = 61, LOGICAL_NOT = 62, LOGICAL_OR = 63, LOG_SOFTMAX = 64, MAXIMUM = 65,
    MINIMUM = 66, NEG = 67, NOT_EQUAL = 68, PAD_V2 = 69, POW = 70, PRELU = 71, QUANTIZE = 72,
    QUANTIZED_16BIT_LSTM = 73, RANDOM_MULTINOMIAL = 74, REDUCE_ALL = 75, REDUCE_ANY = 76,
    REDUCE_MAX = 77, REDUCE_MIN = 78, REDUCE_PROD = 79, REDUCE_SUM = 80, ROI_ALIGN = 81,
    ROI_POOLING = 82, RSQRT = 83, SELECT = 84, SIN = 85, SLICE = 86, SPLIT = 87, SQRT = 88,
    TILE = 89, TOPK_V2 = 90, TRANSPOSE_CONV_2D = 91, UNIDIRECTIONAL_SEQUENCE_LSTM = 92,
    UNIDIRECTIONAL_SEQUENCE_RNN = 93, RESIZE_NEAREST_NEIGHBOR = 94,
    // feature level 30
    QUANTIZED_LSTM = 95, IF = 96, WHILE = 97, ELU = 98, HARD_SWISH = 99, FILL = 100, RANK = 101,
    // feature level 6 (1000006)
    BATCH_MATMUL = 102, PACK = 103,
    // feature level 7 (1000007)
    MIRROR_PAD = 104, REVERSE = 105,
    OEM_OPERATION = 10000,
};

constexpr int32_t kNumberOfOperandTypes = 16;    // codes 0..15
constexpr int32_t kNumberOfOperationTypes = 106;  // codes 0..105

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

// Feature level codes (ANeuralNetworksDevice_getFeatureLevel, nnapi-fl30plus.md §0).
constexpr int64_t kFeatureLevel29 = 29;
constexpr int64_t kFeatureLevel30 = 30;
constexpr int64_t kFeatureLevel5 = 31;
constexpr int64_t kFeatureLevel6 = 1000006;
constexpr int64_t kFeatureLevel7 = 1000007;
constexpr int64_t kFeatureLevel8 = 1000008;

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
