// The interpreter's arena (ArenaPlan.h): tensors alive at the same step never share a byte, each
// offset is aligned, and tensors whose lifetimes do not meet reuse the same bytes; on a whole
// model the CPU path's intermediate tensors take less than their sum, and an invoke's results do
// not depend on what earlier invokes left in the shared bytes.
#include <algorithm>
#include <cstring>
#include <random>

#include "ArenaPlan.h"
#include "GeneratedModels.h"
#include "TestSupport.h"

namespace nnemu::tflite::test {
namespace {

TEST(ArenaPlan, TensorsAliveTogetherNeverOverlap) {
    std::mt19937 random(77);
    for (int round = 0; round < 200; ++round) {
        std::vector<ArenaRequest> requests(1 + random() % 40);
        for (ArenaRequest& r : requests) {
            r.bytes = 1 + random() % 5000;
            r.first = random() % 30;
            r.last = r.first + random() % 6;
        }
        const ArenaPlan plan = planArena(requests);
        ASSERT_EQ(plan.offsets.size(), requests.size());
        size_t sum = 0;
        for (size_t i = 0; i < requests.size(); ++i) {
            EXPECT_EQ(plan.offsets[i] % 64, 0u);
            EXPECT_LE(plan.offsets[i] + requests[i].bytes, plan.bytes);
            sum += (requests[i].bytes + 63) / 64 * 64;
            for (size_t j = 0; j < i; ++j) {
                const ArenaRequest &a = requests[i], &b = requests[j];
                if (a.last < b.first || b.last < a.first) continue;
                const bool apart = plan.offsets[i] + a.bytes <= plan.offsets[j] || plan.offsets[j] + b.bytes <= plan.offsets[i];
                EXPECT_TRUE(apart) << "round " << round << ": requests " << i << " and " << j;
            }
        }
        EXPECT_LE(plan.bytes, sum);
    }
}

TEST(ArenaPlan, AChainTakesTwoTensors) {
    // Step i reads tensor i - 1 and writes tensor i: two are alive at any step.
    std::vector<ArenaRequest> chain;
    for (uint32_t i = 0; i < 10; ++i) chain.push_back({1000, i, i + 1});
    EXPECT_EQ(planArena(chain).bytes, 2 * 1024u);
    EXPECT_EQ(planArena({}).bytes, 0u);
}

// A float MobileNet on the CPU path: its intermediate tensors share the arena.
TEST(ArenaPlan, ModelIntermediatesShareBytes) {
    std::unique_ptr<Model> model = generatedModel("mobilenet_v1_0.25_128_float");
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> first = makeInterpreter(*model, DelegateOptions{});
    std::unique_ptr<Interpreter> second = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    size_t sum = 0;
    uintptr_t low = UINTPTR_MAX, high = 0;
    for (const Node& node : model->nodes()) {
        for (int32_t t : node.outputs) {
            if (std::find(model->outputs().begin(), model->outputs().end(), t) != model->outputs().end()) continue;
            size_t bytes = 0;
            const uint8_t* data = first->tensorData(t, &bytes);
            ASSERT_NE(data, nullptr) << "tensor " << t;
            sum += bytes;
            low = std::min(low, reinterpret_cast<uintptr_t>(data));
            high = std::max(high, reinterpret_cast<uintptr_t>(data) + bytes);
        }
    }
    EXPECT_LT(high - low, sum / 4) << "the intermediates should reuse each other's bytes";
    // The first runs three inputs, the second only the last: the same bytes (nothing an earlier
    // invoke left in the shared bytes shows).
    for (int round = 0; round < 3; ++round) {
        for (Interpreter* interpreter : {first.get(), second.get()}) {
            if (interpreter == second.get() && round < 2) continue;
            for (size_t i = 0; i < interpreter->inputCount(); ++i) {
                auto* values = reinterpret_cast<float*>(interpreter->inputData(i));
                for (size_t k = 0; k < interpreter->inputTensor(i).byteSize() / sizeof(float); ++k) {
                    values[k] = static_cast<float>((k * 37 + round * 11) % 255) / 127.5f - 1.0f;
                }
            }
            ASSERT_TRUE(isOk(interpreter->invoke()));
        }
    }
    for (size_t o = 0; o < first->outputCount(); ++o) {
        EXPECT_EQ(std::memcmp(first->outputData(o), second->outputData(o), first->outputTensor(o).byteSize()), 0);
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
