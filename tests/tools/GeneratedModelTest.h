// What the end-to-end tests on nnemu_modelgen's models share: the tool's path and a fixture that
// writes the models into the test's own folder.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "ToolProcess.h"

namespace nnemu::tooltest {

#ifdef NNEMU_MODELGEN_PATH
inline const std::string kModelgen = NNEMU_MODELGEN_PATH;
#else
inline const std::string kModelgen;
#endif

// Skips when this build has no nnemu_modelgen; else makes a fresh folder (named after `folder`) in dir_.
class GeneratedModelTest : public testing::Test {
protected:
    explicit GeneratedModelTest(std::string folder) : folder_(std::move(folder)) {}

    void SetUp() override {
        if (kModelgen.empty()) GTEST_SKIP() << "nnemu_modelgen is not part of this build";
        dir_ = makeTempDir(folder_);
    }

    // Writes nnemu_modelgen's model `name` into dir_; its path.
    std::string generate(const std::string& name) {
        const std::string path = dir_ + "/" + name + ".tflite";
        const ToolRun run = runTool(kModelgen, {name, path});
        EXPECT_EQ(run.exitCode, 0) << run.err;
        return path;
    }

    std::string dir_;

private:
    std::string folder_;
};

}  // namespace nnemu::tooltest
