// benchmark_model on an SSD post-processing whose outputs have no shape in the file (as TFLite's
// converter often writes TFLite_Detection_PostProcess): it runs, on the CPU path and with each
// NNAPI device, and its output files hold what real TFLite 2.21's builtin kernels give
// (tflite_run --xnnpack=0) on the same inputs. Skipped without ../shared/tflite.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../tflite/UnsizedDetection.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"

namespace nnemu::tooltest {
namespace {

const std::string kTfliteRun = std::string(NNEMU_SHARED_DIR) + "/tflite/bin/tflite_run";

// Float outputs within 4 units in the last place, as the interpreter's differential tests.
void expectSameFloats(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i + 4 <= got.size(); i += 4) {
        int32_t a, b;
        std::memcpy(&a, got.data() + i, 4);
        std::memcpy(&b, want.data() + i, 4);
        const int64_t oa = a < 0 ? int64_t{INT32_MIN} - a : a, ob = b < 0 ? int64_t{INT32_MIN} - b : b;
        float fa, fb;
        std::memcpy(&fa, &a, 4);
        std::memcpy(&fb, &b, 4);
        EXPECT_LE(std::llabs(oa - ob), 4) << what << ", element " << i / 4 << ": " << fa << " vs TFLite's " << fb;
    }
}

TEST(DetectionShapesRun, BenchmarkModelSizesOutputsAsTflite) {
    if (access(kTfliteRun.c_str(), X_OK) != 0) GTEST_SKIP() << "real TensorFlow Lite not found at " << kTfliteRun;
    for (const bool quantized : {false, true}) {
        SCOPED_TRACE(quantized ? "uint8" : "float");
        tflite::test::UnsizedDetectionParams params;
        params.quantized = quantized;
        const std::string dir = makeTempDir("unsized_detection");
        const std::string model = dir + "/detector.tflite";
        writeBytes(model, tflite::test::unsizedDetectionGraph(params).buildBytes());
        const std::vector<std::vector<uint8_t>> inputs = tflite::test::unsizedDetectionInputs(quantized);
        std::vector<uint8_t> all;
        for (const auto& input : inputs) all.insert(all.end(), input.begin(), input.end());
        writeBytes(dir + "/in0.bin", inputs[0]);
        writeBytes(dir + "/in1.bin", inputs[1]);
        writeBytes(dir + "/in.raw", all);

        const ToolRun real = runTool(kTfliteRun, {"--model=" + model, "--xnnpack=0", "--input=" + dir + "/in.raw",
                                                  "--output=" + dir + "/real.raw"});
        ASSERT_EQ(real.exitCode, 0) << real.out << real.err;
        const std::vector<uint8_t> want = readBytes(dir + "/real.raw");
        // boxes [1, 5, 4], classes [1, 5], scores [1, 5], count [1]: 31 floats.
        ASSERT_EQ(want.size(), 31u * 4u) << real.out << real.err;

        for (const std::string device : {"", "nnapi-reference", "synap-npu"}) {
            if (!device.empty() && !hasNnapiDevice(device)) continue;
            const std::string where = device.empty() ? "cpu" : device;
            std::vector<std::string> args = {"--graph=" + model, "--input_file=" + dir + "/in0.bin," + dir + "/in1.bin",
                                             "--output_file=" + dir + "/o0.bin," + dir + "/o1.bin," + dir + "/o2.bin," +
                                                     dir + "/o3.bin",
                                             "--num_runs=1", "--min_secs=0", "--warmup_min_secs=0",
                                             "--use_xnnpack=false"};   // TFLite's builtin kernels, as --xnnpack=0
            for (const std::string& flag : deviceFlags(device)) args.push_back(flag);
            const ToolRun run = runTool(BENCHMARK_MODEL_PATH, args, makeTempDir("root"));
            ASSERT_EQ(run.exitCode, 0) << where << "\n" << run.err;
            std::vector<uint8_t> got;
            for (int o = 0; o < 4; ++o) {
                const std::vector<uint8_t> bytes = readBytes(dir + "/o" + std::to_string(o) + ".bin");
                got.insert(got.end(), bytes.begin(), bytes.end());
            }
            expectSameFloats(got, want, where);
        }
    }
}

}  // namespace
}  // namespace nnemu::tooltest
