#include "LabelImageRun.h"

#include <chrono>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "ImageFile.h"
#include "Labels.h"
#include "ModelInput.h"
#include "ToolLog.h"
#include "TopResults.h"
#include "nnemu/tflite/ExternalDelegate.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::labelimage {
namespace {

constexpr int32_t kDelegateBuiltinCode = 51;   // TFLite's BuiltinOperator_DELEGATE

bool fail(const std::string& message) {
    TOOL_LOG(ERROR) << message;
    return false;
}

std::string shapeText(const std::vector<int32_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

void printVerboseModel(const tflite::Model& model) {
    TOOL_LOG(INFO) << "tensors size: " << model.tensors().size();
    TOOL_LOG(INFO) << "nodes size: " << model.nodes().size();
    TOOL_LOG(INFO) << "inputs: " << model.inputs().size();
    if (!model.inputs().empty()) TOOL_LOG(INFO) << "input(0) name: " << model.tensors()[model.inputs()[0]].name;
    for (size_t i = 0; i < model.tensors().size(); ++i) {
        const tflite::Tensor& t = model.tensors()[i];
        TOOL_LOG(INFO) << i << ": " << t.name << ", " << t.byteSize() << ", " << tflite::elementTypeName(t.type) << ", "
                       << t.scale << ", " << t.zeroPoint;
    }
}

// The per-partition times of one invocation, in label_image's profiling line format.
void printProfile(const tflite::Model& model, const tflite::Interpreter& interpreter) {
    const auto& partitions = interpreter.partitions();
    const auto& times = interpreter.lastPartitionTimesUs();
    for (size_t i = 0; i < partitions.size() && i < times.size(); ++i) {
        const tflite::Partition& partition = partitions[i];
        const bool cpuNode = !partition.delegated && !partition.nodes.empty();
        const uint32_t node = cpuNode ? partition.nodes.front() : partition.kernelIndex;
        const int32_t code = cpuNode ? model.nodes()[node].builtinCode : kDelegateBuiltinCode;
        const std::string name = cpuNode ? model.nodes()[node].opName : "DELEGATE";
        std::ostringstream line;
        line << std::fixed << std::setw(10) << std::setprecision(3) << static_cast<double>(times[i]) / 1000.0
             << ", Subgraph " << std::setw(3) << 0 << ", Node " << std::setw(3) << node << ", OpCode " << std::setw(3)
             << code << ", " << name;
        TOOL_LOG(INFO) << line.str();
    }
}

// --external_delegate_path: loads the plugin and applies it; nullptr (the graph on the CPU path,
// with the reason printed) when it cannot be loaded, refuses its options or fails to apply.
std::unique_ptr<tflite::ExternalDelegate> applyExternalDelegate(const LabelImageSettings& settings,
                                                                const tflite::Model& model,
                                                                tflite::DelegateOptions* options) {
    if (settings.externalDelegatePath.empty()) return nullptr;
    Result<std::unique_ptr<tflite::ExternalDelegate>> loaded =
            tflite::ExternalDelegate::loadWithOptionText(settings.externalDelegatePath, settings.externalDelegateOptions);
    if (!loaded) {
        TOOL_LOG(ERROR) << loaded.message();
        TOOL_LOG(WARNING) << "EXTERNAL delegate not created: the graph runs on the CPU path.";
        return nullptr;
    }
    std::unique_ptr<tflite::ExternalDelegate> external = std::move(loaded).value();
    TOOL_LOG(INFO) << "EXTERNAL delegate created.";
    if (const Status applied = external->apply(model); !applied) {
        TOOL_LOG(ERROR) << applied.message();
        TOOL_LOG(WARNING) << "Restored original execution plan after delegate application failure.";
        return nullptr;
    }
    tflite::ExternalDelegate* plugin = external.get();
    options->externalKernels = external->kernels();
    options->runExternalKernel = [plugin](size_t kernel) { return plugin->invokeKernel(kernel); };
    return external;
}

}  // namespace

bool runLabelImage(const LabelImageSettings& settings) {
    Result<std::unique_ptr<tflite::Model>> opened = tflite::Model::load(settings.modelPath);
    if (!opened) return fail(opened.message() + "\nFailed to mmap model " + settings.modelPath);
    const std::unique_ptr<tflite::Model> model = std::move(opened).value();
    TOOL_LOG(INFO) << "Loaded model " << settings.modelPath;
    TOOL_LOG(INFO) << "resolved reporter";
    if (settings.verbose) printVerboseModel(*model);

    Image image;
    if (const Status loaded = loadImageFile(settings.imagePath, &image); !loaded) return fail(loaded.message());

    tflite::DelegateOptions options;
    options.useNnapi = settings.accelerated;
    options.acceleratorName = settings.acceleratorName;
    options.numThreads = settings.numberOfThreads;
    options.allowFp16 = settings.allowFp16;
    // TFLite's label_image runs its interpreter's default delegate (XNNPACK) on the CPU nodes,
    // whatever its flags (XnnpackForms.h).
    options.xnnpack = true;
    options.maxDelegatedPartitions = 3;   // the NNAPI delegate's default for applications
    std::unique_ptr<tflite::ExternalDelegate> external = applyExternalDelegate(settings, *model, &options);
    Result<std::unique_ptr<tflite::Interpreter>> created = tflite::Interpreter::create(*model, options);
    if (!created) {
        TOOL_LOG(ERROR) << created.message();
        return fail(settings.accelerated ? "Failed to apply NNAPI delegate." : "Failed to allocate tensors!");
    }
    const std::unique_ptr<tflite::Interpreter> interpreter = std::move(created).value();
    if (external) {
        external->bind(*interpreter);
        if (external->kernels().size() > 0) {
            TOOL_LOG(VERBOSE) << "Replacing " << interpreter->delegatedNodeCount() << " out of " << model->nodes().size()
                              << " node(s) with delegate (" << external->kernelName() << ") node, yielding "
                              << external->partitionCount() << " partitions for the whole graph.";
        }
        TOOL_LOG(INFO) << "Applied EXTERNAL delegate.";
    }
    if (settings.accelerated) {
        if (interpreter->delegatedNodeCount() > 0) {
            TOOL_LOG(VERBOSE) << "Replacing " << interpreter->delegatedNodeCount() << " out of " << model->nodes().size()
                              << " node(s) with delegate (TfLiteNnapiDelegate) node, yielding "
                              << interpreter->partitions().size() << " partitions for the whole graph.";
        }
        TOOL_LOG(INFO) << "Applied NNAPI delegate.";
    }
    // TFLite's default delegate is created for what no explicit delegate took (measured with TFLite
    // 2.21's label_image: after "resolved reporter" on the CPU, after "Applied EXTERNAL delegate."
    // when it leaves nodes, never for a fully delegated graph).
    if (interpreter->delegatedNodeCount() < model->nodes().size()) {
        TOOL_LOG(INFO) << "Created TensorFlow Lite XNNPACK delegate for CPU.";
    }
    if (settings.verbose) {
        TOOL_LOG(INFO) << "number of inputs: " << interpreter->inputCount();
        TOOL_LOG(INFO) << "number of outputs: " << interpreter->outputCount();
    }
    if (interpreter->inputCount() < 1 || interpreter->outputCount() < 1) return fail("the model has no input or output");

    // The first input is the picture: [1, height, width, channels].
    const tflite::Tensor& input = interpreter->inputTensor(0);
    if (input.shape.size() != 4 || input.shape[0] != 1 || input.shape[1] <= 0 || input.shape[2] <= 0 ||
        (input.shape[3] != 1 && input.shape[3] != 3)) {
        return fail("input 0 (" + input.name + ") has shape " + shapeText(input.shape) +
                    "; label_image needs [1, height, width, 1 or 3]");
    }
    InputType inputType;
    switch (input.type) {
        case tflite::ElementType::FLOAT32: inputType = InputType::FLOAT32; break;
        case tflite::ElementType::UINT8: inputType = InputType::UINT8; break;
        case tflite::ElementType::INT8: inputType = InputType::INT8; break;
        default: return fail(std::string("cannot handle input type ") + tflite::elementTypeName(input.type) + " yet");
    }
    const std::vector<uint8_t> inputBytes = makeModelInput(image, input.shape[1], input.shape[2], input.shape[3],
                                                           inputType, settings.inputMean, settings.inputStd);
    if (inputBytes.size() != input.byteSize()) return fail("internal error: input size mismatch");
    std::memcpy(interpreter->inputData(0), inputBytes.data(), inputBytes.size());

    for (int i = 0; i < settings.warmupRuns; ++i) {
        if (const Status ran = interpreter->invoke(); !ran) return fail(ran.message() + "\nFailed to invoke tflite!");
        if (settings.profiling) printProfile(*model, *interpreter);
    }
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < settings.loopCount; ++i) {
        if (const Status ran = interpreter->invoke(); !ran) return fail(ran.message() + "\nFailed to invoke tflite!");
        if (settings.profiling) printProfile(*model, *interpreter);
    }
    const auto stop = std::chrono::steady_clock::now();
    TOOL_LOG(INFO) << "invoked";
    const double totalUs = static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(stop - start).count());
    TOOL_LOG(INFO) << "average time: " << totalUs / (settings.loopCount * 1000) << " ms";

    const tflite::Tensor& output = interpreter->outputTensor(0);
    ScoreType scoreType;
    switch (output.type) {
        case tflite::ElementType::FLOAT32: scoreType = ScoreType::FLOAT32; break;
        case tflite::ElementType::UINT8: scoreType = ScoreType::UINT8; break;
        case tflite::ElementType::INT8: scoreType = ScoreType::INT8; break;
        default: return fail(std::string("cannot handle output type ") + tflite::elementTypeName(output.type) + " yet");
    }
    // Outputs look like [1, ..., classes]: score the last dimension.
    const size_t classes = output.shape.empty() ? 1 : static_cast<size_t>(std::max(output.shape.back(), 0));
    const std::vector<ClassScore> top =
        topResults(interpreter->outputData(0), classes, scoreType, static_cast<size_t>(settings.numberOfResults));

    std::vector<std::string> labels;
    if (const Status read = readLabelsFile(settings.labelsPath, &labels); !read) return fail(read.message());
    for (const ClassScore& result : top) {
        const std::string label = static_cast<size_t>(result.index) < labels.size() ? labels[result.index] : "";
        TOOL_LOG(INFO) << result.score << ": " << result.index << " " << label;
    }
    return true;
}

}  // namespace nnemu::labelimage
