// Which board the emulated device is: an Android one (the default) or a Linux (Yocto) one
// (synap-behaviors.md §1.2, §3.1), chosen per process by the environment variable
// NNEMU_BOARD=android|yocto. A Yocto board has no Android property service (the property files
// are neither read nor written; setprop and getprop refuse), keeps a SyNAP cache per program at
// /tmp/synap-cache.<program-name> inside the device root, offers no NNAPI compilation cache and
// publishes its statistics at /sys/class/misc/synap/statistics. Read at each call (a getenv).
#pragma once

#include <string>
#include <string_view>

namespace nnemu::props {

enum class Board { ANDROID, YOCTO };

inline constexpr std::string_view kBoardEnv = "NNEMU_BOARD";
inline constexpr std::string_view kNoPropertyService =
        "a Yocto board has no Android property service (NNEMU_BOARD=yocto)";

// An unknown value counts as android, with one warning per process.
Board board();
inline bool isYocto() { return board() == Board::YOCTO; }

// This process's short name (the basename of argv[0]), which names its Yocto SyNAP cache.
std::string programName();

}  // namespace nnemu::props
