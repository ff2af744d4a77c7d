// Writes the seed corpora of nnapi_model_fuzz and npu_program_fuzz from .tflite models (the
// loader's corpus), through what an application does with them:
//  - nnapi_model: every NNAPI model the TFLite delegate builds (the whole graph on
//    nnapi-reference, and each node alone), recorded call by call by interposing the
//    ANeuralNetworksModel_* functions, in the format of NnapiModelFormat.h;
//  - npu_program: the NPU programs synap-npu compiles for the delegated partitions, taken from
//    the NNAPI model cache files it writes, as a bare program, as the cache file itself, sealed
//    with no change, and as a SyNAP cache entry without damage (one seed also through its entry index).
// usage: nnemu_fuzz_corpus_generator MODEL_DIRECTORY NNAPI_MODEL_CORPUS NPU_PROGRAM_CORPUS
#include <android/NeuralNetworks.h>
#include <dlfcn.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "NnapiModelFormat.h"
#include "nnemu/tflite/Interpreter.h"
#include "nnemu/tflite/Model.h"

namespace fs = std::filesystem;
using nnemu::fuzz::FuzzModelWriter;

namespace {

std::map<const ANeuralNetworksModel*, FuzzModelWriter>& recordings() {
    static std::map<const ANeuralNetworksModel*, FuzzModelWriter> models;
    return models;
}
std::vector<std::vector<uint8_t>>& finishedModels() {
    static std::vector<std::vector<uint8_t>> models;
    return models;
}

// The library's own definition of `name`.
template <typename Function>
Function real(const char* name) {
    void* symbol = dlsym(RTLD_NEXT, name);
    if (symbol == nullptr) {
        std::fprintf(stderr, "cannot find %s in libneuralnetworks\n", name);
        std::exit(1);
    }
    return reinterpret_cast<Function>(symbol);
}

FuzzModelWriter* recording(const ANeuralNetworksModel* model) {
    auto found = recordings().find(model);
    return found == recordings().end() ? nullptr : &found->second;
}

void writeList(FuzzModelWriter& writer, uint32_t count, const uint32_t* list) {
    writer.byte(static_cast<uint8_t>(count));
    for (uint32_t i = 0; i < count; ++i) writer.small(list[i]);
}

}  // namespace

// ---- The recorded calls: each is written down, then made -------------------------------------

extern "C" int ANeuralNetworksModel_create(ANeuralNetworksModel** model) {
    const int status = real<int (*)(ANeuralNetworksModel**)>("ANeuralNetworksModel_create")(model);
    if (status == ANEURALNETWORKS_NO_ERROR) {
        FuzzModelWriter writer;
        writer.byte(nnemu::fuzz::kFlagExecute);
        recordings()[*model] = writer;
    }
    return status;
}

extern "C" int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* model, const ANeuralNetworksOperandType* type) {
    if (FuzzModelWriter* writer = recording(model); writer != nullptr && type != nullptr) {
        writer->byte(nnemu::fuzz::kAddOperand);
        if (type->type >= 0 && static_cast<uint32_t>(type->type) < nnemu::fuzz::kOperandTypeCount) {
            writer->byte(static_cast<uint8_t>(type->type));
        } else {
            writer->byte(0xFF);
            writer->raw32(static_cast<uint32_t>(type->type));
        }
        writer->byte(static_cast<uint8_t>(type->dimensionCount));
        for (uint32_t i = 0; i < type->dimensionCount; ++i) writer->small(type->dimensions[i]);
        writer->scale(type->scale);
        writer->small(static_cast<uint32_t>(type->zeroPoint));
    }
    return real<int (*)(ANeuralNetworksModel*, const ANeuralNetworksOperandType*)>("ANeuralNetworksModel_addOperand")(
            model, type);
}

extern "C" int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* model, int32_t index, const void* buffer,
                                                    size_t length) {
    if (FuzzModelWriter* writer = recording(model)) {
        writer->byte(nnemu::fuzz::kSetValue);
        writer->small(static_cast<uint32_t>(index));
        writer->length(buffer == nullptr ? nnemu::fuzz::kNullValue : static_cast<uint32_t>(length));
        if (buffer != nullptr) writer->append(buffer, length);
    }
    return real<int (*)(ANeuralNetworksModel*, int32_t, const void*, size_t)>("ANeuralNetworksModel_setOperandValue")(
            model, index, buffer, length);
}

extern "C" int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
        ANeuralNetworksModel* model, int32_t index, const ANeuralNetworksSymmPerChannelQuantParams* params) {
    if (FuzzModelWriter* writer = recording(model); writer != nullptr && params != nullptr) {
        writer->byte(nnemu::fuzz::kPerChannel);
        writer->small(static_cast<uint32_t>(index));
        writer->small(params->channelDim);
        writer->small(params->scaleCount);
        for (uint32_t i = 0; i < params->scaleCount; ++i) writer->scale(params->scales[i]);
    }
    return real<int (*)(ANeuralNetworksModel*, int32_t, const ANeuralNetworksSymmPerChannelQuantParams*)>(
            "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams")(model, index, params);
}

extern "C" int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* model, ANeuralNetworksOperationType type,
                                                 uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                                 const uint32_t* outputs) {
    if (FuzzModelWriter* writer = recording(model)) {
        writer->byte(nnemu::fuzz::kAddOperation);
        writer->small(static_cast<uint32_t>(type));
        writeList(*writer, inputCount, inputs);
        writeList(*writer, outputCount, outputs);
    }
    return real<int (*)(ANeuralNetworksModel*, ANeuralNetworksOperationType, uint32_t, const uint32_t*, uint32_t,
                        const uint32_t*)>("ANeuralNetworksModel_addOperation")(model, type, inputCount, inputs,
                                                                               outputCount, outputs);
}

extern "C" int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* model, uint32_t inputCount,
                                                             const uint32_t* inputs, uint32_t outputCount,
                                                             const uint32_t* outputs) {
    if (FuzzModelWriter* writer = recording(model)) {
        writer->byte(nnemu::fuzz::kIdentify);
        writeList(*writer, inputCount, inputs);
        writeList(*writer, outputCount, outputs);
    }
    return real<int (*)(ANeuralNetworksModel*, uint32_t, const uint32_t*, uint32_t, const uint32_t*)>(
            "ANeuralNetworksModel_identifyInputsAndOutputs")(model, inputCount, inputs, outputCount, outputs);
}

extern "C" int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* model, bool allow) {
    if (FuzzModelWriter* writer = recording(model)) {
        writer->byte(nnemu::fuzz::kRelax);
        writer->byte(allow ? 1 : 0);
    }
    return real<int (*)(ANeuralNetworksModel*, bool)>("ANeuralNetworksModel_relaxComputationFloat32toFloat16")(model,
                                                                                                                allow);
}

extern "C" int ANeuralNetworksModel_finish(ANeuralNetworksModel* model) {
    const int status = real<int (*)(ANeuralNetworksModel*)>("ANeuralNetworksModel_finish")(model);
    if (FuzzModelWriter* writer = recording(model); writer != nullptr && status == ANEURALNETWORKS_NO_ERROR) {
        writer->byte(nnemu::fuzz::kFinish);
        finishedModels().push_back(writer->bytes);
    }
    return status;
}

extern "C" void ANeuralNetworksModel_free(ANeuralNetworksModel* model) {
    recordings().erase(model);
    real<void (*)(ANeuralNetworksModel*)>("ANeuralNetworksModel_free")(model);
}

// ---- The generator ------------------------------------------------------------------------------

namespace {

std::vector<uint8_t> readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const fs::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
}

// Loads, compiles and runs `file` once with `options`; false when any step fails.
bool runModel(const fs::path& file, const nnemu::tflite::DelegateOptions& options) {
    const auto model = nnemu::tflite::Model::fromBuffer(readFile(file));
    if (!model) return false;
    const auto interpreter = nnemu::tflite::Interpreter::create(**model, options);
    return interpreter && (*interpreter)->invoke().isOk();
}

std::vector<uint8_t> prefixed(std::vector<uint8_t> prefix, const std::vector<uint8_t>& bytes) {
    prefix.insert(prefix.end(), bytes.begin(), bytes.end());
    return prefix;
}

constexpr size_t kModelCacheHeaderSize = 128;  // see nnemu/cache/ModelCacheFile.h

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s MODEL_DIRECTORY NNAPI_MODEL_CORPUS NPU_PROGRAM_CORPUS\n", argv[0]);
        return 2;
    }
    const fs::path models = argv[1], modelCorpus = argv[2], programCorpus = argv[3];
    char pattern[] = "/tmp/nnemu-fuzz-corpus-XXXXXX";
    const fs::path root = mkdtemp(pattern);
    setenv("NNEMU_ROOT", root.c_str(), 1);
    setenv("NNEMU_LOG", "silent", 1);
    // synap-npu writes NNAPI model cache files only with this property set.
    fs::create_directories(root / "data/property");
    std::ofstream(root / "data/property/local.prop") << "vendor.npu.cache.model=1\n";
    const fs::path cacheDir = root / "app-cache";
    fs::create_directories(cacheDir);
    fs::create_directories(modelCorpus);
    fs::create_directories(programCorpus);

    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(models)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::set<std::string> seenModels;  // as strings: GCC 12 misjudges comparisons of vector<uint8_t>
    std::vector<uint8_t> allPrograms;  // one long SyNAP cache seed, for programs of several chunks
    size_t modelSeeds = 0, programSeeds = 0;
    for (const fs::path& file : files) {
        const std::string name = file.stem().string();
        // The whole graph on nnapi-reference, then node by node.
        nnemu::tflite::DelegateOptions whole;
        whole.useNnapi = true;
        whole.acceleratorName = "nnapi-reference";
        whole.disableNnapiCpu = false;
        finishedModels().clear();
        runModel(file, whole);
        runModel(file, nnemu::tflite::DelegateOptions{});
        size_t part = 0;
        for (const auto& recorded : finishedModels()) {
            if (!seenModels.insert(std::string(recorded.begin(), recorded.end())).second) continue;
            writeFile(modelCorpus / (name + "-" + std::to_string(part++)), recorded);
            ++modelSeeds;
        }
        // The delegated partitions on synap-npu, with NNAPI model caching.
        for (const auto& entry : fs::directory_iterator(cacheDir)) fs::remove(entry.path());
        nnemu::tflite::DelegateOptions npu;
        npu.useNnapi = true;
        npu.acceleratorName = "synap-npu";
        npu.disableNnapiCpu = false;
        npu.cacheDir = cacheDir.string();
        npu.cacheToken = std::string(32, 'c');
        runModel(file, npu);
        part = 0;
        for (const auto& entry : fs::directory_iterator(cacheDir)) {
            const std::vector<uint8_t> cacheFile = readFile(entry.path());
            const bool isCacheFile = cacheFile.size() > kModelCacheHeaderSize &&
                                     std::string(cacheFile.begin(), cacheFile.begin() + 8) == "NNEMUNPC";
            if (!isCacheFile) continue;
            const std::vector<uint8_t> program(cacheFile.begin() + kModelCacheHeaderSize, cacheFile.end());
            const std::string stem = name + "-" + std::to_string(part++);
            writeFile(programCorpus / (stem + ".program"), prefixed({0}, program));
            writeFile(programCorpus / (stem + ".cachefile"), prefixed({2 | 8}, cacheFile));
            writeFile(programCorpus / (stem + ".sealed"), prefixed({6, 0, 0, 0, 0}, program));
            writeFile(programCorpus / (stem + ".synapcache"), prefixed({3, 0, 0, 0, 0}, program));
            programSeeds += 4;
            allPrograms.insert(allPrograms.end(), program.begin(), program.end());
        }
    }
    allPrograms.resize(std::min<size_t>(allPrograms.size(), 48 << 10));
    writeFile(programCorpus / "all-programs.synapcache", prefixed({3, 0, 0, 0, 0}, allPrograms));
    writeFile(programCorpus / "all-programs.synapindex", prefixed({3, 7, 0, 0, 0}, allPrograms));  // its entry index intact
    fs::remove_all(root);
    std::printf("%zu nnapi_model seeds, %zu npu_program seeds\n", modelSeeds, programSeeds);
    return modelSeeds > 0 && programSeeds > 0 ? 0 : 1;
}
