// label_image's scoring, labels file and command line.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "LabelImageFlags.h"
#include "Labels.h"
#include "TopResults.h"

namespace nnemu::labelimage {
namespace {

TEST(TopResults, Uint8ScoresAreQOver255) {
    const std::vector<uint8_t> output = {0, 255, 10, 200, 10, 1};
    const auto top = topResults(output.data(), output.size(), ScoreType::UINT8, 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].index, 1);
    EXPECT_FLOAT_EQ(top[0].score, 1.0f);
    EXPECT_EQ(top[1].index, 3);
    EXPECT_FLOAT_EQ(top[1].score, 200 / 255.0f);
    EXPECT_EQ(top[2].index, 4);   // equal scores: the higher index first
}

TEST(TopResults, Int8ScoresAreQPlus128Over256) {
    const std::vector<int8_t> output = {-128, 127, 0};
    const auto top = topResults(reinterpret_cast<const uint8_t*>(output.data()), output.size(), ScoreType::INT8, 5);
    ASSERT_EQ(top.size(), 2u);   // -128 scores 0, below the threshold
    EXPECT_EQ(top[0].index, 1);
    EXPECT_FLOAT_EQ(top[0].score, 255 / 256.0f);
    EXPECT_FLOAT_EQ(top[1].score, 0.5f);
}

TEST(TopResults, FloatScoresAndThreshold) {
    const std::vector<float> output = {0.0005f, 0.7f, 0.2f, 0.0999f};
    std::vector<uint8_t> bytes(output.size() * sizeof(float));
    std::memcpy(bytes.data(), output.data(), bytes.size());
    const auto top = topResults(bytes.data(), output.size(), ScoreType::FLOAT32, 10);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].index, 1);
    EXPECT_EQ(top[2].index, 3);
    EXPECT_TRUE(topResults(bytes.data(), output.size(), ScoreType::FLOAT32, 0).empty());
}

TEST(Labels, ReadsAndPadsToSixteen) {
    const std::string path = testing::TempDir() + "/labels.txt";
    std::ofstream(path) << "background\r\ntench\ngoldfish\n";
    std::vector<std::string> labels;
    std::string error;
    ASSERT_EQ(readLabelsFile(path, &labels), nnemu::StatusCode::OK);
    ASSERT_EQ(labels.size(), 16u);
    EXPECT_EQ(labels[0], "background");
    EXPECT_EQ(labels[2], "goldfish");
    EXPECT_EQ(labels[3], "");
    error = readLabelsFile("/nonexistent/labels.txt", &labels).message();
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(error, "Labels file /nonexistent/labels.txt not found");
}

LabelImageParse parse(std::vector<std::string> args, LabelImageSettings* settings, std::vector<std::string>* errors) {
    return parseLabelImageFlags(args, settings, errors);
}

TEST(LabelImageFlags, ShortAndLongForms) {
    LabelImageSettings s;
    std::vector<std::string> errors;
    ASSERT_EQ(parse({"-m", "m.tflite", "--image=cat.bmp", "-l", "labels.txt", "-c", "3", "-a", "1", "-t", "2",
                     "--input_mean=0", "--input_std", "255", "-v", "1", "-r", "3", "-w", "0"},
                    &s, &errors),
              LabelImageParse::RUN)
        << (errors.empty() ? "" : errors[0]);
    EXPECT_EQ(s.modelPath, "m.tflite");
    EXPECT_EQ(s.imagePath, "cat.bmp");
    EXPECT_EQ(s.labelsPath, "labels.txt");
    EXPECT_EQ(s.loopCount, 3);
    EXPECT_TRUE(s.accelerated);
    EXPECT_EQ(s.numberOfThreads, 2);
    EXPECT_EQ(s.inputMean, 0.0f);
    EXPECT_EQ(s.inputStd, 255.0f);
    EXPECT_TRUE(s.verbose);
    EXPECT_EQ(s.numberOfResults, 3);
    EXPECT_EQ(s.warmupRuns, 0);
}

TEST(LabelImageFlags, AcceleratorNameImpliesNnapi) {
    LabelImageSettings s;
    std::vector<std::string> errors;
    ASSERT_EQ(parse({"--accelerator_name=synap-npu"}, &s, &errors), LabelImageParse::RUN);
    EXPECT_TRUE(s.accelerated);
    EXPECT_EQ(s.acceleratorName, "synap-npu");
}

TEST(LabelImageFlags, BadInputIsReported) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"-c", "many"}, {"-c", "0"}, {"--count=-1"}, {"-a", "maybe"}, {"--input_std=0"}, {"--bogus=1"},
             {"-q"}, {"-m"}, {"stray"}, {"--threads=1.5"}}) {
        LabelImageSettings s;
        std::vector<std::string> errors;
        EXPECT_EQ(parse(args, &s, &errors), LabelImageParse::ERROR) << args[0];
        EXPECT_FALSE(errors.empty()) << args[0];
    }
    LabelImageSettings s;
    std::vector<std::string> errors;
    EXPECT_EQ(parse({"--help"}, &s, &errors), LabelImageParse::HELP);
    EXPECT_NE(labelImageUsage().find("--tflite_model, -m"), std::string::npos);
}

}  // namespace
}  // namespace nnemu::labelimage
