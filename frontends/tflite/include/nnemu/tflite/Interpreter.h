// Runs a Model through NNAPI the way TensorFlow Lite's NNAPI delegate would: maps every
// operator to NNAPI operations, asks the chosen device what it supports, splits the graph into
// delegated and CPU partitions, and compiles each partition as its own NNAPI model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

struct DelegateOptions {
    bool useNnapi = false;                // false: every node runs on nnapi-reference (our "CPU interpreter")
    std::string acceleratorName;          // "" = every device except nnapi-reference when disableNnapiCpu
    bool disableNnapiCpu = true;
    int32_t executionPreference = -1;     // ANEURALNETWORKS_PREFER_*, -1 = leave default
    int maxDelegatedPartitions = 0;       // <= 0: no limit (benchmark_model); apps default to 3
    std::string cacheDir, cacheToken;     // both non-empty => ANeuralNetworksCompilation_setCaching
    int numThreads = -1;
    // Lets the delegated partitions compute float32 with 16-bit precision
    // (ANeuralNetworksModel_relaxComputationFloat32toFloat16), as TFLite's delegate does with
    // allow_fp16 (benchmark_model --nnapi_allow_fp16, label_image --allow_fp16). Only with useNnapi.
    bool allowFp16 = false;
    // TFLite's default delegate (XNNPACK), as real TFLite's tools apply it after any other: the
    // 8-bit and float nodes no delegate took that XNNPACK would claim compute XNNPACK's arithmetic on the
    // tools' CPU kernels (src/XnnpackForms.h); the rest TFLite's builtin kernels'. Off: builtin
    // kernels only (`tflite_run --xnnpack=0`). benchmark_model's --use_xnnpack, label_image.
    bool xnnpack = false;
    // An external delegate (ExternalDelegate.h) replaced these node subsets: each runs through
    // runExternalKernel(k) instead of NNAPI, the other nodes run on nnapi-reference.
    std::vector<std::vector<uint32_t>> externalKernels;
    std::function<Status(size_t kernel)> runExternalKernel;
};

struct Partition {
    std::vector<uint32_t> nodes;          // TFLite node indexes, in execution order
    bool delegated = false;               // true: an NNAPI delegate kernel on the accelerator; false: CPU node(s)
    uint32_t kernelIndex = 0;             // delegate kernels get indexes after the last original node (TFLite style);
                                          // a CPU partition carries its first node's index
    int32_t externalKernel = -1;          // >= 0: run by that external delegate kernel
};

class ExecutionUnit;      // internal: one NNAPI model + compilation, or a node on a CPU kernel
class SubgraphModels;     // internal: the NNAPI models of the subgraphs control flow runs
class TensorBuffer;       // internal: a lazily zero-filled byte buffer
class InterpreterResources;   // internal: resource variables and CALL_ONCE's init subgraphs
class CpuThreads;             // internal: the CPU kernels' threads (numThreads)

class Interpreter {
public:
    // Maps the model to NNAPI; a node NNAPI cannot express runs on the tools' CPU kernel when there is one
    // (otherwise the failure "operator X at node N: reason"),
    // asks the chosen device(s) which operations they support (getSupportedOperationsForDevices), splits the
    // graph into partitions like the NNAPI delegate, compiles each partition as its own NNAPI model
    // (delegated: createForDevices(accelerator); CPU: createForDevices(nnapi-reference)), allocates tensors.
    static Result<std::unique_ptr<Interpreter>> create(const Model& model, const DelegateOptions& options);
    ~Interpreter();

    const std::vector<Partition>& partitions() const { return partitions_; }
    size_t delegatedNodeCount() const;
    size_t delegateKernelCount() const;
    std::vector<std::string> deviceNames() const { return deviceNames_; }   // NNAPI device names in order
    // int8 tensors reach NNAPI as TENSOR_QUANT8_ASYMM_SIGNED (the runtime implements feature level
    // 30 or later); false: as TENSOR_QUANT8_ASYMM shifted by 128.
    bool signedInt8() const;

    // Input/output buffers in the TFLite tensor's own type and layout (int8 stays int8: on a runtime below
    // feature level 30, the +128 shift to TENSOR_QUANT8_ASYMM is internal).
    size_t inputCount() const;
    size_t outputCount() const;
    const Tensor& inputTensor(size_t i) const;
    // After invoke, an output a CPU kernel sized at invoke (WHERE, UNIQUE, RANGE, ...) has the
    // shape it computed, as TFLite's dynamic tensors do; outputData(i) holds that many bytes.
    const Tensor& outputTensor(size_t i) const;
    uint8_t* inputData(size_t i);
    const uint8_t* outputData(size_t i) const;

    // The buffer of TFLite tensor t as the partitions use it (external delegate kernels read and
    // write it); nullptr for a tensor no node uses and for one inside an NNAPI delegate kernel
    // (it lives in the device's memory, as TFLite allocates only what the host touches).
    uint8_t* tensorData(int32_t t, size_t* bytes);

    Status invoke();        // runs every partition in order
    const std::vector<uint64_t>& lastPartitionTimesUs() const { return partitionTimesUs_; }  // per partition, last invoke
    // Per TFLite node, last invoke: each CPU node's own time (CPU partitions run node by node, as
    // TFLite's profiler lists them); 0 for delegated nodes, which only have their kernel's time.
    const std::vector<uint64_t>& lastNodeTimesUs() const { return nodeTimesUs_; }

    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

private:
    explicit Interpreter(const Model& model);
    std::vector<bool> hostTensors() const;   // per TFLite tensor: read or written outside a device
    void markExternalKernel(size_t partition, std::vector<bool>* marks) const;
    // Places the intermediate tensors among `used` in the arena; true for each tensor placed.
    std::vector<bool> planTensors(const std::vector<int32_t>& used, const std::vector<bool>& touched);
    bool convertedAtBoundary(const Tensor& tensor) const;

    const Model& model_;
    // Of the lowered graph (NnapiGraph.h), dropped once the models are built: what they reference.
    bool signedInt8_ = false;
    std::vector<std::vector<uint8_t>> modelValues_;     // constants NNAPI references, not copies
    std::shared_ptr<SubgraphModels> subgraphModels_;    // the models IF and WHILE run
    std::unique_ptr<InterpreterResources> resources_;    // kept across invokes, as TFLite keeps them
    std::vector<Partition> partitions_;
    // The threads the CPU kernels share their work with (numThreads > 1 and a node on a CPU
    // kernel); before compiled_, which uses it, so that it outlives the units.
    std::unique_ptr<CpuThreads> cpuThreads_;
    // Per partition: one compiled NNAPI model (delegate kernel) or one unit per node (CPU: an
    // NNAPI model on nnapi-reference, or the tools' own CPU kernel).
    std::vector<std::vector<std::unique_ptr<ExecutionUnit>>> compiled_;
    std::vector<std::string> deviceNames_;
    std::unique_ptr<TensorBuffer> arena_;    // the intermediate tensors' bytes (planTensors)
    std::vector<TensorBuffer> tensorData_;   // per TFLite tensor in use, NNAPI layout (int8 shifted below FL30)
    // The caller's side, TFLite layout (an input that needs no conversion has none: tensorData_ is it).
    // An output that needs no conversion has none either (convertedAtBoundary).
    std::vector<TensorBuffer> inputData_, outputData_;
    std::vector<Tensor> outputTensors_;      // the model's, with the shapes of the last invoke
    std::vector<uint64_t> partitionTimesUs_;
    std::vector<uint64_t> nodeTimesUs_;
    std::function<Status(size_t kernel)> runExternalKernel_;
};

}  // namespace nnemu::tflite
