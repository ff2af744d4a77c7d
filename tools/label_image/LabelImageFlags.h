// label_image's command line: TensorFlow Lite's label_image flags (getopt_long, short and long
// forms) plus --accelerator_name. Unlike TFLite, numbers are checked: a bad value is an error.
#pragma once

#include <string>
#include <vector>

namespace nnemu::labelimage {

struct LabelImageSettings {
    std::string modelPath = "./mobilenet_quant_v1_224.tflite";
    std::string imagePath = "./grace_hopper.bmp";
    std::string labelsPath = "./labels.txt";
    bool accelerated = false;        // -a: run through the NNAPI delegate
    std::string acceleratorName;     // implies -a 1
    std::string externalDelegatePath;      // a TFLite external delegate plugin (libvx_delegate.so)
    std::string externalDelegateOptions;   // "k:v;k:v"
    int loopCount = 1;               // -c: timed invocations
    int warmupRuns = 2;              // -w
    float inputMean = 127.5f;        // -b: float models get (x - mean) / std
    float inputStd = 127.5f;         // -s
    int numberOfResults = 5;         // -r
    int numberOfThreads = -1;        // -t
    bool verbose = false;            // -v
    bool profiling = false;          // -p
    bool allowFp16 = false;          // -f: the delegated partitions relaxed to 16-bit float precision
    int maxProfilingBufferEntries = 1024;   // -e: accepted, not used
};

enum class LabelImageParse { RUN, HELP, ERROR };

// args excludes the program name; errors get one message per problem.
LabelImageParse parseLabelImageFlags(const std::vector<std::string>& args, LabelImageSettings* settings,
                                     std::vector<std::string>* errors);

std::string labelImageUsage();

}  // namespace nnemu::labelimage
