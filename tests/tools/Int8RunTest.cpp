// int8 models end to end. benchmark_model runs over libneuralnetworks.so (feature level 30 and
// later): the loader keeps int8 signed, and a full-integer int8 MobileNet goes to NNAPI whole, as
// one delegated partition, with the results of the loader's CPU path (nnapi-reference node by
// node) within one step.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <regex>
#include <string>
#include <vector>

#include "GeneratedModelTest.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu::tooltest {
namespace {

const std::string kBenchmark = BENCHMARK_MODEL_PATH;

const char* const kSignedLine = "int8 as TENSOR_QUANT8_ASYMM_SIGNED";

const char* const kWhole = "INFO: Explicitly applied NNAPI delegate, and the model graph will be completely executed by "
                           "the delegate.\n";

struct Outcome {
    std::string log;
    std::vector<std::vector<uint8_t>> outputs;   // raw bytes, in output order
};

// An 8-bit picture in the input's own quantization: smooth gradients and two rectangles.
std::vector<uint8_t> testInput(const tflite::Tensor& input) {
    const int32_t h = input.shape[1], w = input.shape[2], c = input.shape[3];
    std::vector<uint8_t> bytes(static_cast<size_t>(h * w * c));
    for (int32_t y = 0; y < h; ++y) {
        for (int32_t x = 0; x < w; ++x) {
            for (int32_t k = 0; k < c; ++k) {
                int pixel = 40 + (3 * x + 2 * y + 50 * k) % 120;
                if (x >= 8 && x < 28 && y >= 10 && y < 40) pixel = 230 - 20 * k;
                const float real = (static_cast<float>(pixel) - 128.0f) / 128.0f;
                const long q = std::lround(real / input.scale) + input.zeroPoint;
                const long low = input.type == tflite::ElementType::INT8 ? -128 : 0;
                bytes[static_cast<size_t>((y * w + x) * c + k)] = static_cast<uint8_t>(std::clamp(q, low, low + 255));
            }
        }
    }
    return bytes;
}

int elementValue(const tflite::Tensor& tensor, uint8_t byte) {
    return tensor.type == tflite::ElementType::INT8 ? static_cast<int8_t>(byte) : byte;
}

// Class indexes by score, highest first (ties: lower index first).
std::vector<size_t> ranking(const tflite::Tensor& tensor, const std::vector<uint8_t>& bytes) {
    std::vector<size_t> order(bytes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return elementValue(tensor, bytes[a]) > elementValue(tensor, bytes[b]);
    });
    return order;
}

class Int8Run : public testing::Test {
protected:
    void SetUp() override {
        if (kModelgen.empty()) GTEST_SKIP() << "nnemu_modelgen is not part of this build";
        dir_ = makeTempDir("int8");
    }

    void load(const std::string& path) {
        model_ = tflite::test::expectValue(tflite::Model::load(path));
        ASSERT_NE(model_, nullptr);
    }

    void generate(const std::string& name) {
        path_ = dir_ + "/" + name + ".tflite";
        const ToolRun run = runTool(kModelgen, {name, path_});
        ASSERT_EQ(run.exitCode, 0) << run.err;
        ASSERT_NO_FATAL_FAILURE(load(path_));
        writeBytes(dir_ + "/input.bin", testInput(model_->tensors()[model_->inputs()[0]]));
    }

    // One benchmark_model run with the test input and the given extra flags. NNEMU_LOG=info
    // makes the loader say how it maps int8.
    Outcome run(const std::string& tool, const std::vector<std::string>& flags, const std::string& graph = "",
                const std::string& input = "") {
        std::string outputList;
        for (size_t o = 0; o < model_->outputs().size(); ++o) {
            outputList += (o ? "," : "") + dir_ + "/out" + std::to_string(o) + ".bin";
        }
        std::vector<std::string> args = {"--graph=" + (graph.empty() ? path_ : graph),
                                         "--input_file=" + (input.empty() ? dir_ + "/input.bin" : input),
                                         "--output_file=" + outputList, "--num_runs=1", "--min_secs=0",
                                         "--warmup_runs=1", "--warmup_min_secs=0"};
        args.insert(args.end(), flags.begin(), flags.end());
        setenv("NNEMU_LOG", "info", 1);
        const ToolRun result = runTool(tool, args, makeTempDir("root"));
        unsetenv("NNEMU_LOG");
        Outcome outcome;
        outcome.log = result.err;
        EXPECT_EQ(result.exitCode, 0) << result.err;
        if (result.exitCode != 0) return outcome;
        for (size_t o = 0; o < model_->outputs().size(); ++o) {
            outcome.outputs.push_back(readBytes(dir_ + "/out" + std::to_string(o) + ".bin"));
        }
        return outcome;
    }

    // The loader keeps int8 signed when the library reports feature level 30 or later (it exports
    // ANeuralNetworks_getRuntimeFeatureLevel).
    bool signedInt8Kept(const Outcome& outcome) { return outcome.log.find(kSignedLine) != std::string::npos; }

    // Same top class (either of two within one step of each other), the top 3 of each among the
    // top 5 of the other, every element within 1 (elementBound: false where the two compute a node
    // with other semantics by design, see SharedTf2MobileNetIsWholeOnTheShippedLibrary).
    void expectClose(const Outcome& got, const Outcome& expected, const std::string& what, bool elementBound = true) {
        ASSERT_EQ(got.outputs.size(), expected.outputs.size()) << what;
        for (size_t o = 0; o < got.outputs.size(); ++o) {
            const tflite::Tensor& tensor = model_->tensors()[model_->outputs()[o]];
            const std::vector<uint8_t>& a = got.outputs[o];
            const std::vector<uint8_t>& b = expected.outputs[o];
            ASSERT_EQ(a.size(), tensor.byteSize()) << what;
            ASSERT_EQ(b.size(), tensor.byteSize()) << what;
            int worst = 0;
            for (size_t i = 0; i < a.size(); ++i) {
                worst = std::max(worst, std::abs(elementValue(tensor, a[i]) - elementValue(tensor, b[i])));
            }
            if (elementBound) {
                EXPECT_LE(worst, 1) << what << ": output " << o;
            }
            const std::vector<size_t> ra = ranking(tensor, a), rb = ranking(tensor, b);
            const auto score = [&](const std::vector<uint8_t>& bytes, size_t i) { return elementValue(tensor, bytes[i]); };
            const bool nearTie = ra.size() > 1 && score(b, rb[0]) - score(b, rb[1]) <= 1 && score(b, ra[0]) >= score(b, rb[0]) - 1;
            EXPECT_TRUE(ra[0] == rb[0] || nearTie) << what << ": top class " << ra[0] << " vs " << rb[0];
            for (size_t k = 0; k < 3 && k < ra.size(); ++k) {
                EXPECT_NE(std::find(rb.begin(), rb.begin() + std::min<size_t>(5, rb.size()), ra[k]),
                          rb.begin() + std::min<size_t>(5, rb.size()))
                    << what << ": class " << ra[k];
            }
        }
    }

    std::string dir_, path_;
    std::unique_ptr<tflite::Model> model_;
};

const std::vector<std::string> kOnReference = {"--use_nnapi=true", "--nnapi_accelerator_name=nnapi-reference"};

std::string replacingLine(size_t nodes) {
    return "VERBOSE: Replacing " + std::to_string(nodes) + " out of " + std::to_string(nodes) +
           " node(s) with delegate (TfLiteNnapiDelegate) node, yielding 1 partitions for the whole graph.\n";
}

TEST_F(Int8Run, FullInt8MobileNetIsWholeOnTheShippedLibrary) {
    ASSERT_NO_FATAL_FAILURE(generate("mobilenet_v1_0.25_128_full_int8"));
    ASSERT_EQ(model_->tensors()[model_->inputs()[0]].type, tflite::ElementType::INT8);
    ASSERT_EQ(model_->tensors()[model_->outputs()[0]].type, tflite::ElementType::INT8);
    const Outcome cpu = run(kBenchmark, {});
    if (!signedInt8Kept(cpu)) {
        GTEST_SKIP() << "libneuralnetworks.so does not report feature level 30 (it exports neither "
                        "ANeuralNetworks_getRuntimeFeatureLevel nor ANeuralNetworksCompilation_setTimeout yet)";
    }
    const Outcome whole = run(kBenchmark, kOnReference);
    EXPECT_NE(whole.log.find(kSignedLine), std::string::npos) << whole.log;
    EXPECT_NE(whole.log.find(replacingLine(model_->nodes().size())), std::string::npos) << whole.log;
    EXPECT_NE(whole.log.find(kWhole), std::string::npos) << whole.log;
    expectClose(whole, cpu, "delegated vs CPU path, feature level 30");

    // The installed tool (libneuralnetworks.so, feature level 30) maps int8 the same way.
    const Outcome installed = run(kBenchmark, kOnReference);
    EXPECT_NE(installed.log.find(kSignedLine), std::string::npos) << installed.log;
    EXPECT_NE(installed.log.find(kWhole), std::string::npos) << installed.log;
    expectClose(installed, cpu, "benchmark_model, second run");
}

TEST_F(Int8Run, Int8ConvNetIsWholeOnTheShippedLibrary) {
    ASSERT_NO_FATAL_FAILURE(generate("conv_net_int8"));
    const Outcome cpu = run(kBenchmark, {});
    if (!signedInt8Kept(cpu)) GTEST_SKIP() << "libneuralnetworks.so does not report feature level 30";
    const Outcome whole = run(kBenchmark, kOnReference);
    EXPECT_NE(whole.log.find(replacingLine(model_->nodes().size())), std::string::npos) << whole.log;
    EXPECT_NE(whole.log.find(kWhole), std::string::npos) << whole.log;
    expectClose(whole, cpu, "delegated vs CPU path, feature level 30");
    expectClose(run(kBenchmark, {}), cpu, "benchmark_model, second run");
}

// The generated full-int8 MobileNet whole on synap-npu: close to the CPU path, and
// nnapi-reference's outputs to the bit. Should synap-npu stop claiming a signed int8 operation
// of the model, the test says so.
TEST_F(Int8Run, FullInt8MobileNetOnSynapNpu) {
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    ASSERT_NO_FATAL_FAILURE(generate("mobilenet_v1_0.25_128_full_int8"));
    const Outcome cpu = run(kBenchmark, {});
    if (!signedInt8Kept(cpu)) GTEST_SKIP() << "libneuralnetworks.so does not report feature level 30";
    const Outcome npu = run(kBenchmark, {"--use_nnapi=true", "--nnapi_accelerator_name=synap-npu"});
    if (npu.log.find(kWhole) == std::string::npos) {
        GTEST_SKIP() << "synap-npu does not claim every signed int8 operation of the model";
    }
    expectClose(npu, cpu, "synap-npu vs CPU path");
    EXPECT_EQ(npu.outputs, run(kBenchmark, kOnReference).outputs) << "synap-npu vs nnapi-reference";
}

// The TF2 post-training-quantized MobileNet v2 of the shared corpus (int8 inside, uint8 edges):
// whole on libneuralnetworks.so, Egyptian cat (286) on top (libcoral's oracle) with a score of at
// least Arm NN's 153/256 less two steps (the corpus README's allowance around libcoral's 0.6).
TEST_F(Int8Run, SharedTf2MobileNetIsWholeOnTheShippedLibrary) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string graph = kModelsDir + "/models/tf2_mobilenet_v2_1.0_224_ptq.tflite";
    ASSERT_NO_FATAL_FAILURE(load(graph));
    const std::string input = kModelsDir + "/inputs/cat_224x224x3_u8.bin";
    // TFLite's builtin kernels on the CPU path (no XNNPACK), as tflite_run --xnnpack=0 below.
    const Outcome cpu = run(kBenchmark, {"--use_xnnpack=false"}, graph, input);
    if (!signedInt8Kept(cpu)) GTEST_SKIP() << "libneuralnetworks.so does not report feature level 30";
    const Outcome whole = run(kBenchmark, kOnReference, graph, input);
    EXPECT_NE(whole.log.find(replacingLine(model_->nodes().size())), std::string::npos) << whole.log;
    EXPECT_NE(whole.log.find(kWhole), std::string::npos) << whole.log;
    // Its global pool is an int8 MEAN and its convolutions int8 CONV_2D: delegated, they round as
    // NNAPI's; on the CPU path as TFLite's kernels (frontends/tflite/src/TfliteKernelForms.cpp), so
    // the scores may lie several steps apart after the classifier: the rankings are compared, not
    // each element.
    expectClose(whole, cpu, "delegated vs CPU path", false);
    // The CPU path gives real TFLite's builtin kernels' bytes, when ../shared/tflite is there.
    const std::string tfliteRun = std::string(NNEMU_SHARED_DIR) + "/tflite/bin/tflite_run";
    if (access(tfliteRun.c_str(), X_OK) == 0) {
        const std::string out = dir_ + "/tflite.bin";
        const ToolRun real = runTool(tfliteRun, {"--model=" + graph, "--input=" + input, "--output=" + out, "--xnnpack=0"},
                                     makeTempDir("tflite"));
        ASSERT_EQ(real.exitCode, 0) << real.err;
        ASSERT_EQ(cpu.outputs.size(), 1u);
        EXPECT_EQ(cpu.outputs[0], readBytes(out)) << "CPU path vs TFLite's builtin kernels";
    }
    for (const Outcome* outcome : {&cpu, &whole}) {
        ASSERT_EQ(outcome->outputs.size(), 1u);
        const std::vector<uint8_t>& scores = outcome->outputs[0];
        ASSERT_EQ(scores.size(), 1001u);
        const size_t top = static_cast<size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
        EXPECT_EQ(top, 286u);
        EXPECT_GE(scores[286], 151) << "Arm NN's 153 less the two steps the corpus README allows";
    }
}

// --use_xnnpack's three states, as TFLite's benchmark_model reads them, on the shared quantized
// classifiers (uint8 and the TF2 int8 one): unset and true apply TFLite's default delegate (the CPU
// path gives tflite_run --xnnpack=1's bytes), false leaves TFLite's builtin kernels (--xnnpack=0).
TEST_F(Int8Run, XnnpackFlagStatesOnSharedClassifiers) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string tfliteRun = std::string(NNEMU_SHARED_DIR) + "/tflite/bin/tflite_run";
    if (access(tfliteRun.c_str(), X_OK) != 0) GTEST_SKIP() << "../shared/tflite is absent: no real TFLite to compare with";
    const std::pair<const char*, const char*> kModels[] = {{"mobilenet_v1_0.5_160_quant", "cat_160x160x3_u8.bin"},
                                                           {"mobilenet_v2_1.0_224_quant", "bird_224x224x3_u8.bin"},
                                                           {"tf2_mobilenet_v2_1.0_224_ptq", "cat_224x224x3_u8.bin"}};
    for (const auto& [name, picture] : kModels) {
        SCOPED_TRACE(name);
        const std::string graph = kModelsDir + "/models/" + name + ".tflite";
        const std::string input = kModelsDir + "/inputs/" + picture;
        ASSERT_NO_FATAL_FAILURE(load(graph));
        std::vector<uint8_t> real[2];
        for (int xnnpack = 0; xnnpack < 2; ++xnnpack) {
            const std::string out = dir_ + "/tflite" + std::to_string(xnnpack) + ".bin";
            const ToolRun ran = runTool(tfliteRun, {"--model=" + graph, "--input=" + input, "--output=" + out,
                                                    "--xnnpack=" + std::to_string(xnnpack)},
                                        makeTempDir("tflite"));
            ASSERT_EQ(ran.exitCode, 0) << ran.err;
            real[xnnpack] = readBytes(out);
        }
        const std::pair<std::vector<std::string>, int> kStates[] = {
                {{}, 1}, {{"--use_xnnpack=true"}, 1}, {{"--use_xnnpack=false"}, 0}};
        for (const auto& [flags, xnnpack] : kStates) {
            SCOPED_TRACE(flags.empty() ? "--use_xnnpack unset" : flags[0]);
            const Outcome cpu = run(kBenchmark, flags, graph, input);
            ASSERT_EQ(cpu.outputs.size(), 1u);
            EXPECT_EQ(cpu.outputs[0], real[xnnpack]) << "against tflite_run --xnnpack=" << xnnpack;
            // TFLite's line whenever its default delegate is created (no explicit delegate here).
            EXPECT_EQ(cpu.log.find("Created TensorFlow Lite XNNPACK delegate for CPU.") != std::string::npos,
                      xnnpack == 1);
        }
    }
}

// The same model on synap-npu: whole, same top class as
// the CPU path and the oracle's threshold, and nnapi-reference's scores to the bit: the NPU core
// runs the network's layers on its exact own kernels or on XNNPACK layers that round like the
// reference.
TEST_F(Int8Run, SharedTf2MobileNetOnSynapNpu) {
    SKIP_WITHOUT_SHARED_MODELS();
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    const std::string graph = kModelsDir + "/models/tf2_mobilenet_v2_1.0_224_ptq.tflite";
    ASSERT_NO_FATAL_FAILURE(load(graph));
    const std::string input = kModelsDir + "/inputs/cat_224x224x3_u8.bin";
    const Outcome cpu = run(kBenchmark, {}, graph, input);
    if (!signedInt8Kept(cpu)) GTEST_SKIP() << "libneuralnetworks.so does not report feature level 30";
    const Outcome npu = run(kBenchmark, {"--use_nnapi=true", "--nnapi_accelerator_name=synap-npu"}, graph, input);
    if (npu.log.find(kWhole) == std::string::npos) {
        GTEST_SKIP() << "synap-npu does not claim every signed int8 operation of the model";
    }
    ASSERT_EQ(npu.outputs.size(), 1u);
    ASSERT_EQ(npu.outputs[0].size(), 1001u);
    const tflite::Tensor& scores = model_->tensors()[model_->outputs()[0]];
    EXPECT_EQ(ranking(scores, npu.outputs[0])[0], ranking(scores, cpu.outputs[0])[0]);
    EXPECT_EQ(ranking(scores, npu.outputs[0])[0], 286u);
    EXPECT_GE(npu.outputs[0][286], 151) << "Arm NN's 153 less the two steps the corpus README allows";
    EXPECT_EQ(npu.outputs, run(kBenchmark, kOnReference, graph, input).outputs) << "synap-npu vs nnapi-reference";
}

// label_image over the same TF2 model and the cat picture, whole on nnapi-reference: the
// label oracle again, and the same first line as the installed label_image.
TEST(Int8LabelImage, SharedTf2MobileNetOnTheShippedLibrary) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::vector<std::string> args = {"-m", kModelsDir + "/models/tf2_mobilenet_v2_1.0_224_ptq.tflite", "-i",
                                           kModelsDir + "/images/cat.bmp", "-l",
                                           kModelsDir + "/labels/imagenet_labels.txt",
                                           "--accelerator_name=nnapi-reference"};
    setenv("NNEMU_LOG", "info", 1);
    const ToolRun next = runTool(LABEL_IMAGE_PATH, args, makeTempDir("root"));
    const ToolRun current = runTool(LABEL_IMAGE_PATH, args, makeTempDir("root"));
    unsetenv("NNEMU_LOG");
    ASSERT_EQ(next.exitCode, 0) << next.err;
    ASSERT_EQ(current.exitCode, 0) << current.err;
    if (next.err.find(kSignedLine) == std::string::npos) {
        GTEST_SKIP() << "libneuralnetworks.so does not report feature level 30";
    }
    EXPECT_NE(next.err.find("68 of 68 node(s) delegated in 1 kernel(s)"), std::string::npos) << next.err;
    // The first result line: score, class index, label.
    const std::regex first(R"(INFO: ([0-9.]+): ([0-9]+) ([^\n]*)\n)");
    std::smatch match, other;
    ASSERT_TRUE(std::regex_search(next.err, match, first)) << next.err;
    EXPECT_EQ(match[2].str() + " " + match[3].str(), "286 Egyptian cat");
    EXPECT_GE(std::stof(match[1]), 0.6f - 2.0f / 255.0f);
    ASSERT_TRUE(std::regex_search(current.err, other, first)) << current.err;
    EXPECT_EQ(other[2].str(), "286");
    EXPECT_NEAR(std::stof(match[1]), std::stof(other[1]), 1.5f / 255.0f);
}

// person_detect: int8 input and output. Through libneuralnetworks.so it goes whole to NNAPI and still
// tells a person from none (TFLM's test).
TEST_F(Int8Run, SharedPersonDetectIsWholeOnTheShippedLibrary) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string graph = kModelsDir + "/models/person_detect.tflite";
    ASSERT_NO_FATAL_FAILURE(load(graph));
    for (const std::string image : {"person", "no_person"}) {
        const std::string input = kModelsDir + "/inputs/" + image + "_96x96x1_i8.bin";
        // TFLite's builtin kernels on the CPU path: within a step of NNAPI's delegated values (with
        // XNNPACK's float requantization three steps apart on no_person; real TFLite 2.21 refuses
        // this TFLite Micro model's quantized_dimension 3, so it gives no oracle either way).
        const Outcome cpu = run(kBenchmark, {"--use_xnnpack=false"}, graph, input);
        if (!signedInt8Kept(cpu)) GTEST_SKIP() << "libneuralnetworks.so does not report feature level 30";
        const Outcome whole = run(kBenchmark, kOnReference, graph, input);
        EXPECT_NE(whole.log.find(kWhole), std::string::npos) << whole.log;
        expectClose(whole, cpu, image + ": delegated vs CPU path");
        ASSERT_EQ(whole.outputs.size(), 1u);
        ASSERT_EQ(whole.outputs[0].size(), 2u);
        const int noPerson = static_cast<int8_t>(whole.outputs[0][0]), person = static_cast<int8_t>(whole.outputs[0][1]);
        if (image == "person") {
            EXPECT_GT(person, noPerson);
        } else {
            EXPECT_GT(noPerson, person);
        }
    }
}

}  // namespace
}  // namespace nnemu::tooltest
