// The CPU kernels share a node's work among the interpreter's threads (--num_threads,
// src/cpu/CpuThreads.h): the shares cover every item once, in order, and every node gives the
// same bytes on any number of threads as on one, in both semantics (XNNPACK's and the builtin
// kernels'). Real TFLite's bytes are checked on one thread elsewhere (RealTflite*); the split
// must not move them.
#include <mutex>
#include <random>

#include "GeneratedModels.h"
#include "GraphBuilder.h"
#include "TestSupport.h"
#include "cpu/CpuThreads.h"
#include "cpu/DepthwiseInt8Lanes.h"

namespace nnemu::tflite::test {
namespace {

TEST(CpuThreads, OneThreadOrFewerIsNoPool) {
    EXPECT_EQ(CpuThreads::create(-1), nullptr);
    EXPECT_EQ(CpuThreads::create(0), nullptr);
    EXPECT_EQ(CpuThreads::create(1), nullptr);
    const std::unique_ptr<CpuThreads> threads = CpuThreads::create(3);
    ASSERT_NE(threads, nullptr);
    EXPECT_EQ(threads->count(), 3u);
    EXPECT_EQ(cpuShares(nullptr, 1000, 1e9), 1u);
    EXPECT_EQ(cpuShares(threads.get(), 1000, 10.0), 1u) << "too little work for a second thread";
    EXPECT_EQ(cpuShares(threads.get(), 1000, 1e9), 3u);
    EXPECT_EQ(cpuShares(threads.get(), 2, 1e9), 2u) << "no empty share";
}

TEST(CpuThreads, SharesCoverEveryItemOnceInOrder) {
    const std::unique_ptr<CpuThreads> threads = CpuThreads::create(3);
    ASSERT_NE(threads, nullptr);
    for (size_t shares = 1; shares <= 5; ++shares) {
        for (size_t items = 0; items <= 40; ++items) {
            std::vector<int> seen(items, 0);
            std::vector<std::pair<size_t, size_t>> ranges(shares, {1, 0});
            std::mutex lock;
            forCpuShares(threads.get(), shares, items, [&](size_t share, size_t begin, size_t end) {
                const std::lock_guard<std::mutex> held(lock);
                ranges.at(share) = {begin, end};
                for (size_t i = begin; i < end; ++i) ++seen.at(i);
            });
            EXPECT_EQ(seen, std::vector<int>(items, 1)) << shares << " shares of " << items;
            size_t next = 0;
            for (const auto& [begin, end] : ranges) {
                EXPECT_EQ(begin, next) << shares << " shares of " << items;
                EXPECT_LE(end - begin, items / shares + 1);
                next = end;
            }
            EXPECT_EQ(next, items);
        }
    }
}

// Runs `bytes` (one input) on the CPU path with `threads` and returns output 0's bytes.
std::vector<uint8_t> runOn(const std::vector<uint8_t>& bytes, const std::vector<uint8_t>& input, bool xnnpack,
                           int threads) {
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    EXPECT_NE(model, nullptr);
    if (model == nullptr) return {};
    DelegateOptions options;
    options.xnnpack = xnnpack;
    options.numThreads = threads;
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, options);
    if (interpreter == nullptr) return {};
    EXPECT_EQ(interpreter->inputTensor(0).byteSize(), input.size());
    std::memcpy(interpreter->inputData(0), input.data(), std::min(input.size(), interpreter->inputTensor(0).byteSize()));
    const Status ran = interpreter->invoke();
    EXPECT_TRUE(isOk(ran)) << ran.message();
    return {interpreter->outputData(0), interpreter->outputData(0) + interpreter->outputTensor(0).byteSize()};
}

// Random CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED nodes, float and 8-bit, every one shared
// however small: the same bytes on 2 and 3 threads as on 1.
TEST(CpuThreads, NodesGiveTheSameBytesOnAnyNumberOfThreads) {
    setMinSharedCost(0);
    struct Restore {
        ~Restore() { setMinSharedCost(kMinSharedCost); }
    } restore;
    std::mt19937 random(47);
    const auto pick = [&](int32_t low, int32_t high) { return low + static_cast<int32_t>(random() % (high - low + 1)); };
    for (int i = 0; i < 90; ++i) {
        const int kind = i % 3;   // conv, depthwise, fully connected
        const bool floats = i % 2 == 0, unsignedForm = !floats && i % 4 == 1;
        const fb::TensorType type = floats ? fb::TensorType_FLOAT32 : unsignedForm ? fb::TensorType_UINT8 : fb::TensorType_INT8;
        const size_t size = floats ? 4 : 1;
        const int32_t batch = pick(1, 2), k = kind == 2 ? 1 : pick(1, 3), stride = pick(1, 2);
        const int32_t h = kind == 2 ? 1 : pick(6, 17), w = kind == 2 ? 1 : pick(6, 17);
        const int32_t multiplier = kind == 1 && i % 5 == 1 ? 2 : 1;
        const int32_t inC = kind == 2 ? pick(64, 300) : pick(3, 40), outC = kind == 1 ? inC * multiplier : pick(8, kind == 2 ? 700 : 48);
        const fb::Padding padding = pick(0, 1) ? fb::Padding_SAME : fb::Padding_VALID;
        const auto outSize = [&](int32_t in) {
            return padding == fb::Padding_SAME ? (in + stride - 1) / stride : (in - k) / stride + 1;
        };
        const auto bytesOf = [&](size_t count, bool weights) {
            std::vector<uint8_t> values(count * size);
            for (size_t v = 0; v < count; ++v) {
                if (floats) {
                    const float f = static_cast<float>(pick(-1000, 1000)) / 700.0f;
                    std::memcpy(values.data() + 4 * v, &f, 4);
                } else {
                    values[v] = static_cast<uint8_t>(weights && !unsignedForm ? pick(-127, 127) : pick(0, 255));
                }
            }
            return values;
        };
        const int32_t weightCount = kind == 1 ? k * k * outC : outC * k * k * inC;
        const std::vector<uint8_t> weights = bytesOf(static_cast<size_t>(weightCount), true);
        std::vector<uint8_t> biasBytes;
        if (floats) {
            biasBytes = bytesOf(static_cast<size_t>(outC), false);
        } else {
            std::vector<int32_t> values(static_cast<size_t>(outC));
            for (int32_t& b : values) b = pick(-3000, 3000);
            biasBytes = GraphBuilder::bytes(values);
        }
        const int32_t low = unsignedForm ? 0 : -128;
        const std::vector<float> noScale;
        const std::vector<int64_t> noZero;
        const auto scale = [&](float s) { return floats ? noScale : std::vector<float>{s}; };
        const auto zero = [&](int64_t z) { return floats ? noZero : std::vector<int64_t>{z}; };
        GraphBuilder g;
        const std::vector<int32_t> inShape = kind == 2 ? std::vector<int32_t>{batch, inC} : std::vector<int32_t>{batch, h, w, inC};
        const int32_t in = g.tensor(inShape, type, {}, scale(0.03f), zero(pick(low, low + 255)));
        const std::vector<int32_t> filterShape = kind == 0   ? std::vector<int32_t>{outC, k, k, inC}
                                                 : kind == 1 ? std::vector<int32_t>{1, k, k, outC}
                                                             : std::vector<int32_t>{outC, inC};
        const int32_t filter = g.tensor(filterShape, type, weights, scale(0.01f), zero(unsignedForm ? pick(0, 255) : 0));
        const int32_t bias = g.tensor({outC}, floats ? fb::TensorType_FLOAT32 : fb::TensorType_INT32, biasBytes,
                                      scale(0.0003f), zero(0));
        const std::vector<int32_t> outShape = kind == 2 ? std::vector<int32_t>{batch, outC}
                                                        : std::vector<int32_t>{batch, outSize(h), outSize(w), outC};
        const int32_t out = g.tensor(outShape, type, {}, scale(0.05f), zero(pick(low, low + 255)));
        const auto act = static_cast<fb::ActivationFunctionType>(i % 5 == 0 ? fb::ActivationFunctionType_RELU6
                                                                             : fb::ActivationFunctionType_NONE);
        if (kind == 0) {
            g.op(fb::BuiltinOperator_CONV_2D, {in, filter, bias}, {out}, fb::BuiltinOptions_Conv2DOptions,
                 [=](flatbuffers::FlatBufferBuilder& fbb) {
                     return fb::CreateConv2DOptions(fbb, padding, stride, stride, act).Union();
                 });
        } else if (kind == 1) {
            g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {in, filter, bias}, {out}, fb::BuiltinOptions_DepthwiseConv2DOptions,
                 [=](flatbuffers::FlatBufferBuilder& fbb) {
                     return fb::CreateDepthwiseConv2DOptions(fbb, padding, stride, stride, multiplier, act).Union();
                 });
        } else {
            g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, filter, bias}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
                 [=](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateFullyConnectedOptions(fbb, act).Union(); });
        }
        g.inputs = {in};
        g.outputs = {out};
        const std::vector<uint8_t> bytes = g.buildBytes();
        size_t inputCount = 1;
        for (int32_t d : inShape) inputCount *= static_cast<size_t>(d);
        const std::vector<uint8_t> input = bytesOf(inputCount, false);
        // The 8-bit depthwise's row passes too, where this CPU would sum in registers.
        kernels::depthwise_int8::allowRegisterPath(i % 4 != 3);
        struct RegisterPath {
            ~RegisterPath() { kernels::depthwise_int8::allowRegisterPath(true); }
        } registerPath;
        for (const bool xnnpack : {true, false}) {
            SCOPED_TRACE("case " + std::to_string(i) + (xnnpack ? ", XNNPACK's arithmetic" : ", builtin arithmetic"));
            const std::vector<uint8_t> alone = runOn(bytes, input, xnnpack, 1);
            ASSERT_FALSE(alone.empty());
            for (const int threads : {2, 3}) EXPECT_EQ(runOn(bytes, input, xnnpack, threads), alone) << threads << " threads";
        }
    }
}

// Whole generated MobileNets on the CPU path: the same output bytes on 2 threads as on 1.
TEST(CpuThreads, MobileNetsGiveTheSameBytesOnTwoThreads) {
    for (const char* name : {"mobilenet_v1_0.25_224_float", "mobilenet_v2_1.0_224_int8", "mobilenet_v1_0.25_224_quant"}) {
        SCOPED_TRACE(name);
        const std::vector<uint8_t> bytes = generatedBytes(name);
        std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
        ASSERT_NE(model, nullptr);
        std::vector<uint8_t> input(model->subgraphs()[0].tensors[model->subgraphs()[0].inputs[0]].byteSize());
        std::mt19937 random(5);
        for (uint8_t& v : input) v = static_cast<uint8_t>(random());
        if (model->subgraphs()[0].tensors[model->subgraphs()[0].inputs[0]].type == ElementType::FLOAT32) {
            for (size_t v = 0; v < input.size() / 4; ++v) {
                const float f = static_cast<float>(random() % 2000) / 1000.0f - 1.0f;
                std::memcpy(input.data() + 4 * v, &f, 4);
            }
        }
        const std::vector<uint8_t> alone = runOn(bytes, input, true, 1);
        ASSERT_FALSE(alone.empty());
        EXPECT_EQ(runOn(bytes, input, true, 2), alone);
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
