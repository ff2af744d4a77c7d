// label_image: TensorFlow Lite's image classification example on nnemu. Same flags and output
// lines as TFLite's tool; pictures in BMP (and PNG/JPEG), inference through nnemu_tflite.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "LabelImageFlags.h"
#include "LabelImageRun.h"
#include "ToolLog.h"

int main(int argc, char** argv) {
    using namespace nnemu::labelimage;
    try {
        LabelImageSettings settings;
        std::vector<std::string> errors;
        const LabelImageParse parsed = parseLabelImageFlags(std::vector<std::string>(argv + 1, argv + argc), &settings, &errors);
        if (parsed == LabelImageParse::HELP) {
            std::fputs(labelImageUsage().c_str(), stdout);
            return EXIT_SUCCESS;
        }
        if (parsed == LabelImageParse::ERROR) {
            for (const std::string& error : errors) TOOL_LOG(ERROR) << error;
            TOOL_LOG(ERROR) << "Run 'label_image --help' for the list of flags.";
            return EXIT_FAILURE;
        }
        return runLabelImage(settings) ? EXIT_SUCCESS : EXIT_FAILURE;
    } catch (const std::exception& e) {
        TOOL_LOG(ERROR) << e.what();
        return EXIT_FAILURE;
    }
}
