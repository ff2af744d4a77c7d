// The SyNAP cache's program files (driver/synap/cache/ProgramFiles.h): a hit maps the program's file next to
// the database; a truncated, altered, foreign or planted file is refused with a warning, removed,
// and the program comes from the database (which writes the file again and maps it), never a
// crash or a wrong program. Through the cache's API and end to end through synap-npu.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "CacheTestSupport.h"
#include "ProgramFiles.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/synap/cache/SynapCache.h"

namespace nnemu::cachetest {
namespace {

namespace fs = std::filesystem;
using cache::cacheCounters;
using cache::SynapCache;

constexpr uint32_t kVersion = 7;

std::vector<uint8_t> programOf(uint8_t seed, size_t size = 40003) {  // ends in a partial word
    std::vector<uint8_t> bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(seed + i * 31 + (i >> 9));
    return bytes;
}

class ProgramFileTest : public CacheTest {
protected:
    void SetUp() override {
        CacheTest::SetUp();
        file_ = root() + "/data/vendor/synap/nnhal.cache";
        fs::create_directories(fs::path(file_).parent_path());
        std::string error;
        cache_ = openSynapCache(file_, true, error, root());
        ASSERT_NE(cache_, nullptr) << error;
        ASSERT_EQ(cache_->store("key", program_, kVersion, 10), nnemu::StatusCode::OK);
        ASSERT_TRUE(fs::is_regular_file(programFile())) << "the store writes the program's file";
        expectFound(true);
    }
    std::string programFile() const {
        return file_ + "." + cache::programIdentity(program_) + ".npu";
    }
    // A lookup that must return the stored program; `mapped` and `problem` say how.
    void expectFound(bool mapped, const std::string& problem = "") {
        cache::ProgramImage image;
        Status refused;
        const Status found = cache_->findImage("key", kVersion, &image, &refused);
        const std::string& fileProblem = refused.message();
        ASSERT_TRUE(found.isOk()) << found;
        EXPECT_EQ(image.mapped(), mapped);
        ASSERT_EQ(image.size(), program_.size());
        EXPECT_TRUE(std::equal(program_.begin(), program_.end(), image.data()));
        if (problem.empty()) {
            EXPECT_EQ(fileProblem, "");
        } else {
            EXPECT_NE(fileProblem.find(problem), std::string::npos) << fileProblem;
        }
    }
    // The refused file is gone, written again from the database and mapped, as on later hits.
    void expectRefusedThenRewritten(const std::string& problem) {
        expectFound(true, problem);
        ASSERT_TRUE(fs::is_regular_file(fs::symlink_status(programFile())));
        expectFound(true);
    }

    std::string file_;
    std::unique_ptr<SynapCache> cache_;
    std::vector<uint8_t> program_ = programOf(3);
};

TEST_F(ProgramFileTest, TheStoreWritesAPrivateFileThatHitsMap) {
    ASSERT_TRUE(fs::is_regular_file(programFile()));
    EXPECT_EQ(fs::status(programFile()).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    expectFound(true);
    EXPECT_EQ(cache_->totals().hits, 2u);
}

// Processes that only look the program up each open the database alone, count their hit and
// close it leaving the log. The log must restart once it is long: a checkpoint alone never let
// it, since each next opener rebuilds the log's index without knowing its frames were copied,
// so the log grew by every hit and every later lookup copied and synced all of it again.
TEST_F(ProgramFileTest, LookupsAloneKeepTheLogShortAndCountEveryHit) {
    cache_.reset();
    const int lookups = 3 * SynapCache::kLogRestartFrames;
    uintmax_t longest = 0;
    for (int i = 0; i < lookups; ++i) {
        std::string error;
        std::unique_ptr<SynapCache> process = openSynapCache(file_, false, error, root());
        ASSERT_NE(process, nullptr) << error;
        process->keepLogOnClose();
        cache::ProgramImage image;
        ASSERT_TRUE(process->findImage("key", kVersion, &image).isOk());
        ASSERT_TRUE(image.mapped());
        process.reset();
        longest = std::max(longest, fs::file_size(file_ + "-wal"));
    }
    // Each hit adds at most two pages (the entry, and page 1 when the log restarts).
    constexpr uintmax_t kFrameBytes = 24 + 16384;
    EXPECT_LE(longest, 32 + (SynapCache::kLogRestartFrames + 2) * kFrameBytes);
    std::string error;
    cache_ = openSynapCache(file_, false, error, root());
    ASSERT_NE(cache_, nullptr) << error;
    EXPECT_EQ(cache_->totals().hits, static_cast<uint64_t>(lookups) + 1);  // and the fixture's
}

TEST_F(ProgramFileTest, AMissingFileIsWrittenAgainFromTheDatabase) {
    fs::remove(programFile());
    expectFound(true);
    ASSERT_TRUE(fs::is_regular_file(programFile()));
    expectFound(true);
}

TEST_F(ProgramFileTest, ATruncatedFileIsRefused) {
    fs::resize_file(programFile(), program_.size() / 2);
    expectRefusedThenRewritten("bytes, not");
}

TEST_F(ProgramFileTest, AFileWithoutItsTrailerIsRefused) {
    fs::resize_file(programFile(), program_.size());
    expectRefusedThenRewritten("bytes, not");
}

TEST_F(ProgramFileTest, AFlippedByteIsRefused) {
    for (size_t offset : {size_t{0}, program_.size() / 2, program_.size() + 20, program_.size() + 60}) {
        {
            std::fstream file(programFile(), std::ios::in | std::ios::out | std::ios::binary);
            file.seekg(static_cast<std::streamoff>(offset));
            const char byte = static_cast<char>(file.get() ^ 0x10);
            file.seekp(static_cast<std::streamoff>(offset));
            file.put(byte);
        }
        SCOPED_TRACE(offset);
        expectFound(true, programFile().substr(programFile().rfind('/') + 1));
        expectFound(true);
    }
}

// A file of the first format (SHA-256 in an 80-byte trailer), or one claiming another format
// version at the right size, is refused and written again in the current format.
TEST_F(ProgramFileTest, AFileOfAnotherFormatVersionIsRefused) {
    for (const size_t trailer : {size_t{80}, cache::kProgramFileTrailerSize}) {
        {
            std::vector<uint8_t> bytes = program_;
            const char old[8] = {'N', 'N', 'E', 'M', 'U', 'P', 'F', '1'};
            bytes.insert(bytes.end(), old, old + sizeof old);
            bytes.resize(program_.size() + trailer, 0);
            std::ofstream(programFile(), std::ios::binary | std::ios::trunc)
                    .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        }
        SCOPED_TRACE(trailer);
        expectRefusedThenRewritten(trailer == 80 ? "bytes, not" : "is not a program file");
        EXPECT_EQ(fs::file_size(programFile()), program_.size() + cache::kProgramFileTrailerSize);
    }
}

// Damage the checksum covers: a whole page of other bytes, a byte in the last partial word.
TEST_F(ProgramFileTest, AnAlteredPageOrLastByteIsRefused) {
    for (size_t offset : {size_t{8192}, program_.size() - 1}) {
        {
            std::fstream file(programFile(), std::ios::in | std::ios::out | std::ios::binary);
            file.seekp(static_cast<std::streamoff>(offset));
            const std::vector<char> page(offset == 8192 ? 4096 : 1, '\x5a');
            file.write(page.data(), static_cast<std::streamsize>(page.size()));
        }
        SCOPED_TRACE(offset);
        expectFound(true, "fails its checksum");
        expectFound(true);
    }
}

TEST_F(ProgramFileTest, AnotherProgramsFileUnderThisNameIsRefused) {
    const std::vector<uint8_t> other = programOf(9, program_.size());
    ASSERT_EQ(cache_->store("other", other, kVersion, 10), nnemu::StatusCode::OK);
    cache::ProgramImage image;
    ASSERT_EQ(cache_->findImage("other", kVersion, &image), nnemu::StatusCode::OK);
    const std::string otherFile = file_ + "." + cache::programIdentity(other) + ".npu";
    fs::remove(programFile());
    fs::copy_file(otherFile, programFile());
    expectRefusedThenRewritten("holds another program");
}

TEST_F(ProgramFileTest, ASymbolicLinkIsRefusedAndItsTargetLeftAlone) {
    const std::string outside = root() + "/outside.npu";
    fs::copy_file(programFile(), outside);  // even a link to the right bytes
    fs::remove(programFile());
    fs::create_symlink(outside, programFile());
    expectRefusedThenRewritten("symbolic link");
    EXPECT_TRUE(fs::is_regular_file(outside));
    EXPECT_EQ(fs::file_size(outside), program_.size() + cache::kProgramFileTrailerSize);
}

TEST_F(ProgramFileTest, ADirectoryInItsPlaceIsRefusedAndTheDatabaseServes) {
    fs::remove(programFile());
    fs::create_directory(programFile());
    expectFound(false, "not a regular file");
    expectFound(false, "not a regular file");
    EXPECT_TRUE(fs::is_directory(programFile()));
}

TEST_F(ProgramFileTest, EvictionAndClearRemoveTheFiles) {
    ASSERT_TRUE(fs::exists(programFile()));
    EXPECT_EQ(cache_->evictTo(0), 1u);
    EXPECT_FALSE(fs::exists(programFile()));
    ASSERT_EQ(cache_->store("key", program_, kVersion, 10), nnemu::StatusCode::OK);
    expectFound(true);
    ASSERT_TRUE(fs::exists(programFile()));
    EXPECT_TRUE(cache_->clear());
    EXPECT_FALSE(fs::exists(programFile()));
}

// End to end: synap-npu maps the program on a hit, and a damaged file costs a warning and the
// database's copy, with the same results.
TEST_F(CacheTest, SynapNpuMapsTheCachedProgramAndRefusesADamagedFile) {
    ConvNetwork network({8, 16, {1, 2}});
    ASSERT_TRUE(network.valid());
    auto run = [&] {
        ANeuralNetworksCompilation* compilation = network.compile();
        EXPECT_NE(compilation, nullptr);
        auto output = compilation ? network.run(compilation) : std::vector<float>{};
        ANeuralNetworksCompilation_free(compilation);
        return output;
    };
    const auto first = run();
    ASSERT_FALSE(first.empty());
    // The first hit reads the database, writes the program's file and maps it.
    EXPECT_EQ(run(), first);
    EXPECT_EQ(cacheCounters().synapMapped, 1u);
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(fs::path(defaultCacheFile()).parent_path())) {
        if (entry.path().extension() == ".npu") files.push_back(entry.path());
    }
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(run(), first);
    EXPECT_EQ(cacheCounters().synapMapped, 2u);

    // A damaged file is refused and removed; the database's copy writes it again.
    fs::resize_file(files[0], fs::file_size(files[0]) - 1);
    EXPECT_EQ(run(), first);
    EXPECT_EQ(cacheCounters().programFileRefusals, 1u);
    EXPECT_EQ(cacheCounters().synapHits, 3u);
    EXPECT_EQ(cacheCounters().synapMapped, 3u);
    EXPECT_EQ(run(), first);
    EXPECT_EQ(cacheCounters().programFileRefusals, 1u);
    EXPECT_EQ(cacheCounters().synapMapped, 4u);
    EXPECT_EQ(cacheCounters().compiles, 1u);
}

// A uint8 1x1 convolution 16 -> 32 channels on 8x8: a layer of the core's own GEMM, whose
// weights the program stores packed. The model references `weights_` (kept alive).
class PointwiseNetwork {
public:
    PointwiseNetwork() : weights_(32 * 16), bias_(32) {
        for (size_t i = 0; i < weights_.size(); ++i) weights_[i] = static_cast<uint8_t>(i * 29 + 3);
        for (size_t i = 0; i < bias_.size(); ++i) bias_[i] = static_cast<int32_t>(i * 41) - 600;
        ANeuralNetworksModel_create(&model_);
        const uint32_t in[4] = {1, 8, 8, 16}, filter[4] = {32, 1, 1, 16}, biasDims[1] = {32}, out[4] = {1, 8, 8, 32};
        const ANeuralNetworksOperandType types[] = {
                {ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, in, 0.05f, 120},
                {ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, filter, 0.02f, 130},
                {ANEURALNETWORKS_TENSOR_INT32, 1, biasDims, 0.05f * 0.02f, 0},
                {ANEURALNETWORKS_INT32, 0, nullptr, 0, 0},
                {ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, out, 0.1f, 100}};
        for (const auto& type : types) ANeuralNetworksModel_addOperand(model_, &type);
        for (int i = 0; i < 3; ++i) ANeuralNetworksModel_addOperand(model_, &types[3]);  // 5, 6, 7: stride, act
        const int32_t valid = ANEURALNETWORKS_PADDING_VALID, one = 1, none = ANEURALNETWORKS_FUSED_NONE;
        ANeuralNetworksModel_setOperandValue(model_, 1, weights_.data(), weights_.size());
        ANeuralNetworksModel_setOperandValue(model_, 2, bias_.data(), bias_.size() * sizeof(int32_t));
        ANeuralNetworksModel_setOperandValue(model_, 3, &valid, sizeof valid);
        ANeuralNetworksModel_setOperandValue(model_, 5, &one, sizeof one);
        ANeuralNetworksModel_setOperandValue(model_, 6, &one, sizeof one);
        ANeuralNetworksModel_setOperandValue(model_, 7, &none, sizeof none);
        const uint32_t inputs[] = {0, 1, 2, 3, 5, 6, 7}, outputs[] = {4}, modelIn[] = {0};
        ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_CONV_2D, 7, inputs, 1, outputs);
        ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, modelIn, 1, outputs);
        valid_ = ANeuralNetworksModel_finish(model_) == ANEURALNETWORKS_NO_ERROR;
    }
    ~PointwiseNetwork() { ANeuralNetworksModel_free(model_); }

    // One compilation for synap-npu and one inference; empty on failure.
    std::vector<uint8_t> run() const {
        const ANeuralNetworksDevice* device = deviceNamed("synap-npu");
        ANeuralNetworksCompilation* compilation = nullptr;
        ANeuralNetworksExecution* execution = nullptr;
        std::vector<uint8_t> in(8 * 8 * 16), out(8 * 8 * 32);
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 1);
        bool ok = valid_ && device != nullptr &&
                  ANeuralNetworksCompilation_createForDevices(model_, &device, 1, &compilation) == 0 &&
                  ANeuralNetworksCompilation_finish(compilation) == 0 &&
                  ANeuralNetworksExecution_create(compilation, &execution) == 0 &&
                  ANeuralNetworksExecution_setInput(execution, 0, nullptr, in.data(), in.size()) == 0 &&
                  ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), out.size()) == 0 &&
                  ANeuralNetworksExecution_compute(execution) == 0;
        ANeuralNetworksExecution_free(execution);
        ANeuralNetworksCompilation_free(compilation);
        return ok ? out : std::vector<uint8_t>{};
    }

private:
    std::vector<uint8_t> weights_;
    std::vector<int32_t> bias_;
    ANeuralNetworksModel* model_ = nullptr;
    bool valid_ = false;
};

// Compiled once: the weights are packed at compilation and the core runs on them from the
// program; a hit maps the program's file and packs nothing; a damaged file is still refused.
TEST_F(CacheTest, SynapNpuRunsOnTheMappedProgramsPackedWeights) {
    const char* kernels = std::getenv("NNEMU_NPU_KERNELS");
    if (kernels != nullptr && std::string(kernels) == "xnnpack") GTEST_SKIP() << "own kernels are off";
    PointwiseNetwork network;
    const auto first = network.run();
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(cacheCounters().weightPackings, 0u);
    EXPECT_EQ(cacheCounters().weightsInPlace, 1u);
    EXPECT_EQ(network.run(), first);  // the first hit writes the program's file and maps it
    EXPECT_EQ(network.run(), first);
    EXPECT_EQ(cacheCounters().synapMapped, 2u);
    EXPECT_EQ(cacheCounters().weightPackings, 0u);
    EXPECT_EQ(cacheCounters().weightsInPlace, 3u);
    EXPECT_EQ(cacheCounters().compiles, 1u);

    for (const auto& entry : fs::directory_iterator(fs::path(defaultCacheFile()).parent_path())) {
        if (entry.path().extension() == ".npu") fs::resize_file(entry.path(), fs::file_size(entry.path()) / 2);
    }
    EXPECT_EQ(network.run(), first);
    EXPECT_EQ(cacheCounters().programFileRefusals, 1u);
    EXPECT_EQ(cacheCounters().synapMapped, 3u);
    EXPECT_EQ(cacheCounters().weightPackings, 0u);
}

}  // namespace
}  // namespace nnemu::cachetest
