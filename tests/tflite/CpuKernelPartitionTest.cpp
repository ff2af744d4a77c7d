// Partitioning with CPU-kernel nodes: they are never delegated and split delegated partitions,
// as TFLite's builtin kernels do between NNAPI delegate kernels; --max_delegated_partitions
// still keeps the largest; results match TFLite's CPU path.
#include "CpuKernelHarness.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

// ADD(0) -> RESIZE_NEAREST_NEIGHBOR with align_corners and half_pixel_centers (1, CPU kernel:
// NNAPI refuses the pair) -> ADD(2) -> ADD(3) -> ARG_MAX int64(4, CPU kernel)
std::unique_ptr<Model> splitModel() {
    GB g;
    const auto addOptions = [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateAddOptions(b).Union(); };
    const int32_t in = g.tensor({1, 3, 3, 2}, fb::TensorType_FLOAT32);
    const int32_t bias = g.tensor({2}, fb::TensorType_FLOAT32, GB::bytes(std::vector<float>{0.5f, -0.25f}));
    const int32_t a = g.tensor({1, 3, 3, 2}, fb::TensorType_FLOAT32);
    const int32_t size = g.tensor({2}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{5, 5}));
    const int32_t r = g.tensor({1, 5, 5, 2}, fb::TensorType_FLOAT32);
    const int32_t b = g.tensor({1, 5, 5, 2}, fb::TensorType_FLOAT32);
    const int32_t c = g.tensor({1, 5, 5, 2}, fb::TensorType_FLOAT32);
    const int32_t axis = g.tensor({1}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{3}));
    const int32_t out = g.tensor({1, 5, 5}, fb::TensorType_INT64);
    g.op(fb::BuiltinOperator_ADD, {in, bias}, {a}, fb::BuiltinOptions_AddOptions, addOptions);
    g.op(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, {a, size}, {r}, fb::BuiltinOptions_ResizeNearestNeighborOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateResizeNearestNeighborOptions(fbb, true, true).Union(); });
    g.op(fb::BuiltinOperator_ADD, {r, bias}, {b}, fb::BuiltinOptions_AddOptions, addOptions);
    g.op(fb::BuiltinOperator_ADD, {b, r}, {c}, fb::BuiltinOptions_AddOptions, addOptions);
    g.op(fb::BuiltinOperator_ARG_MAX, {c, axis}, {out}, fb::BuiltinOptions_ArgMaxOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateArgMaxOptions(fbb, fb::TensorType_INT64).Union(); });
    g.inputs = {in};
    g.outputs = {out, c};
    return g.build();
}

DelegateOptions onDevice(const std::string& name, int maxPartitions = 0) {
    DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = name;
    options.disableNnapiCpu = false;
    options.maxDelegatedPartitions = maxPartitions;
    return options;
}

std::vector<uint8_t> run(Interpreter& interpreter, size_t output) {
    const std::vector<float> x = randomValues<float>(18, -2, 2, 5);
    std::memcpy(interpreter.inputData(0), x.data(), x.size() * 4);
    EXPECT_TRUE(isOk(interpreter.invoke()));
    return std::vector<uint8_t>(interpreter.outputData(output),
                                interpreter.outputData(output) + interpreter.outputTensor(output).byteSize());
}

TEST(CpuKernelPartition, CpuKernelNodesSplitDelegatedPartitions) {
    std::unique_ptr<Model> model = splitModel();
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> cpu = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(cpu, nullptr);
    EXPECT_EQ(cpu->partitions().size(), 1u);   // every node on the CPU, in one partition
    EXPECT_EQ(cpu->delegateKernelCount(), 0u);
    for (const char* device : {"nnapi-reference", "synap-npu"}) {
        SCOPED_TRACE(device);
        const std::vector<std::string> devices = cpu->deviceNames();
        if (std::find(devices.begin(), devices.end(), device) == devices.end()) continue;
        std::unique_ptr<Interpreter> delegated = makeInterpreter(*model, onDevice(device));
        ASSERT_NE(delegated, nullptr);
        const std::vector<Partition>& partitions = delegated->partitions();
        ASSERT_EQ(partitions.size(), 4u);
        EXPECT_TRUE(partitions[0].delegated);
        EXPECT_EQ(partitions[1].nodes, std::vector<uint32_t>{1});
        EXPECT_FALSE(partitions[1].delegated);
        EXPECT_EQ(partitions[2].nodes, (std::vector<uint32_t>{2, 3}));
        EXPECT_TRUE(partitions[2].delegated);
        EXPECT_EQ(partitions[3].nodes, std::vector<uint32_t>{4});
        EXPECT_EQ(delegated->delegateKernelCount(), 2u);
        EXPECT_EQ(delegated->delegatedNodeCount(), 3u);
        EXPECT_EQ(partitions[0].kernelIndex, 5u);
        EXPECT_EQ(partitions[2].kernelIndex, 6u);
        EXPECT_EQ(run(*delegated, 0), run(*cpu, 0));
        const std::vector<float> a = valuesOf<float>(run(*delegated, 1).data(), 50);
        const std::vector<float> b = valuesOf<float>(run(*cpu, 1).data(), 50);
        for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-2f) << i;
        ASSERT_EQ(delegated->lastNodeTimesUs().size(), 5u);   // CPU-kernel nodes timed on their own

        std::unique_ptr<Interpreter> limited = makeInterpreter(*model, onDevice(device, 1));
        ASSERT_NE(limited, nullptr);
        EXPECT_EQ(limited->delegateKernelCount(), 1u);
        EXPECT_EQ(limited->delegatedNodeCount(), 2u);   // the larger subset, ADD(2) and ADD(3)
        EXPECT_EQ(limited->partitions().size(), 3u);    // CPU [0,1], delegated [2,3], CPU [4]
        EXPECT_EQ(run(*limited, 0), run(*cpu, 0));
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
