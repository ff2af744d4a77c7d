#include "LabelImageFlags.h"

#include <getopt.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace nnemu::labelimage {
namespace {

enum LongOnly { kAcceleratorName = 1000, kUseNnapi, kExternalDelegatePath, kExternalDelegateOptions };

bool toInt(const char* text, int* value) {
    if (text == nullptr || *text == '\0') return false;
    errno = 0;
    char* end = nullptr;
    const long parsed = std::strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed < std::numeric_limits<int>::min() || parsed > std::numeric_limits<int>::max()) {
        return false;
    }
    *value = static_cast<int>(parsed);
    return true;
}

bool toFloat(const char* text, float* value) {
    if (text == nullptr || *text == '\0') return false;
    errno = 0;
    char* end = nullptr;
    const float parsed = std::strtof(text, &end);
    if (errno != 0 || *end != '\0' || !std::isfinite(parsed)) return false;
    *value = parsed;
    return true;
}

bool toFlag(const char* text, bool* value) {
    const std::string word = text ? text : "";
    if (word == "true") {
        *value = true;
        return true;
    }
    if (word == "false") {
        *value = false;
        return true;
    }
    int number = 0;
    if (!toInt(text, &number)) return false;
    *value = number != 0;
    return true;
}

}  // namespace

LabelImageParse parseLabelImageFlags(const std::vector<std::string>& args, LabelImageSettings* settings,
                                     std::vector<std::string>* errors) {
    static const option kOptions[] = {
        {"accelerated", required_argument, nullptr, 'a'},
        {"allow_fp16", required_argument, nullptr, 'f'},
        {"count", required_argument, nullptr, 'c'},
        {"verbose", required_argument, nullptr, 'v'},
        {"image", required_argument, nullptr, 'i'},
        {"labels", required_argument, nullptr, 'l'},
        {"tflite_model", required_argument, nullptr, 'm'},
        {"profiling", required_argument, nullptr, 'p'},
        {"threads", required_argument, nullptr, 't'},
        {"input_mean", required_argument, nullptr, 'b'},
        {"input_std", required_argument, nullptr, 's'},
        {"num_results", required_argument, nullptr, 'r'},
        {"max_profiling_buffer_entries", required_argument, nullptr, 'e'},
        {"warmup_runs", required_argument, nullptr, 'w'},
        {"accelerator_name", required_argument, nullptr, kAcceleratorName},
        {"nnapi_accelerator_name", required_argument, nullptr, kAcceleratorName},
        {"use_nnapi", required_argument, nullptr, kUseNnapi},
        {"external_delegate_path", required_argument, nullptr, kExternalDelegatePath},
        {"external_delegate_options", required_argument, nullptr, kExternalDelegateOptions},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    std::vector<std::string> storage;
    storage.reserve(args.size() + 1);
    storage.emplace_back("label_image");
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : storage) argv.push_back(arg.data());
    argv.push_back(nullptr);

    optind = 0;   // GNU: restart scanning (the parser may run more than once in a process)
    opterr = 0;   // errors are reported here, with the tool's wording
    const auto bad = [errors](const std::string& flag, const char* value) {
        errors->push_back("invalid value '" + std::string(value ? value : "") + "' for " + flag);
    };
    while (true) {
        int index = 0;
        const int c = getopt_long(static_cast<int>(argv.size() - 1), argv.data(), ":a:b:c:e:f:i:l:m:p:r:s:t:v:w:h",
                                  kOptions, &index);
        if (c == -1) break;
        switch (c) {
            case 'a': if (!toFlag(optarg, &settings->accelerated)) bad("--accelerated/-a", optarg); break;
            case 'b': if (!toFloat(optarg, &settings->inputMean)) bad("--input_mean/-b", optarg); break;
            case 'c':
                if (!toInt(optarg, &settings->loopCount) || settings->loopCount < 1) bad("--count/-c", optarg);
                break;
            case 'e': if (!toInt(optarg, &settings->maxProfilingBufferEntries)) bad("--max_profiling_buffer_entries/-e", optarg); break;
            case 'f': if (!toFlag(optarg, &settings->allowFp16)) bad("--allow_fp16/-f", optarg); break;
            case 'i': settings->imagePath = optarg; break;
            case 'l': settings->labelsPath = optarg; break;
            case 'm': settings->modelPath = optarg; break;
            case 'p': if (!toFlag(optarg, &settings->profiling)) bad("--profiling/-p", optarg); break;
            case 'r':
                if (!toInt(optarg, &settings->numberOfResults) || settings->numberOfResults < 0) bad("--num_results/-r", optarg);
                break;
            case 's':
                if (!toFloat(optarg, &settings->inputStd) || settings->inputStd == 0.0f) bad("--input_std/-s", optarg);
                break;
            case 't': if (!toInt(optarg, &settings->numberOfThreads)) bad("--threads/-t", optarg); break;
            case 'v': if (!toFlag(optarg, &settings->verbose)) bad("--verbose/-v", optarg); break;
            case 'w':
                if (!toInt(optarg, &settings->warmupRuns) || settings->warmupRuns < 0) bad("--warmup_runs/-w", optarg);
                break;
            case kAcceleratorName:
                settings->acceleratorName = optarg;
                settings->accelerated = true;
                break;
            case kUseNnapi: if (!toFlag(optarg, &settings->accelerated)) bad("--use_nnapi", optarg); break;
            case kExternalDelegatePath: settings->externalDelegatePath = optarg; break;
            case kExternalDelegateOptions: settings->externalDelegateOptions = optarg; break;
            case 'h': return LabelImageParse::HELP;
            case ':':
                errors->push_back("option " + std::string(argv[static_cast<size_t>(optind) - 1]) + " needs a value");
                break;
            default:
                if (optopt != 0) {
                    errors->push_back(std::string("unknown option -") + static_cast<char>(optopt));
                } else {
                    errors->push_back("unknown option " + std::string(argv[static_cast<size_t>(optind) - 1]));
                }
                break;
        }
    }
    for (int i = optind; i < static_cast<int>(argv.size()) - 1; ++i) {
        errors->push_back("unexpected argument " + std::string(argv[static_cast<size_t>(i)]));
    }
    return errors->empty() ? LabelImageParse::RUN : LabelImageParse::ERROR;
}

std::string labelImageUsage() {
    return "label_image\n"
           "\t--accelerated, -a: [0|1] use Android NNAPI or not\n"
           "\t--accelerator_name: NNAPI device to use, e.g. synap-npu or nnapi-reference (implies -a 1)\n"
           "\t--external_delegate_path: a TFLite external delegate plugin, e.g. libvx_delegate.so\n"
           "\t--external_delegate_options: its options, key:value;key:value\n"
           "\t--allow_fp16, -f: [0|1], allow running fp32 models with fp16 or not (NNAPI: relaxComputationFloat32toFloat16)\n"
           "\t--count, -c: loop interpreter->Invoke() for certain times\n"
           "\t--input_mean, -b: input mean\n"
           "\t--input_std, -s: input standard deviation\n"
           "\t--image, -i: image_name.bmp (also .png, .jpg)\n"
           "\t--labels, -l: labels for the model\n"
           "\t--tflite_model, -m: model_name.tflite\n"
           "\t--profiling, -p: [0|1], profiling or not\n"
           "\t--num_results, -r: number of results to show\n"
           "\t--threads, -t: number of threads\n"
           "\t--verbose, -v: [0|1] print more information\n"
           "\t--warmup_runs, -w: number of warmup runs\n"
           "\t--help, -h: Print this help message\n";
}

}  // namespace nnemu::labelimage
