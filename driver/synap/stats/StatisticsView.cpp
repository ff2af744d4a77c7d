#include "StatisticsView.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <string_view>
#include <vector>

#include "Statistics.h"
#include "StatisticsFiles.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Properties.h"

namespace nnemu::synap {
namespace {

constexpr size_t kPageSize = 4096;  // `networks` is one sysfs page at most
constexpr size_t kMaxProfileBytes = 1 << 20;

std::string readProfile(int profiles, const StateSlot& slot) {
    Fd fd(openat(profiles, profileName(slot.pid, slot.nid).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat info {};
    if (fd.get() < 0 || fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return "";
    std::string table(std::min<size_t>(static_cast<size_t>(info.st_size), kMaxProfileBytes), '\0');
    const ssize_t bytes = pread(fd.get(), table.data(), table.size(), 0);
    table.resize(bytes > 0 ? static_cast<size_t>(bytes) : 0);
    return table;
}

}  // namespace

std::string statisticsDir() {
    if (!props::isYocto()) return props::devicePath(kStatisticsDir);
    char target[64] = {};
    const std::string yocto = props::devicePath(kYoctoStatisticsDir);
    const ssize_t length = readlink(yocto.c_str(), target, sizeof target - 1);
    if (length > 0 && std::string_view(target, static_cast<size_t>(length)) == kYoctoLinkTarget) {
        return props::devicePath(kStatisticsDir);
    }
    return yocto;
}

std::string profileName(int32_t pid, uint32_t nid) { return std::to_string(pid) + "." + std::to_string(nid); }

void renderStatistics(const StateRecord& record, int profiles, std::string texts[4]) {
    char number[24];
    char* end = std::to_chars(number, number + sizeof number - 1, record.totalCount).ptr;
    *end++ = '\n';
    texts[COUNT].assign(number, end);
    end = std::to_chars(number, number + sizeof number - 1, record.totalTimeUs).ptr;
    *end++ = '\n';
    texts[TIME].assign(number, end);
    texts[NETWORKS].clear();
    texts[PROFILE].clear();
    std::vector<const StateSlot*> loaded;
    for (const StateSlot& slot : record.slots) {
        if (slot.pid != 0) loaded.push_back(&slot);
    }
    auto processOrder = [&](int32_t pid) {
        uint64_t first = UINT64_MAX;
        for (const StateSlot* slot : loaded) {
            if (slot->pid == pid) first = std::min(first, slot->order);
        }
        return first;
    };
    std::sort(loaded.begin(), loaded.end(), [&](const StateSlot* a, const StateSlot* b) {
        const uint64_t pa = processOrder(a->pid), pb = processOrder(b->pid);
        return pa != pb ? pa < pb : a->nid < b->nid;
    });
    for (const StateSlot* slot : loaded) {
        const std::string line = networkLine(static_cast<uint64_t>(slot->pid), slot->nid, slot->count, slot->timeUs,
                                             slot->lastUs, slot->iobufCount, slot->iobufSize, slot->layers);
        if (texts[NETWORKS].size() + line.size() <= kPageSize) texts[NETWORKS] += line;
        texts[PROFILE] += line;
        if (slot->profiling && profiles >= 0) texts[PROFILE] += readProfile(profiles, *slot);
    }
}

void resetCounters(StateRecord* record) {
    record->totalCount = 0;
    record->totalTimeUs = 0;
    for (StateSlot& slot : record->slots) {
        slot.count = 0;
        slot.timeUs = 0;
        slot.lastUs = 0;
    }
}

std::string networkLine(uint64_t pid, uint32_t nid, uint64_t count, uint64_t timeUs, uint32_t lastUs,
                        int32_t iobufCount, int64_t iobufSize, int32_t layers) {
    // The kernel's "pid: %llu, nid: %u, inference_count: %llu, ...\n", without printf's cost
    // (this runs at every NPU execution).
    std::string line;
    line.reserve(192);
    auto text = [&](std::string_view part) { line += part; };
    auto number = [&](auto value) {
        char digits[24];
        line.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
    };
    text("pid: ");
    number(pid);
    text(", nid: ");
    number(nid);
    text(", inference_count: ");
    number(count);
    text(", inference_time: ");
    number(timeUs);
    text(", inference_last: ");
    number(lastUs);
    text(", iobuf_count: ");
    number(iobufCount);
    text(", iobuf_size: ");
    number(iobufSize);
    text(", layers: ");
    number(layers);
    text("\n");
    return line;
}

}  // namespace nnemu::synap
