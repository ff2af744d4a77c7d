// allowed_cache_mode + cache_file_path (synap-behaviors.md §6.1) through the ABI: the program is
// saved after the first invoke and loaded instead of compiling next time; a file that is
// unusable is reported, the graph compiles, and only nnemu's own files are replaced.
#include <sys/stat.h>
#include <unistd.h>

#include "FilePermissionsApply.h"
#include "VxTestHost.h"

namespace {

namespace fs = std::filesystem;
using vxtest::MiniHost;

std::string readText(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

class VxCache : public vxtest::VxAbi {
protected:
    // One delegate over the ADD graph with the cache at `path`: Prepare, two invokes (checking
    // the sums); the delegate's log.
    std::string run(const std::string& path, TfLiteFusedActivation activation = kTfLiteActNone) {
        testing::internal::CaptureStderr();
        TfLiteDelegate* delegate = create({{"allowed_cache_mode", "1"}, {"cache_file_path", path}});
        EXPECT_NE(delegate, nullptr) << reported_;
        if (delegate != nullptr) {
            MiniHost host;
            host.addParams.activation = activation;
            EXPECT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
            EXPECT_EQ(host.replaced, std::vector<int>{0});
            if (host.kernelNode.user_data != nullptr) {
                for (int i = 0; i < 2; ++i) {
                    host.data[0] = {1, 2, 200, static_cast<uint8_t>(i)};
                    host.data[1] = {3, 4, 100, 1};
                    EXPECT_EQ(host.kernel.invoke(&host.context, &host.kernelNode), kTfLiteOk);
                    const uint8_t last = static_cast<uint8_t>(i + 1);
                    const std::vector<uint8_t> expected{4, 6, activation == kTfLiteActRelu6 ? uint8_t{6} : uint8_t{255},
                                                        last};
                    EXPECT_EQ(host.data[2], expected);
                }
            }
            destroy_(delegate);
        }
        return testing::internal::GetCapturedStderr();
    }
    static bool has(const std::string& log, const std::string& text) { return log.find(text) != std::string::npos; }
    std::string scratchFile(const std::string& name) const { return root_.scratch() + "/" + name; }
};

constexpr const char* kLoaded = "compiled graph loaded from";
constexpr const char* kSaved = "INFO: Vx delegate: compiled graph saved to ";

TEST_F(VxCache, SavesAfterTheFirstInvokeThenLoadsInsteadOfCompiling) {
    const std::string path = scratchFile("graph.nbg");
    std::string log = run(path);
    EXPECT_TRUE(has(log, "INFO: Vx delegate: allowed_cache_mode set to 1.\n")) << log;
    EXPECT_TRUE(has(log, kSaved + path + ".\n")) << log;
    EXPECT_FALSE(has(log, kLoaded)) << log;
    const std::string saved = readText(path);
    ASSERT_GT(saved.size(), 88u);
    EXPECT_EQ(saved.substr(0, 8), "NNEMUNPC");
    log = run(path);
    EXPECT_TRUE(has(log, "INFO: Vx delegate: compiled graph loaded from " + path + "; compilation skipped.\n")) << log;
    EXPECT_FALSE(has(log, kSaved)) << log;
    EXPECT_EQ(readText(path), saved);
    // No temporary file is left next to it.
    EXPECT_EQ(std::distance(fs::directory_iterator(root_.scratch()), fs::directory_iterator{}), 1);
}

TEST_F(VxCache, InsideTheDeviceRootAndFromAnEmptyFile) {
    const std::string path = root_.hostPath("/data/local/tmp/graph.nbg");
    fs::create_directories(fs::path(path).parent_path());
    writeText(path, "");
    std::string log = run(path);
    EXPECT_TRUE(has(log, kSaved + path + ".\n")) << log;
    EXPECT_FALSE(has(log, "WARNING: Vx delegate")) << log;
    EXPECT_TRUE(has(run(path), kLoaded));
}

TEST_F(VxCache, CorruptOrTruncatedFilesOfOursAreReportedRecompiledAndReplaced) {
    const std::string path = scratchFile("graph.nbg");
    run(path);
    const std::string good = readText(path);
    std::string corrupt = good;
    corrupt[corrupt.size() / 2] ^= 0x5a;
    for (const auto& [bytes, why] : {std::pair{corrupt, "the file fails its checksum"},
                                     std::pair{good.substr(0, good.size() - 7), "its header says"},
                                     std::pair{good.substr(0, 40), "the file is too short for its header"}}) {
        writeText(path, bytes);
        const std::string log = run(path);
        EXPECT_TRUE(has(log, "WARNING: Vx delegate: cache_file_path " + path + ": ")) << log;
        EXPECT_TRUE(has(log, why)) << log;
        EXPECT_TRUE(has(log, "the graph compiles and its program replaces the file.")) << log;
        EXPECT_FALSE(has(log, kLoaded)) << log;
        EXPECT_TRUE(has(log, kSaved)) << log;
        EXPECT_EQ(readText(path), good);
    }
}

TEST_F(VxCache, AFileOfAnotherModelIsReportedAndReplaced) {
    const std::string path = scratchFile("graph.nbg");
    run(path, kTfLiteActRelu6);
    const std::string relu6 = readText(path);
    const std::string log = run(path);
    EXPECT_TRUE(has(log, "holds the compiled graph of another model")) << log;
    EXPECT_FALSE(has(log, kLoaded)) << log;
    EXPECT_NE(readText(path), relu6);
    EXPECT_TRUE(has(run(path), kLoaded));
}

TEST_F(VxCache, ForeignFilesAndSymlinksAreNeverWritten) {
    const std::string path = scratchFile("notes.txt");
    writeText(path, "not a graph at all, and precious");
    std::string log = run(path);
    EXPECT_TRUE(has(log, "cache_file_path " + path + ": not an nnemu compiled-graph cache file; the graph "
                          "compiles, the file is left untouched.\n")) << log;
    EXPECT_FALSE(has(log, kSaved)) << log;
    EXPECT_EQ(readText(path), "not a graph at all, and precious");

    const std::string link = scratchFile("link.nbg");
    fs::create_symlink(path, link);
    log = run(link);
    EXPECT_TRUE(has(log, "a symbolic link is not followed")) << log;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(readText(path), "not a graph at all, and precious");

    // Inside the device root, a symlinked directory on the way is refused too.
    fs::create_directories(root_.hostPath("/data"));
    fs::create_directory_symlink(root_.scratch(), root_.hostPath("/data/out"));
    log = run(root_.hostPath("/data/out/graph.nbg"));
    EXPECT_TRUE(has(log, "the file is left untouched")) << log;
    EXPECT_FALSE(fs::exists(scratchFile("graph.nbg")));
}

TEST_F(VxCache, ADirectoryIsReportedAndLeftAlone) {
    const std::string path = scratchFile("graphs");
    fs::create_directory(path);
    const std::string log = run(path);
    EXPECT_TRUE(has(log, "cache_file_path " + path + ": not a regular file; the graph compiles, the file is left "
                          "untouched.\n")) << log;
    EXPECT_TRUE(fs::is_empty(path));
}

TEST_F(VxCache, AnUnreadableFileIsReportedAndLeftAlone) {
    const std::string path = scratchFile("graph.nbg");
    run(path);
    const std::string good = readText(path);
    ASSERT_EQ(chmod(path.c_str(), 0), 0);
    std::string log;
    {
        nnemu::props::testing::FilePermissionsApply asAnyone;  // CI runs as root
        ASSERT_TRUE(asAnyone.active());
        log = run(path);
    }
    chmod(path.c_str(), 0644);
    EXPECT_TRUE(has(log, "cannot be read: Permission denied; the graph compiles, the file is left untouched."))
            << log;
    EXPECT_EQ(readText(path), good);
}

TEST_F(VxCache, WithoutACachePathNothingIsWritten) {
    testing::internal::CaptureStderr();
    TfLiteDelegate* delegate = create({{"allowed_cache_mode", "true"}});
    const std::string log = testing::internal::GetCapturedStderr();
    ASSERT_NE(delegate, nullptr);
    destroy_(delegate);
    EXPECT_TRUE(has(log, "allowed_cache_mode is set but cache_file_path is empty")) << log;
}

}  // namespace
