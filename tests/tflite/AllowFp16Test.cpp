// allow_fp16 (benchmark_model --nnapi_allow_fp16, label_image --allow_fp16): as TFLite's NNAPI
// delegate, the delegated partitions' models are relaxed (relaxComputationFloat32toFloat16) and
// the CPU path's are not. On synap-npu a generated float MobileNet then stays within NNAPI's
// relaxed tolerance of its strict float32 outputs, keeps its top class, and the CPU path gives
// the strict bytes whatever the flag.
#include <cmath>
#include <cstring>

#include "GeneratedModels.h"
#include "TestSupport.h"

namespace nnemu::tflite::test {
namespace {

std::vector<float> runOnce(const Model& model, const DelegateOptions& options) {
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(model, options);
    if (interpreter == nullptr) return {};
    const Tensor& input = interpreter->inputTensor(0);
    const size_t count = input.byteSize() / sizeof(float);
    for (size_t k = 0; k < count; ++k) {
        const float value = std::sin(static_cast<float>(k) * 0.37f);
        std::memcpy(interpreter->inputData(0) + 4 * k, &value, 4);
    }
    EXPECT_TRUE(isOk(interpreter->invoke()));
    std::vector<float> output(interpreter->outputTensor(0).byteSize() / sizeof(float));
    std::memcpy(output.data(), interpreter->outputData(0), output.size() * sizeof(float));
    return output;
}

DelegateOptions npuOptions(bool allowFp16) {
    DelegateOptions options;
    options.useNnapi = true;
    options.acceleratorName = "synap-npu";
    options.allowFp16 = allowFp16;
    return options;
}

// Each relaxed output within the CTS's relaxed tolerance of the strict one.
void expectWithinRelaxedTolerance(const std::vector<float>& strict, const std::vector<float>& relaxed) {
    ASSERT_EQ(strict.size(), relaxed.size());
    ASSERT_FALSE(strict.empty());
    constexpr double kTolerance = 5 * 0.0009765625;  // the CTS's relaxed atol and rtol
    for (size_t i = 0; i < strict.size(); ++i) {
        EXPECT_LE(std::fabs(double{relaxed[i]} - strict[i]), kTolerance + kTolerance * std::fabs(strict[i])) << i;
    }
}

TEST(AllowFp16, DelegatedFloatModelStaysWithinTheRelaxedTolerance) {
    const std::unique_ptr<Model> model = generatedModel("mobilenet_v1_0.25_128_float");
    ASSERT_NE(model, nullptr);
    const std::vector<float> strict = runOnce(*model, npuOptions(false));
    const std::vector<float> relaxed = runOnce(*model, npuOptions(true));
    expectWithinRelaxedTolerance(strict, relaxed);
    const auto top = [](const std::vector<float>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
    EXPECT_EQ(top(relaxed), top(strict));
}

// More generated float networks on the bf16 GEMM, with tails in its rows, depth and channels: a
// 64 -> 16 fully connected layer, a 16x16 classifier, a MobileNet v3 block, and MobileNet v1 0.25
// at 224 (depths of 8 and 16, maps of 28x28 and 14x14 rows, 1001 classes): within the relaxed
// tolerance of their strict outputs on synap-npu, whichever bf16 kernel the CPU runs (AMX tiles or
// AVX512-BF16). (The fully connected layer's worst output is close to the tolerance: bf16 keeps 8
// significant bits where the CTS's tolerance is made for fp16's 11.)
TEST(AllowFp16, SmallFloatNetworksStayWithinTheRelaxedTolerance) {
    for (const char* name : {"fully_connected_float", "conv_net_float", "mobilenet_v3_block_float",
                             "mobilenet_v1_0.25_224_float"}) {
        SCOPED_TRACE(name);
        const std::unique_ptr<Model> model = generatedModel(name);
        ASSERT_NE(model, nullptr);
        const std::vector<float> strict = runOnce(*model, npuOptions(false));
        const std::vector<float> relaxed = runOnce(*model, npuOptions(true));
        expectWithinRelaxedTolerance(strict, relaxed);
    }
}

TEST(AllowFp16, TheCpuPathIsNeverRelaxed) {
    const std::unique_ptr<Model> model = generatedModel("mobilenet_v1_0.25_128_float");
    ASSERT_NE(model, nullptr);
    DelegateOptions cpu;  // no delegate: the tools' CPU path
    const std::vector<float> strict = runOnce(*model, cpu);
    cpu.allowFp16 = true;
    const std::vector<float> flagged = runOnce(*model, cpu);
    ASSERT_EQ(strict.size(), flagged.size());
    EXPECT_EQ(0, std::memcmp(strict.data(), flagged.data(), strict.size() * sizeof(float)));
}

}  // namespace
}  // namespace nnemu::tflite::test
