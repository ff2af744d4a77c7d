// The statistics files against what a crash, a disk image or a hostile user leaves in the
// statistics folder: damaged or locked `.state` files, files truncated under a running process,
// writes of any length, planted symbolic and hard links. The NPU execution always succeeds and
// never hangs; the statistics recover with one warning; nothing outside the root is touched.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cstring>

#include "StatisticsFixture.h"
#include "StatisticsState.h"

namespace nnemu {
namespace {

namespace fs = std::filesystem;
using synap::StateRecord;
using synaptest::kNetworkLine;

class StatisticsRobustness : public synaptest::StatisticsFixture {
protected:
    std::string statePath() const { return dir_ + ".state"; }
    StateRecord readState() const {
        StateRecord record{};
        std::ifstream(statePath(), std::ios::binary).read(reinterpret_cast<char*>(&record), sizeof record);
        return record;
    }
    // Rewrites the record in place (same file, as a restored image would be).
    void writeState(const StateRecord& record) const {
        std::fstream file(statePath(), std::ios::binary | std::ios::in | std::ios::out);
        file.write(reinterpret_cast<const char*>(&record), sizeof record);
    }
    static int stateWarnings(const std::string& errors) { return linesWith(errors, "statistics state"); }
    // Sets `.state`'s lock word as a holder with this pid would have.
    void holdLock(pid_t holder) const {
        const uint64_t word = (static_cast<uint64_t>(holder) << 32) | 1;
        std::fstream file(statePath(), std::ios::binary | std::ios::in | std::ios::out);
        file.seekp(offsetof(StateRecord, lock));
        file.write(reinterpret_cast<const char*>(&word), sizeof word);
    }
};

const std::regex kNumber("[0-9]+\n");

// Version 1 mapped a robust mutex in `.state`. A copy taken while a process held it names an
// owner whose death the kernel never reports to the copy: locking it waited forever.
TEST_F(StatisticsRobustness, AStateImageLockedByADeadProcessDoesNotHangExecutions) {
    fs::create_directories(dir_);
    const pid_t owner = fork();
    if (owner == 0) {
        struct Legacy {
            uint32_t magic = synap::kStateMagic, version = 1;
            pthread_mutex_t mutex;
            char rest[16384] = {};
        };
        auto* image = new Legacy();
        pthread_mutexattr_t attributes;
        pthread_mutexattr_init(&attributes);
        pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
        pthread_mutex_init(&image->mutex, &attributes);
        pthread_mutex_lock(&image->mutex);
        std::ofstream(statePath(), std::ios::binary).write(reinterpret_cast<const char*>(image), sizeof *image);
        _exit(0);  // dies holding the copy's lock
    }
    int status = 0;
    ASSERT_EQ(waitpid(owner, &status, 0), owner);
    std::string errors;
    ASSERT_EQ(runClient(3, &errors), 0);
    EXPECT_EQ(read("inference_count"), "3\n");
    EXPECT_EQ(stateWarnings(errors), 1) << errors;
    EXPECT_NE(errors.find("of another format (version 1)"), std::string::npos) << errors;
}

// A holder killed inside its update leaves the lock word naming it: the next process takes the
// lock over at once, silently.
TEST_F(StatisticsRobustness, AKilledLockHolderReleasesTheLock) {
    ASSERT_EQ(runClient(1), 0);
    const pid_t holder = fork();
    if (holder == 0) {
        pause();
        _exit(0);
    }
    holdLock(holder);
    kill(holder, SIGKILL);
    waitpid(holder, nullptr, 0);
    std::string errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_EQ(read("inference_count"), "3\n");
    EXPECT_EQ(linesWith(errors, "WARNING") + linesWith(errors, "W:SyNAP:"), 0) << errors;
}

// A holder that is alive but never releases (stopped, in a debugger; or a copy of the file taken
// while locked names a live process) costs one wait of 5 s: the lock is then taken over, with one
// warning, and every execution is counted.
TEST_F(StatisticsRobustness, AStoppedLockHolderDoesNotHangExecutions) {
    ASSERT_EQ(runClient(1), 0);
    holdLock(getpid());  // alive, and never lets go
    std::string errors;
    EXPECT_EQ(runClient(1, &errors), 0);
    EXPECT_EQ(linesWith(errors, "took the lock over"), 1) << errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_EQ(linesWith(errors, "took the lock over"), 0) << errors;
    EXPECT_EQ(read("inference_count"), "4\n");
}

struct Damage {
    const char* name;
    void (*apply)(const std::string& state);
};

void truncateTo100(const std::string& state) { ASSERT_EQ(truncate(state.c_str(), 100), 0); }
void zero(const std::string& state) {
    const std::string zeros(sizeof(StateRecord), '\0');
    std::ofstream(state, std::ios::binary) << zeros;
}
void foreign(const std::string& state) { std::ofstream(state) << std::string(20000, 'x'); }
void missing(const std::string& state) { ASSERT_EQ(unlink(state.c_str()), 0); }
void grown(const std::string& state) { ASSERT_EQ(truncate(state.c_str(), 3 * sizeof(StateRecord)), 0); }
void torn(const std::string& state) {  // a slot half written when the power went
    std::fstream file(state, std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(offsetof(StateRecord, slots) + 5 * sizeof(synap::StateSlot) + 20);
    file.write("\x55\x55\x55\x55", 4);
}

class DamagedState : public StatisticsRobustness, public ::testing::WithParamInterface<Damage> {};

TEST_P(DamagedState, IsRebuiltWithOneWarning) {
    ASSERT_EQ(runClient(5), 0);
    GetParam().apply(statePath());
    std::string errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_EQ(stateWarnings(errors), 1) << errors;
    EXPECT_EQ(read("inference_count"), "2\n");  // rebuilt: the counters restart
    EXPECT_TRUE(std::regex_match(read("inference_time"), kNumber));
    EXPECT_EQ(fs::file_size(statePath()), sizeof(StateRecord));
    ASSERT_EQ(runClient(1, &errors), 0);
    EXPECT_EQ(stateWarnings(errors), 0) << errors;
    EXPECT_EQ(read("inference_count"), "3\n");
}

INSTANTIATE_TEST_SUITE_P(Kinds, DamagedState,
                         ::testing::Values(Damage{"Truncated", truncateTo100}, Damage{"Zeroed", zero},
                                           Damage{"Foreign", foreign}, Damage{"Missing", missing},
                                           Damage{"Grown", grown}, Damage{"Torn", torn}),
                         [](const auto& info) { return std::string(info.param.name); });

// The state is mapped: truncating it under a running process raises SIGBUS at its next access,
// which the driver catches (MappedGuard.h), then rebuilds the file.
class TruncatedUnderARunningProcess : public StatisticsRobustness, public ::testing::WithParamInterface<off_t> {};

TEST_P(TruncatedUnderARunningProcess, IsRebuiltWithoutACrash) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "2", "--hold"});
    waitReady(client);
    ASSERT_EQ(truncate(statePath().c_str(), GetParam()), 0);
    runMore(client, 3);
    EXPECT_EQ(read("inference_count"), "3\n");
    EXPECT_EQ(finish(client), 0);
    EXPECT_FALSE(WIFSIGNALED(client.status)) << "killed by signal " << WTERMSIG(client.status);
    EXPECT_EQ(stateWarnings(readPath(client.errorsPath)), 1) << readPath(client.errorsPath);
}

INSTANTIATE_TEST_SUITE_P(Sizes, TruncatedUnderARunningProcess, ::testing::Values(0, 100, 4096));

// The visible files are mapped too: one cut (to nothing, or a reader's `truncate -s 1`) under a
// running process costs it nothing but a rewrite.
class VisibleFileCut : public StatisticsRobustness, public ::testing::WithParamInterface<const char*> {};

TEST_P(VisibleFileCut, IsRewrittenWithoutACrash) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "12", "--hold"});
    waitReady(client);
    for (off_t size : {0, 1}) {
        ASSERT_EQ(truncate((dir_ + GetParam()).c_str(), size), 0);
        runMore(client, 1);
    }
    EXPECT_TRUE(std::regex_match(read("networks"), kNetworkLine)) << read("networks");
    EXPECT_TRUE(std::regex_match(read("inference_time"), kNumber)) << read("inference_time");
    EXPECT_EQ(finish(client), 0);
    EXPECT_FALSE(WIFSIGNALED(client.status)) << "killed by signal " << WTERMSIG(client.status);
}

INSTANTIATE_TEST_SUITE_P(Files, VisibleFileCut, ::testing::Values("networks", "network_profile", "inference_count"),
                         [](const auto& info) { return std::to_string(info.index); });

// Networks listed on another boot belong to processes that no longer exist, whatever pid they
// had; the totals stay (they are the board's since the last reset).
TEST_F(StatisticsRobustness, AStateFromAnotherBootForgetsItsNetworks) {
    ASSERT_EQ(runClient(4), 0);
    StateRecord record = readState();
    ASSERT_EQ(record.magic, synap::kStateMagic);
    std::memset(record.bootId, 0, sizeof record.bootId);
    std::strcpy(record.bootId, "another-boot");
    record.slots[0] = synap::StateSlot{getpid(), 7, record.nextOrder++, 9, 900, 100, 2, 1280, 0, 0};
    writeState(record);
    std::string errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_EQ(read("networks"), "");
    EXPECT_EQ(read("inference_count"), "6\n");
    EXPECT_EQ(linesWith(errors, "WARNING") + linesWith(errors, "W:SyNAP:"), 0) << errors;
}

struct Write {
    const char* name;
    const char* file;
    bool currentValue;  // write back what the file shows
    const char* text;
    bool resets;
};

class UserWrite : public StatisticsRobustness, public ::testing::WithParamInterface<Write> {};

// A write that changes the text resets both totals, as sysfs does, and the next update replaces
// the whole file. Writing back the very text shown leaves nothing to see: no reset (unlike sysfs
// and the FUSE view).
TEST_P(UserWrite, ResetsAndLeavesNoStaleText) {
    ASSERT_EQ(runClient(5), 0);
    const Write& w = GetParam();
    write(w.file, w.currentValue ? read(w.file) : w.text);
    ASSERT_EQ(runClient(2), 0);
    EXPECT_EQ(read("inference_count"), w.resets ? "2\n" : "7\n");
    EXPECT_TRUE(std::regex_match(read("inference_time"), kNumber)) << read("inference_time");
    EXPECT_LT(std::stoull(read("inference_time")), 1000000000u);
}

INSTANTIATE_TEST_SUITE_P(Kinds, UserWrite,
                         ::testing::Values(Write{"LongerCount", "inference_count", false, "123456789012345\n", true},
                                           Write{"LongerTime", "inference_time", false, "98765432109876543\n", true},
                                           Write{"SameLengthCount", "inference_count", false, "9\n", true},
                                           Write{"CurrentCount", "inference_count", true, "", false},
                                           Write{"CurrentTime", "inference_time", true, "", false},
                                           Write{"EmptyCount", "inference_count", false, "", true},
                                           Write{"Text", "inference_time", false, "reset please", true}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(StatisticsRobustness, WritingNetworksDoesNotResetAndIsReplaced) {
    ASSERT_EQ(runClient(5), 0);
    write("networks", std::string(6000, 'n'));
    ASSERT_EQ(runClient(1), 0);
    EXPECT_EQ(read("inference_count"), "6\n");
    EXPECT_EQ(read("networks"), "");
}

// inference_count is stored in place by one aligned store and replaced whole when its length
// changes (a reset here): a reader sees the old count, the new one or what it wrote, never
// anything else. (networks is stored in place byte by byte: a reader racing an update may see a
// mix; the FUSE view is the exact path.)
TEST_F(StatisticsRobustness, ReadersSeeWholeCounts) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "5", "--hold"});
    waitReady(client);
    write("inference_count", "1234567890\n");  // the next update resets and shortens the file
    const std::string command = "run 150\n";
    ASSERT_EQ(::write(client.toChild, command.data(), command.size()), static_cast<ssize_t>(command.size()));
    for (char line[32];;) {  // until the client says it is done (or dies: poll then reports a hang-up)
        const std::string count = read("inference_count");
        ASSERT_TRUE(count == "1234567890\n" || std::regex_match(count, kNumber)) << count;
        pollfd ready{fileno(client.fromChild), POLLIN, 0};
        if (poll(&ready, 1, 0) == 1) {
            ASSERT_NE(fgets(line, sizeof line, client.fromChild), nullptr);
            break;
        }
    }
    EXPECT_EQ(read("inference_count"), "150\n");
    EXPECT_TRUE(std::regex_match(read("networks"), kNetworkLine)) << read("networks");
    EXPECT_EQ(finish(client), 0);
}

// The files are rewritten in place: a reader holding one open reads the new text, and the file
// keeps its inode while its length does. A length change replaces inference_count whole: a
// reader holding the old version keeps it.
TEST_F(StatisticsRobustness, FilesAreRewrittenInPlace) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "2", "--hold"});
    waitReady(client);
    const char* names[] = {"inference_count", "inference_time"};
    struct stat before[2] {}, after[2] {};
    for (int i = 0; i < 2; ++i) ASSERT_EQ(stat((dir_ + names[i]).c_str(), &before[i]), 0) << names[i];
    const int held = open((dir_ + "inference_count").c_str(), O_RDONLY);
    auto content = [](int fd) {
        char text[64];
        const ssize_t bytes = pread(fd, text, sizeof text, 0);
        return std::string(text, bytes > 0 ? static_cast<size_t>(bytes) : 0);
    };
    runMore(client, 5);
    EXPECT_EQ(content(held), "7\n");
    ASSERT_EQ(stat((dir_ + names[0]).c_str(), &after[0]), 0);
    EXPECT_EQ(after[0].st_ino, before[0].st_ino);
    EXPECT_EQ(read("inference_count"), "7\n");
    runMore(client, 3);  // 8 and 9 in place; 10, a digit more, in a new version
    EXPECT_EQ(content(held), "9\n");
    EXPECT_EQ(read("inference_count"), "10\n");
    close(held);
    EXPECT_EQ(finish(client), 0);
}

// A hard link made to a visible file is noticed at the next look (at most 100 ms after the last)
// and keeps the version it had then: the name gets a new file.
TEST_F(StatisticsRobustness, AHardLinkToAVisibleFileIsLeftBehind) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "2", "--hold"});
    waitReady(client);
    fs::create_hard_link(dir_ + "inference_count", scratch_ + "/copy");
    usleep(150 * 1000);
    runMore(client, 3);
    EXPECT_EQ(readPath(scratch_ + "/copy"), "2\n");
    EXPECT_EQ(read("inference_count"), "5\n");
    runMore(client, 1);
    EXPECT_EQ(readPath(scratch_ + "/copy"), "2\n");
    EXPECT_EQ(read("inference_count"), "6\n");
    EXPECT_EQ(finish(client), 0);
}

// The inotify instances `pid` holds.
int inotifyInstances(pid_t pid) {
    int found = 0;
    for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
        std::error_code error;
        found += fs::read_symlink(entry.path(), error).string() == "anon_inode:inotify";
    }
    return found;
}

// A process watches the folder with inotify only once it has used the statistics for 200 ms or
// for 32 updates (closing a watch makes a short process wait for the kernel at exit); what others
// do to the files is seen at its next update either way.
TEST_F(StatisticsRobustness, OnlyAProcessUsingTheStatisticsAWhileWatchesTheFolder) {
    const auto spawned = std::chrono::steady_clock::now();
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "2", "--hold"});
    waitReady(client);
    // A slow machine (a sanitizer build) may take the 200 ms to get here: then it may watch.
    if (std::chrono::steady_clock::now() - spawned < std::chrono::milliseconds(150)) {
        EXPECT_EQ(inotifyInstances(client.pid), 0);
    }
    write("inference_count", "0\n");  // a reset, seen by looking (or by the watch)
    runMore(client, 1);
    EXPECT_EQ(read("inference_count"), "1\n");
    runMore(client, 40);
    EXPECT_EQ(inotifyInstances(client.pid), 1);
    write("inference_count", "0\n");  // a reset, reported by the watch
    runMore(client, 3);
    EXPECT_EQ(read("inference_count"), "3\n");
    fs::remove(dir_ + "inference_time");  // put back, not a reset
    runMore(client, 1);
    EXPECT_EQ(read("inference_count"), "4\n");
    EXPECT_TRUE(std::regex_match(read("inference_time"), kNumber)) << read("inference_time");
    EXPECT_EQ(finish(client), 0);

    Process waiting = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--hold"});
    waitReady(waiting);
    usleep(300 * 1000);
    runMore(waiting, 1);
    EXPECT_EQ(inotifyInstances(waiting.pid), 1);
    EXPECT_EQ(finish(waiting), 0);
}

// Links planted under a process's spare name: neither is written through.
class PlantedSpare : public StatisticsRobustness, public ::testing::WithParamInterface<bool> {};

TEST_P(PlantedSpare, IsNotWrittenThrough) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "2", "--hold"});
    waitReady(client);
    const std::string victim = scratch_ + "/victim", spare = dir_ + ".inference_count." + std::to_string(client.pid) + ".tmp";
    std::ofstream(victim) << "keep\n";
    fs::remove(spare);
    if (GetParam()) {
        fs::create_symlink(victim, spare);
    } else {
        fs::create_hard_link(victim, spare);
    }
    runMore(client, 3);
    EXPECT_EQ(readPath(victim), "keep\n");
    EXPECT_EQ(read("inference_count"), "5\n");
    EXPECT_EQ(finish(client), 0);
    EXPECT_EQ(readPath(victim), "keep\n");
}

INSTANTIATE_TEST_SUITE_P(Kinds, PlantedSpare, ::testing::Bool(),
                         [](const auto& info) { return std::string(info.param ? "Symlink" : "HardLink"); });

// Opening a process's spare name or a visible file (cat, a backup tool) while it updates them
// costs that process nothing (no lease, no signal).
TEST_F(StatisticsRobustness, OpeningASpareDoesNotHurtItsProcess) {
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--hold"});
    waitReady(client);
    const std::string spare = dir_ + ".inference_count." + std::to_string(client.pid) + ".tmp";
    const std::string visible = dir_ + "inference_time";
    const std::string command = "run 2000\n";
    ASSERT_EQ(::write(client.toChild, command.data(), command.size()), static_cast<ssize_t>(command.size()));
    for (char line[32];;) {
        for (const std::string& path : {spare, visible}) {
            const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK);
            if (fd >= 0) close(fd);
        }
        pollfd ready{fileno(client.fromChild), POLLIN, 0};
        if (poll(&ready, 1, 0) == 1) {
            EXPECT_NE(fgets(line, sizeof line, client.fromChild), nullptr);
            break;
        }
    }
    EXPECT_EQ(finish(client), 0);
    EXPECT_FALSE(WIFSIGNALED(client.status)) << "killed by signal " << WTERMSIG(client.status);
    EXPECT_EQ(read("inference_count"), "2001\n");
}

// New versions are written under a spare name then renamed: one left by a killed process goes at
// the next update past the pruning interval; none is left at exit.
TEST_F(StatisticsRobustness, SparesDoNotOutliveTheirProcess) {
    auto spares = [&] {
        int found = 0;
        for (const auto& entry : fs::directory_iterator(dir_)) found += entry.path().extension() == ".tmp";
        return found;
    };
    ASSERT_EQ(runClient(2), 0);
    EXPECT_EQ(spares(), 0);
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "2", "--hold"});
    waitReady(client);
    kill(client.pid, SIGKILL);
    finish(client);
    std::ofstream(dir_ + ".inference_count." + std::to_string(client.pid) + ".tmp") << "1\n";  // killed mid-replace
    EXPECT_EQ(spares(), 1);
    usleep(150 * 1000);  // past the pruning interval
    ASSERT_EQ(runClient(1), 0);
    EXPECT_EQ(spares(), 0);
}

// Modes: the visible files have the kernel's (0644, network_profile 0444), what only the driver
// reads is the owner's alone.
TEST_F(StatisticsRobustness, FilesHaveRestrictiveModes) {
    const mode_t mask = umask(022);
    umask(mask);
    setprop("vendor.NNAPI_SYNAP_PROFILE", "1");
    Process client = spawn({NNEMU_NPU_CLIENT, "--runs", "1", "--hold"});
    waitReady(client);
    auto mode = [&](const std::string& name) { return fs::status(dir_ + name).permissions() & fs::perms::mask; };
    EXPECT_EQ(mode("inference_count"), fs::perms(0644 & ~mask));
    EXPECT_EQ(mode("inference_time"), fs::perms(0644 & ~mask));
    EXPECT_EQ(mode("networks"), fs::perms(0644 & ~mask));
    EXPECT_EQ(mode("network_profile"), fs::perms(0444 & ~mask));
    EXPECT_EQ(mode(".state"), fs::perms(0600 & ~mask));
    EXPECT_EQ(mode(".profiles"), fs::perms(0700 & ~mask));
    EXPECT_EQ(mode(".profiles/" + std::to_string(client.pid) + ".1"), fs::perms(0600 & ~mask));
    EXPECT_EQ(finish(client), 0);
}

// Links planted in the statistics folder are refused: the execution succeeds, the target outside
// the root is untouched, the link stays, a warning names it, the other files go on.
class PlantedLink : public StatisticsRobustness, public ::testing::WithParamInterface<const char*> {};

TEST_P(PlantedLink, IsRefusedAndItsTargetUntouched) {
    ASSERT_EQ(runClient(3), 0);
    const std::string name = GetParam(), victim = scratch_ + "/victim";
    std::ofstream(victim) << "keep\n";
    const auto before = fs::last_write_time(victim);
    fs::remove(dir_ + name);
    fs::create_symlink(victim, dir_ + name);
    std::string errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_EQ(readPath(victim), "keep\n");
    EXPECT_EQ(fs::last_write_time(victim), before);
    EXPECT_TRUE(fs::is_symlink(dir_ + name));
    EXPECT_EQ(linesWith(errors, name + " is a symbolic link"), 1) << errors;
    if (name == ".state") {
        EXPECT_EQ(read("inference_count"), "3\n");  // statistics are off, the execution is not
    } else if (name != "inference_count") {
        EXPECT_EQ(read("inference_count"), "5\n");
    } else {
        EXPECT_EQ(std::regex_match(read("inference_time"), kNumber), true);
    }
}

INSTANTIATE_TEST_SUITE_P(Names, PlantedLink,
                         ::testing::Values("inference_count", "inference_time", "networks", "network_profile",
                                           ".state"),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::erase(name, '.');
                             std::erase(name, '_');
                             return name;
                         });

TEST_F(StatisticsRobustness, APlantedProfilesLinkIsRefused) {
    ASSERT_EQ(runClient(1), 0);
    fs::create_directories(scratch_ + "/tables");
    fs::remove_all(dir_ + ".profiles");
    fs::create_directory_symlink(scratch_ + "/tables", dir_ + ".profiles");
    setprop("vendor.NNAPI_SYNAP_PROFILE", "1");
    std::string errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_TRUE(fs::is_empty(scratch_ + "/tables"));
    EXPECT_EQ(linesWith(errors, ".profiles is a symbolic link"), 1) << errors;
    EXPECT_EQ(read("inference_count"), "3\n");
}

// The statistics folder itself, or a folder above it, replaced by a link out of the root.
class PlantedFolderLink : public StatisticsRobustness, public ::testing::WithParamInterface<const char*> {};

TEST_P(PlantedFolderLink, IsRefusedAndNothingIsWrittenOutside) {
    const std::string folder = root_ + GetParam();
    fs::create_directories(fs::path(folder).parent_path());
    fs::create_directories(scratch_ + "/elsewhere");
    fs::create_directory_symlink(scratch_ + "/elsewhere", folder);
    std::string errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_TRUE(fs::is_empty(scratch_ + "/elsewhere"));
    EXPECT_EQ(linesWith(errors, "cannot open the statistics folder"), 1) << errors;
}

INSTANTIATE_TEST_SUITE_P(Levels, PlantedFolderLink,
                         ::testing::Values("/sys/class/misc/synap/device/misc/synap/statistics",
                                           "/sys/class/misc/synap/device"),
                         [](const auto& info) { return std::string(info.index == 0 ? "Statistics" : "Device"); });

// A hard link would let the record be written into a file elsewhere on the same file system.
TEST_F(StatisticsRobustness, AHardLinkedStateIsRefused) {
    ASSERT_EQ(runClient(1), 0);
    const std::string victim = scratch_ + "/victim";
    std::ofstream(victim) << "keep\n";
    fs::remove(statePath());
    fs::create_hard_link(victim, statePath());
    std::string errors;
    ASSERT_EQ(runClient(2, &errors), 0);
    EXPECT_EQ(readPath(victim), "keep\n");
    EXPECT_EQ(linesWith(errors, ".state is not a regular file of its own"), 1) << errors;
}

// Processes starting together on a fresh root: the one that makes .state may look at the folder
// after another has already published the counts into it. Whether a state was lost is decided
// when .state is made (the count file there already), not by what the maker sees later.
TEST_F(StatisticsRobustness, AFreshStateIsNotLostWhenAnotherProcessPublishesFirst) {
    fs::create_directories(dir_);
    const int dir = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(dir, 0);
    {
        synap::StateMap maker;
        ASSERT_TRUE(maker.open(dir, dir_, true, "inference_count").isOk());
        std::ofstream(dir_ + "inference_count") << "3\n";  // another process, quicker to publish
        EXPECT_FALSE(maker.madeWhereLost());
        EXPECT_EQ(maker.takeOpenDamage(), synap::kStateMissing);  // made here
    }
    {
        synap::StateMap opener;  // finds it: nothing made, nothing lost
        ASSERT_TRUE(opener.open(dir, dir_, true, "inference_count").isOk());
        EXPECT_FALSE(opener.madeWhereLost());
        EXPECT_EQ(opener.takeOpenDamage(), "");
    }
    ASSERT_EQ(unlink(statePath().c_str()), 0);
    {
        synap::StateMap remaker;  // the counts were published from a state that is gone
        ASSERT_TRUE(remaker.open(dir, dir_, true, "inference_count").isOk());
        EXPECT_TRUE(remaker.madeWhereLost());
    }
    close(dir);
}

}  // namespace
}  // namespace nnemu
