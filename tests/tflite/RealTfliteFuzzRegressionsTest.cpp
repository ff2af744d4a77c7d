// The loader fuzzer's regression inputs (tests/fuzz/regressions/*.tflite) against real
// TensorFlow Lite: each was a crash or undefined behaviour once, fixed by giving what TFLite's
// x86 build computes (e.g. a ratio of scales that overflows float, a float past int32 converted
// as cvttss2si does). Where both TFLite's builtin kernels (tflite_run --xnnpack=0) and nnemu's
// CPU path run a model, on the inputs the fuzz harness gives (byte k of input i = k * 31 + i),
// their outputs must agree, under both semantics of the CPU nodes; a model either refuses is
// listed, not compared.
#include <filesystem>
#include <set>

#include "RealTflite.h"

namespace nnemu::tflite::test {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> regressionModels() {
    std::vector<fs::path> files;
    const fs::path dir = fs::path(NNEMU_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".tflite") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// xnnpack: the CPU nodes' two semantics, as the harness picks them: TFLite's builtin kernels
// (tflite_run --xnnpack=0), or its default delegate's forms (--xnnpack=1).
class RealTfliteFuzzRegressions : public ::testing::TestWithParam<bool> {};

TEST_P(RealTfliteFuzzRegressions, OutputsMatchTfliteWhereBothRun) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const bool xnnpack = GetParam();
    // Inputs whose fix is TFLite's arithmetic (not a refusal): both must run them.
    const std::set<std::string> mustCompare = {"mean-scale-ratio-overflow.tflite", "squeeze-empty-tensor.tflite",
                                                "comparison-zero-point-overflow.tflite", "softmax-table-nan.tflite"};
    std::set<std::string> compared;
    std::string skipped;
    for (const fs::path& path : regressionModels()) {
        SCOPED_TRACE(path.filename().string());
        const std::vector<uint8_t> bytes = readFile(path.string());
        Result<std::unique_ptr<Model>> loaded = Model::fromBuffer(bytes);
        if (!loaded) {
            skipped += " " + path.filename().string() + " (loader: " + loaded.status().message() + ")";
            continue;
        }
        DelegateOptions options;
        options.xnnpack = xnnpack;
        Result<std::unique_ptr<Interpreter>> created = Interpreter::create(**loaded, options);
        if (!created) {
            skipped += " " + path.filename().string() + " (" + created.status().message() + ")";
            continue;
        }
        Interpreter& interpreter = **created;
        std::vector<std::vector<uint8_t>> inputs;
        for (size_t i = 0; i < interpreter.inputCount(); ++i) {
            std::vector<uint8_t> input(interpreter.inputTensor(i).byteSize());
            for (size_t k = 0; k < input.size(); ++k) input[k] = static_cast<uint8_t>(k * 31 + i);
            if (!input.empty()) std::memcpy(interpreter.inputData(i), input.data(), input.size());
            inputs.push_back(std::move(input));
        }
        const Status ran = interpreter.invoke();
        const RealTfliteResult real = runRealTflite(bytes, inputs, 1, xnnpack);
        if (!ran || !real.ok) {
            skipped += " " + path.filename().string() + (ran ? " (TFLite fails)" : " (" + ran.message() + ")");
            continue;
        }
        ASSERT_EQ(real.outputs.size(), interpreter.outputCount());
        for (size_t o = 0; o < interpreter.outputCount(); ++o) {
            const std::vector<uint8_t>& want = real.outputs[o];
            ASSERT_EQ(want.size(), interpreter.outputTensor(o).byteSize()) << "output " << o;
            expectSameBytes(interpreter.outputTensor(o), interpreter.outputData(o), want, 4);
        }
        compared.insert(path.filename().string());
    }
    for (const std::string& name : mustCompare) EXPECT_EQ(compared.count(name), 1u) << name << " was not compared";
    std::cout << "compared with TFLite: " << compared.size() << "; not compared:" << skipped << "\n";
}

INSTANTIATE_TEST_SUITE_P(BuiltinAndXnnpackForms, RealTfliteFuzzRegressions, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Xnnpack" : "Builtin"; });

}  // namespace
}  // namespace nnemu::tflite::test
