// SL_ANeuralNetworksCompilation_setCachingFromFds through the table: synap-npu fills the
// application's own model-cache file at the first inference, and a later compilation given the
// same file prepares from it.
#include <sys/mman.h>
#include <sys/stat.h>

#include <array>
#include <vector>

#include "SlConvModel.h"
#include "TemporaryDeviceRoot.h"
#include "nnemu/props/Properties.h"

namespace nnemu::sltest {
namespace {

class CachingFromFdsTest : public ConvModelTest {
protected:
    void setProperty(const std::string& name, const std::string& value) {
        const Status set = props::set(name, value);
        ASSERT_TRUE(set.isOk()) << set.message();
    }

    // Compiles the model for synap-npu with the given cache files and runs it once on inputs 1..9.
    std::vector<float> compileAndRun(const ANeuralNetworksDevice* npu, const int* modelFds, uint32_t modelCount) {
        ANeuralNetworksCompilation* compilation = nullptr;
        ANeuralNetworksExecution* execution = nullptr;
        std::vector<float> in(9), out(4, 0.0f);
        for (int i = 0; i < 9; ++i) in[i] = static_cast<float>(i + 1);
        EXPECT_EQ(sl().ANeuralNetworksCompilation_createForDevices(model_, &npu, 1, &compilation),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(sl().SL_ANeuralNetworksCompilation_setCachingFromFds(compilation, modelFds, modelCount, nullptr, 0,
                                                                       token_.data()),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(sl().ANeuralNetworksCompilation_finish(compilation), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(sl().ANeuralNetworksExecution_create(compilation, &execution), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(sl().ANeuralNetworksExecution_setInput(execution, 0, nullptr, in.data(), in.size() * sizeof(float)),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(sl().ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), out.size() * sizeof(float)),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(sl().ANeuralNetworksExecution_compute(execution), ANEURALNETWORKS_NO_ERROR);
        sl().ANeuralNetworksExecution_free(execution);
        sl().ANeuralNetworksCompilation_free(compilation);
        return out;
    }

    props::testing::TemporaryDeviceRoot root_;
    std::array<uint8_t, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN> token_{7, 1, 2, 3};
};

off_t sizeOf(int fd) {
    struct stat info {};
    return fstat(fd, &info) == 0 ? info.st_size : -1;
}

TEST_F(CachingFromFdsTest, TheGivenFileIsFilledThenUsed) {
    ASSERT_NO_FATAL_FAILURE(setProperty("vendor.npu.cache.model", "1"));
    ASSERT_NO_FATAL_FAILURE(setProperty("vendor.SYNAP_CACHE_CAPACITY", "0"));
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    uint32_t modelFiles = 0, dataFiles = 0;
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(npu, &modelFiles, &dataFiles),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(modelFiles, 1u);
    ASSERT_EQ(dataFiles, 0u);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());

    const int file = memfd_create("nnemu-sl-model-cache", MFD_CLOEXEC);
    ASSERT_GE(file, 0);
    const std::vector<float> expected{6.5f, 8.5f, 12.5f, 14.5f};
    EXPECT_EQ(compileAndRun(npu, &file, 1), expected);
    EXPECT_GT(sizeOf(file), 0) << "synap-npu writes its program after the first inference";
    const off_t written = sizeOf(file);
    EXPECT_EQ(compileAndRun(npu, &file, 1), expected);  // prepared from the file
    EXPECT_EQ(sizeOf(file), written);
    close(file);
}

TEST_F(CachingFromFdsTest, FilesOfTheWrongCountAreNotUsed) {
    ASSERT_NO_FATAL_FAILURE(setProperty("vendor.npu.cache.model", "1"));
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());
    const int files[2] = {memfd_create("nnemu-sl-a", MFD_CLOEXEC), memfd_create("nnemu-sl-b", MFD_CLOEXEC)};
    ASSERT_GE(files[0], 0);
    ASSERT_GE(files[1], 0);
    EXPECT_EQ(compileAndRun(npu, files, 2), (std::vector<float>{6.5f, 8.5f, 12.5f, 14.5f}));
    EXPECT_EQ(sizeOf(files[0]), 0);
    EXPECT_EQ(sizeOf(files[1]), 0);
    close(files[0]);
    close(files[1]);
}

TEST_F(CachingFromFdsTest, ResultCodes) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());
    ASSERT_EQ(sl().ANeuralNetworksCompilation_createForDevices(model_, &npu, 1, &compilation_),
              ANEURALNETWORKS_NO_ERROR);
    const int file = memfd_create("nnemu-sl-c", MFD_CLOEXEC);
    ASSERT_GE(file, 0);
    const auto setCaching = sl().SL_ANeuralNetworksCompilation_setCachingFromFds;
    EXPECT_EQ(setCaching(nullptr, &file, 1, nullptr, 0, token_.data()), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(setCaching(compilation_, &file, 1, nullptr, 0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(setCaching(compilation_, nullptr, 1, nullptr, 0, token_.data()), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(setCaching(compilation_, &file, 1, nullptr, 1, token_.data()), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(setCaching(compilation_, &file, 33, nullptr, 0, token_.data()), ANEURALNETWORKS_BAD_DATA);
    const int closed = -1;
    EXPECT_EQ(setCaching(compilation_, &closed, 1, nullptr, 0, token_.data()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(setCaching(compilation_, &file, 1, nullptr, 0, token_.data()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(setCaching(compilation_, nullptr, 0, nullptr, 0, token_.data()), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_finish(compilation_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(setCaching(compilation_, &file, 1, nullptr, 0, token_.data()), ANEURALNETWORKS_BAD_STATE);
    close(file);
}

}  // namespace
}  // namespace nnemu::sltest
