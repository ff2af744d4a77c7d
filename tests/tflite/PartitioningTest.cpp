// Partitioning as TFLite's NNAPI delegate does it: subsets, kernel indexes, the partition
// limit, device selection, and the synap-npu accelerator when it is listed.
#include <algorithm>
#include <cstring>

#include "GeneratedModels.h"
#include "Partitioning.h"
#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

DelegateOptions accelerator(const std::string& name) {
    DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = name;
    return options;
}

// nnapi-reference as the accelerator: every node it supports in one delegate kernel.
DelegateOptions wholeOnReference() {
    DelegateOptions options = accelerator("nnapi-reference");
    options.disableNnapiCpu = false;
    return options;
}

void fillInputs(Interpreter& interpreter) {
    for (size_t i = 0; i < interpreter.inputCount(); ++i) {
        for (size_t k = 0; k < interpreter.inputTensor(i).byteSize(); ++k) {
            interpreter.inputData(i)[k] = static_cast<uint8_t>((k * 37 + i * 11) % 251);
        }
    }
}

TEST(Partitioning, SubsetsAlternateAndRespectOrder) {
    std::unique_ptr<Model> model = generatedModel("mixed_resize_nearest");
    ASSERT_NE(model, nullptr);
    ASSERT_EQ(model->nodes().size(), 3u);
    std::vector<NodeSubset> subsets = partitionNodes(*model, {true, false, true});
    ASSERT_EQ(subsets.size(), 3u);
    EXPECT_TRUE(subsets[0].delegated);
    EXPECT_EQ(subsets[0].nodes, std::vector<uint32_t>{0});
    EXPECT_FALSE(subsets[1].delegated);
    EXPECT_EQ(subsets[1].nodes, std::vector<uint32_t>{1});
    EXPECT_TRUE(subsets[2].delegated);
    subsets = partitionNodes(*model, {true, true, true});
    ASSERT_EQ(subsets.size(), 1u);
    EXPECT_EQ(subsets[0].nodes, (std::vector<uint32_t>{0, 1, 2}));
    subsets = partitionNodes(*model, {false, true, true});
    ASSERT_EQ(subsets.size(), 2u);
    EXPECT_FALSE(subsets[0].delegated);
    EXPECT_EQ(subsets[1].nodes, (std::vector<uint32_t>{1, 2}));
}

TEST(Partitioning, IndependentNodesJoinOneSubset) {
    // split_concat: CONCAT(0) -> SPLIT(1) -> CONCAT(2); with SPLIT unsupported the two
    // concatenations cannot merge (the second needs the split's outputs).
    NNEMU_REQUIRE_SHARED_MODELS();
    std::unique_ptr<Model> model = loadModel(modelsDir() + "/models/split_concat.tflite");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(partitionNodes(*model, {true, false, true}).size(), 3u);
    // Two parallel convolutions after a shared input fold into one subset.
    std::unique_ptr<Model> add = generatedModel("add_float");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(partitionNodes(*add, {true}).size(), 1u);
}

TEST(Partitioning, LimitKeepsTheLargestDelegatedSubsets) {
    std::unique_ptr<Model> model = generatedModel("mobilenet_v1_0.25_128_float");
    ASSERT_NE(model, nullptr);
    const size_t count = model->nodes().size();
    std::vector<bool> supported(count, true);
    supported[3] = false;   // subsets: [0..2] delegated, [3] CPU, [4..9] delegated, [10] CPU, rest delegated
    supported[10] = false;
    const std::vector<NodeSubset> subsets = partitionNodes(*model, supported);
    ASSERT_EQ(subsets.size(), 5u);
    std::vector<bool> limited = limitDelegatedPartitions(subsets, supported, 1);
    const std::vector<NodeSubset> after = partitionNodes(*model, limited);
    size_t delegated = 0;
    for (const NodeSubset& subset : after) delegated += subset.delegated ? 1 : 0;
    EXPECT_EQ(delegated, 1u);
    EXPECT_TRUE(limited[count - 1]);  // the last, largest subset stays
    EXPECT_FALSE(limited[0]);
    EXPECT_EQ(limitDelegatedPartitions(subsets, supported, 0), supported);   // <= 0: no limit
    EXPECT_EQ(limitDelegatedPartitions(subsets, supported, 3), supported);
}

TEST(Partitioning, MixedModelOnNnapiReferenceIsOnePartition) {
    std::unique_ptr<Model> model = generatedModel("mixed_resize_nearest");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, wholeOnReference());
    ASSERT_NE(interpreter, nullptr);
    ASSERT_EQ(interpreter->partitions().size(), 1u);
    EXPECT_TRUE(interpreter->partitions()[0].delegated);
    EXPECT_EQ(interpreter->partitions()[0].nodes, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(interpreter->partitions()[0].kernelIndex, 3u);   // after the last original node
    EXPECT_EQ(interpreter->delegatedNodeCount(), 3u);
    EXPECT_EQ(interpreter->delegateKernelCount(), 1u);
    fillInputs(*interpreter);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    ASSERT_EQ(interpreter->lastPartitionTimesUs().size(), 1u);
}

// Like TFLite, the interpreter allocates only what the host touches: the tensors inside a
// delegate kernel get no buffer, those between CPU nodes do, and an input that needs no
// conversion is the partitions' own buffer. The outputs stay those of the CPU path.
TEST(Partitioning, DelegatedInternalTensorsHaveNoBuffer) {
    std::unique_ptr<Model> model = generatedModel("mixed_resize_nearest");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> delegated = makeInterpreter(*model, wholeOnReference());
    std::unique_ptr<Interpreter> cpu = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(delegated, nullptr);
    ASSERT_NE(cpu, nullptr);
    ASSERT_EQ(delegated->delegateKernelCount(), 1u);
    size_t internal = 0;
    for (const Node& node : model->nodes()) {
        for (int32_t t : node.outputs) {
            if (std::find(model->outputs().begin(), model->outputs().end(), t) != model->outputs().end()) continue;
            ++internal;
            EXPECT_EQ(delegated->tensorData(t, nullptr), nullptr) << "tensor " << t;
            EXPECT_NE(cpu->tensorData(t, nullptr), nullptr) << "tensor " << t;
        }
    }
    EXPECT_GT(internal, 0u);
    for (size_t i = 0; i < delegated->inputCount(); ++i) {
        const int32_t t = model->inputs()[i];
        ASSERT_NE(delegated->tensorData(t, nullptr), nullptr);
        if (model->tensors()[t].type != ElementType::INT8 || delegated->signedInt8()) {
            EXPECT_EQ(delegated->inputData(i), delegated->tensorData(t, nullptr));
        }
    }
    for (int32_t t : model->outputs()) EXPECT_NE(delegated->tensorData(t, nullptr), nullptr);
    fillInputs(*delegated);
    fillInputs(*cpu);
    for (int round = 0; round < 2; ++round) {   // the second run reads what the caller wrote again
        ASSERT_TRUE(isOk(delegated->invoke()));
        ASSERT_TRUE(isOk(cpu->invoke()));
        for (size_t o = 0; o < cpu->outputCount(); ++o) {
            const size_t bytes = cpu->outputTensor(o).byteSize();
            ASSERT_GT(bytes, 0u);
            EXPECT_EQ(std::memcmp(cpu->outputData(o), delegated->outputData(o), bytes), 0) << "output " << o;
        }
    }
}

TEST(Partitioning, CpuPathIsOneCpuPartitionWithNodeOrder) {
    std::unique_ptr<Model> model = generatedModel("mixed_resize_nearest");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(interpreter, nullptr);
    ASSERT_EQ(interpreter->partitions().size(), 1u);
    EXPECT_FALSE(interpreter->partitions()[0].delegated);
    EXPECT_EQ(interpreter->partitions()[0].nodes, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(interpreter->delegatedNodeCount(), 0u);
    EXPECT_EQ(interpreter->delegateKernelCount(), 0u);
    const std::vector<std::string> devices = interpreter->deviceNames();
    EXPECT_NE(std::find(devices.begin(), devices.end(), "nnapi-reference"), devices.end());
    fillInputs(*interpreter);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    ASSERT_EQ(interpreter->lastNodeTimesUs().size(), 3u);   // each CPU node timed on its own
    EXPECT_GT(interpreter->lastNodeTimesUs()[0] + interpreter->lastNodeTimesUs()[2], 0u);
}

TEST(Partitioning, DelegateWithoutAcceleratorSkipsTheCpuDevice) {
    std::unique_ptr<Model> model = generatedModel("conv_quant");
    ASSERT_NE(model, nullptr);
    DelegateOptions options;
    options.useNnapi = true;   // no name, nnapi-reference excluded (TFLite's default)
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, options);
    ASSERT_NE(interpreter, nullptr);
    const std::vector<std::string> devices = interpreter->deviceNames();
    if (devices.size() == 1) {
        EXPECT_EQ(interpreter->delegatedNodeCount(), 0u);   // nothing but the CPU device
    } else {
        EXPECT_EQ(interpreter->delegatedNodeCount(), 1u);
    }
}

TEST(Partitioning, UnknownAcceleratorIsAnError) {
    std::unique_ptr<Model> model = generatedModel("conv_float");
    ASSERT_NE(model, nullptr);
    const std::string error = failureOf(Interpreter::create(*model, accelerator("no-such-npu")));
    EXPECT_NE(error.find("no-such-npu"), std::string::npos) << error;
    EXPECT_NE(error.find("nnapi-reference"), std::string::npos) << error;   // lists what exists
}

TEST(Partitioning, CachingOptionsCompile) {
    std::unique_ptr<Model> model = generatedModel("conv_quant");
    ASSERT_NE(model, nullptr);
    const std::string dir = testing::TempDir() + "nnemu-tflite-cache";
    std::filesystem::create_directories(dir);
    DelegateOptions options = accelerator("nnapi-reference");
    options.cacheDir = dir;
    options.cacheToken = "conv_quant";
    options.executionPreference = 1;   // ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, options);
    ASSERT_NE(interpreter, nullptr);
    fillInputs(*interpreter);
    EXPECT_TRUE(isOk(interpreter->invoke()));
}

// The NPU accelerator, when the runtime lists it: RESIZE_NEAREST_NEIGHBOR in the middle runs
// on the CPU between two delegate kernels, and the results match TFLite's CPU path.
TEST(Partitioning, MixedModelOnSynapNpuWhenListed) {
    std::unique_ptr<Model> model = generatedModel("mixed_resize_nearest");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> cpu = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(cpu, nullptr);
    const std::vector<std::string> devices = cpu->deviceNames();
    if (std::find(devices.begin(), devices.end(), "synap-npu") == devices.end()) {
        GTEST_SKIP() << "the synap-npu device is not listed by this runtime";
    }
    std::unique_ptr<Interpreter> npu = makeInterpreter(*model, accelerator("synap-npu"));
    ASSERT_NE(npu, nullptr);
    ASSERT_EQ(npu->partitions().size(), 3u);
    EXPECT_EQ(npu->delegateKernelCount(), 2u);
    EXPECT_FALSE(npu->partitions()[1].delegated);
    EXPECT_EQ(npu->partitions()[1].nodes, std::vector<uint32_t>{1});
    EXPECT_EQ(npu->partitions()[0].kernelIndex, 3u);
    EXPECT_EQ(npu->partitions()[2].kernelIndex, 4u);
    fillInputs(*cpu);
    fillInputs(*npu);
    ASSERT_TRUE(isOk(cpu->invoke()));
    ASSERT_TRUE(isOk(npu->invoke()));
    for (size_t k = 0; k < cpu->outputTensor(0).byteSize(); ++k) {
        ASSERT_NEAR(cpu->outputData(0)[k], npu->outputData(0)[k], 1) << "element " << k;
    }
    DelegateOptions limited = accelerator("synap-npu");
    limited.maxDelegatedPartitions = 1;
    std::unique_ptr<Interpreter> one = makeInterpreter(*model, limited);
    ASSERT_NE(one, nullptr);
    EXPECT_EQ(one->delegateKernelCount(), 1u);
}

}  // namespace
}  // namespace nnemu::tflite::test
