// The board's system properties, kept in Android-style property files under the device root:
// /vendor/build.prop (device defaults), then /data/property/local.prop (what setprop writes);
// a later file overrides an earlier one. Readers re-check the files (stat) at every call and
// re-parse only when they changed, so a setprop from another process takes effect at once.
// A property file must be a regular file of at most 1 MiB reached without a symlink below the
// device root; any other (a symlink, FIFO, device, socket, /proc file, a huge file) is ignored
// with one warning per change of the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "nnemu/base/Status.h"

namespace nnemu::props {

// Android's limits: PROP_VALUE_MAX is 92 bytes including the terminating NUL.
inline constexpr std::size_t kMaxNameLength = 256;
inline constexpr std::size_t kMaxValueLength = 91;

// Where the emulated board keeps its file system: $NNEMU_ROOT if set (a relative one against the
// current directory when first seen), otherwise ${XDG_STATE_HOME:-$HOME/.local/state}/nnemu.
std::string deviceRoot();

// The host path of an Android absolute path (e.g. "/data/vendor/synap/nnhal.cache") inside the
// device root. ".." never leaves the root.
std::string devicePath(std::string_view androidPath);

// The property files, in the order they are read (later ones override), as Android paths.
inline constexpr std::string_view kBuildPropPath = "/vendor/build.prop";
inline constexpr std::string_view kLocalPropPath = "/data/property/local.prop";

// Name and value rules: OK, or BAD_DATA saying why in the words toybox's setprop uses.
Status isValidName(std::string_view name);
Status isValidValue(std::string_view value);

// Getters. An empty value reads as unset, as on Android.
std::optional<std::string> get(std::string_view name);
std::string get(std::string_view name, std::string_view fallback);
// Android's GetIntProperty: decimal, or hexadecimal with a 0x prefix; the fallback when missing,
// out of range or not an integer (with a warning for the latter two).
int64_t getInt(std::string_view name, int64_t fallback);
// Android's GetBoolProperty: 1/y/yes/on/true are true, 0/n/no/off/false are false, anything else
// (or nothing) is the fallback (with a warning for the former, once per value).
bool getBool(std::string_view name, bool fallback);
// Every set property (non-empty value), sorted by name.
std::map<std::string, std::string> all();

// Sets a property in local.prop: validates, then rewrites the file atomically under an exclusive
// lock (safe against concurrent writers in other processes). An empty value unsets the property.
// local.prop is created 0644 and its lock 0600 whatever the umask; nothing is opened through a
// symlink below the device root. Fails saying why when the name or value is invalid (BAD_DATA),
// the board has no property service or the file cannot be written (or read: a symlink, a FIFO,
// over 1 MiB) (UNAVAILABLE).
Status set(std::string_view name, std::string_view value);

}  // namespace nnemu::props
