// nnemu_modelgen: writes .tflite models with deterministic weights.
//   nnemu_modelgen NAME OUT.tflite    write one model
//   nnemu_modelgen --list             list the model names
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "nnemu/modelgen/ModelCatalog.h"

namespace {

void usage(FILE* to) {
    std::fprintf(to,
                 "usage: nnemu_modelgen NAME OUT.tflite   write the named model\n"
                 "       nnemu_modelgen --list            list the names\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const nnemu::modelgen::ModelInfo& info : nnemu::modelgen::modelCatalog()) {
            std::printf("%-36s %s\n", info.name.c_str(), info.summary.c_str());
        }
        return 0;
    }
    if (argc != 3 || argv[1][0] == '-') {
        usage(stderr);
        return 2;
    }
    std::vector<uint8_t> bytes;
    if (const nnemu::Status generated = nnemu::modelgen::generateModel(argv[1], &bytes); !generated) {
        std::fprintf(stderr, "nnemu_modelgen: %s\n", generated.message().c_str());
        return 1;
    }
    std::ofstream file(argv[2], std::ios::binary | std::ios::trunc);
    if (!file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())) ||
        !file.flush()) {
        std::fprintf(stderr, "nnemu_modelgen: cannot write %s\n", argv[2]);
        return 1;
    }
    std::printf("wrote %s (%zu bytes)\n", argv[2], bytes.size());
    return 0;
}
