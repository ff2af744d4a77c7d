// benchmark_model on a float MUL whose products are denormal and whose input holds denormals,
// with the flags TFLite's invoke sets (denormals read as zero, denormal results flushed): on the
// CPU path its output file holds real TFLite 2.21's builtin kernels' bytes (tflite_run
// --xnnpack=0); delegated to each NNAPI device and through the vx delegate, the bytes real TFLite's
// benchmark_model gives driving nnemu's library on the same device (its NNAPI delegate with
// LD_LIBRARY_PATH, and --external_delegate_path). Skipped without ../shared/tflite.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../tflite/GraphBuilder.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"

namespace nnemu::tooltest {
namespace {

const std::string kTfliteBin = std::string(NNEMU_SHARED_DIR) + "/tflite/bin";

// Element i: a denormal, a tiny normal (2^-66 to 2^-60) or an ordinary value, in turn, each sign.
std::vector<float> denormalMix(size_t count, int shift) {
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) {
        const float mantissa = 1.0f + static_cast<float>((i * 37 + static_cast<size_t>(shift)) % 64) / 64.0f;
        const float sign = i % 5 < 2 ? -1.0f : 1.0f;
        const int kind = static_cast<int>((i + static_cast<size_t>(shift)) % 3);
        values[i] = sign * std::ldexp(mantissa, kind == 0 ? -140 + static_cast<int>(i % 12) : kind == 1 ? -66 + static_cast<int>(i % 7) : 1);
    }
    return values;
}

TEST(DenormalRun, BenchmarkModelFlushesAsTflite) {
    const std::string tfliteRun = kTfliteBin + "/tflite_run", realBenchmark = kTfliteBin + "/benchmark_model";
    if (access(tfliteRun.c_str(), X_OK) != 0) GTEST_SKIP() << "real TensorFlow Lite not found at " << kTfliteBin;
    const std::string dir = makeTempDir("denormal");
    const std::string model = dir + "/mul.tflite", input = dir + "/in.raw";
    tflite::test::GraphBuilder g;
    const int32_t x = g.tensor({1, 96}, tflite::fb::TensorType_FLOAT32);
    const int32_t c = g.tensor({1, 96}, tflite::fb::TensorType_FLOAT32, tflite::test::GraphBuilder::bytes(denormalMix(96, 2)));
    const int32_t y = g.tensor({1, 96}, tflite::fb::TensorType_FLOAT32);
    g.op(tflite::fb::BuiltinOperator_MUL, {x, c}, {y});
    g.inputs = {x};
    g.outputs = {y};
    writeBytes(model, g.buildBytes());
    writeBytes(input, tflite::test::GraphBuilder::bytes(denormalMix(96, 0)));

    const ToolRun builtin = runTool(tfliteRun, {"--model=" + model, "--xnnpack=0", "--input=" + input,
                                                "--output=" + dir + "/builtin.raw"});
    ASSERT_EQ(builtin.exitCode, 0) << builtin.out << builtin.err;
    const std::vector<uint8_t> builtinBytes = readBytes(dir + "/builtin.raw");
    ASSERT_EQ(builtinBytes.size(), 96u * 4u);

    const std::string libDir = std::filesystem::path(NNEMU_LIBRARY_PATH).parent_path().string();
    // XNNPACK off on both sides: TFLite's builtin kernels beside the delegate.
    const std::vector<std::string> common = {"--graph=" + model, "--use_xnnpack=false", "--num_runs=1", "--warmup_runs=0",
                                             "--min_secs=0", "--warmup_min_secs=0"};
    struct Route {
        std::string name;
        std::vector<std::string> flags;
        bool libraryPath;   // real TFLite finds nnemu's NNAPI library through LD_LIBRARY_PATH
    };
    const std::vector<Route> routes = {
            {"cpu", {}, false},
            {"nnapi-reference",
             {"--use_nnapi=true", "--nnapi_accelerator_name=nnapi-reference", "--disable_nnapi_cpu=false"}, true},
            {"synap-npu", {"--use_nnapi=true", "--nnapi_accelerator_name=synap-npu"}, true},
            {"vx", {std::string("--external_delegate_path=") + VX_DELEGATE_PATH}, false}};
    for (const Route& route : routes) {
        SCOPED_TRACE(route.name);
        if (route.libraryPath && !hasNnapiDevice(route.flags[1].substr(route.flags[1].find('=') + 1))) continue;
        std::vector<std::string> ours = common;
        ours.push_back("--input_file=" + input);
        ours.push_back("--output_file=" + dir + "/ours.raw");
        ours.insert(ours.end(), route.flags.begin(), route.flags.end());
        const ToolRun run = runTool(BENCHMARK_MODEL_PATH, ours, makeTempDir("root"));
        ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
        std::vector<uint8_t> want = builtinBytes;
        if (route.name != "cpu") {
            std::vector<std::string> theirs = common;
            theirs.insert(theirs.end(), {"--input_layer=t", "--input_layer_shape=1,96",
                                         "--input_layer_value_files=t:" + input, "--output_filepath=" + dir + "/theirs.raw"});
            theirs.insert(theirs.end(), route.flags.begin(), route.flags.end());
            const std::vector<std::string> environment = {route.libraryPath ? "LD_LIBRARY_PATH=" + libDir : "LD_LIBRARY_PATH"};
            const ToolRun real = runTool(realBenchmark, theirs, makeTempDir("root"), environment);
            ASSERT_EQ(real.exitCode, 0) << real.out << real.err;
            ASSERT_EQ((real.out + real.err).find("NNAPI acceleration is unsupported"), std::string::npos) << real.out;
            want = readBytes(dir + "/theirs.raw");
        }
        EXPECT_EQ(readBytes(dir + "/ours.raw"), want);
    }
    // The products are denormal where nothing is flushed, and TFLite's builtin kernels give none.
    const std::vector<float> a = denormalMix(96, 0), b = denormalMix(96, 2);
    size_t denormalProducts = 0, denormalOutputs = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        denormalProducts += std::fpclassify(a[i] * b[i]) == FP_SUBNORMAL ? 1 : 0;
        float out;
        std::memcpy(&out, builtinBytes.data() + i * 4, 4);
        denormalOutputs += std::fpclassify(out) == FP_SUBNORMAL ? 1 : 0;
    }
    EXPECT_GT(denormalProducts, 8u);
    EXPECT_EQ(denormalOutputs, 0u);
}

}  // namespace
}  // namespace nnemu::tooltest
