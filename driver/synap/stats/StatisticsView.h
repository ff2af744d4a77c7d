// What the statistics folder shows, computed from the shared record: shared by the driver, which
// publishes it as files, and the nnemu-sysfs FUSE view, which computes it at each read.
#pragma once

#include <sys/types.h>

#include <string>

#include "StatisticsState.h"

namespace nnemu::synap {

inline constexpr const char* kStatisticsDir = "/sys/class/misc/synap/device/misc/synap/statistics";
inline constexpr const char* kYoctoLinkDir = "/sys/class/misc/synap";  // its `statistics` links to the folder
inline constexpr const char* kYoctoLinkTarget = "device/misc/synap/statistics";
inline constexpr const char* kYoctoStatisticsDir = "/sys/class/misc/synap/statistics";
inline constexpr const char* kProfilesName = ".profiles";  // 0700, tables 0600: only the driver reads them

enum FileIndex { COUNT, TIME, NETWORKS, PROFILE };
struct VisibleFile {
    const char* name;
    mode_t mode;  // the kernel's: totals and networks 0644, network_profile read-only
};
inline constexpr VisibleFile kFiles[4] = {
        {"inference_count", 0644}, {"inference_time", 0644}, {"networks", 0644}, {"network_profile", 0444}};

// The host path of the statistics folder on this board (§3.1). A Yocto board's is a folder of
// its own, unless an Android process made the name our link to the Android folder: then both
// are the same statistics.
std::string statisticsDir();

std::string profileName(int32_t pid, uint32_t nid);

// The four files' texts. `profiles`: the open `.profiles` folder, or -1 (no layer tables).
void renderStatistics(const StateRecord& record, int profiles, std::string texts[4]);

// A reset: both totals and every network's counters to 0.
void resetCounters(StateRecord* record);

}  // namespace nnemu::synap
