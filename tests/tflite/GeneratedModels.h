// Helpers of the TFLite tests on nnemu_modelgen's catalog: a model's bytes or loaded model, and
// the run modes with the delegate on synap-npu added when the runtime lists it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {

inline std::vector<uint8_t> generatedBytes(const std::string& name) {
    std::vector<uint8_t> bytes;
    EXPECT_EQ(modelgen::generateModel(name, &bytes), nnemu::StatusCode::OK);
    return bytes;
}

inline std::unique_ptr<Model> generatedModel(const std::string& name) {
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(generatedBytes(name)));
    EXPECT_NE(model, nullptr);
    return model;
}

// The run modes, plus the delegate on synap-npu when the runtime lists it.
inline std::vector<RunMode> runModesWithNpu(const Model& model) {
    std::vector<RunMode> modes = runModes();
    std::unique_ptr<Interpreter> probe = makeInterpreter(model, DelegateOptions{});
    const std::vector<std::string> devices = probe != nullptr ? probe->deviceNames() : std::vector<std::string>{};
    if (std::find(devices.begin(), devices.end(), "synap-npu") != devices.end()) {
        DelegateOptions npu;
        npu.useNnapi = true;
        npu.acceleratorName = "synap-npu";
        modes.push_back({"synap_npu", npu});
    }
    return modes;
}

}  // namespace nnemu::tflite::test
