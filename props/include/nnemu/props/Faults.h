// Driver faults on demand (issue 25): the properties vendor.nnemu.fault.<point> (synap-npu) and
// vendor.nnemu.fault.cpu.<point> (nnapi-reference) make a driver fail, or slow down, at one point
// of its work, so that an application's error paths can be tested without a broken board.
//
// A value is `<result>` (every call), `<result>@<n>` (only the n-th call in the process),
// `<result>%<k>` (every k-th call) or `<result>~<p>` (each call with probability p, drawn from
// vendor.nnemu.fault.seed and the call's number, so a run repeats exactly); `<result>` is a result
// name of kResults or `delay=<us>`. Calls are counted per property from the moment the process
// first sees its value (a new value starts the count again).
//
// Two halves: the pure one (parseRule, selects: the table of points and results, unit-tested)
// and the process-wide one the drivers call. refresh() reads the properties (one stat per
// property file, as every property read) and is called by the drivers at each compilation; the
// check at a point is then one relaxed load of a flag that is false while no fault property is
// set (armed()), so an execution without faults pays one predictable branch.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::props::faults {

enum class Driver : uint8_t { NPU = 0, CPU = 1 };
enum class Point : uint8_t { PREPARE = 0, JIT, EXECUTE, CACHE_READ, CACHE_WRITE, FENCE };
inline constexpr std::size_t kPointCount = 6;

struct PointInfo {
    Point point;
    std::string_view name;  // the property's last part
    bool onCpu;             // nnapi-reference has it (vendor.nnemu.fault.cpu.<name>)
    bool outputSize;        // OUTPUT_INSUFFICIENT_SIZE makes sense there
    std::string_view meaning;
};

inline constexpr std::array<PointInfo, kPointCount> kPoints = {{
        {Point::PREPARE, "prepare", true, false, "preparing a model (ANeuralNetworksCompilation_finish)"},
        {Point::JIT, "jit", false, false, "the first inference's compile of a network"},
        {Point::EXECUTE, "execute", true, true, "each execution of a prepared model (each partition run)"},
        {Point::CACHE_READ, "cache.read", false, false,
         "reading a program from the SyNAP cache or the NNAPI model cache file (fails as a miss)"},
        {Point::CACHE_WRITE, "cache.write", false, false,
         "storing a program in the SyNAP cache or the NNAPI model cache file (skipped)"},
        {Point::FENCE, "fence", true, false,
         "the driver's sync fence of an execution started with startComputeWithDependencies"},
}};

struct ResultInfo {
    std::string_view name;  // as in ANEURALNETWORKS_<name>
    StatusCode code;
};

inline constexpr std::array<ResultInfo, 8> kResults = {{
        {"OP_FAILED", StatusCode::OP_FAILED},
        {"UNAVAILABLE_DEVICE", StatusCode::UNAVAILABLE},
        {"DEAD_OBJECT", StatusCode::DEAD_OBJECT},
        {"MISSED_DEADLINE_TRANSIENT", StatusCode::MISSED_DEADLINE_TRANSIENT},
        {"MISSED_DEADLINE_PERSISTENT", StatusCode::MISSED_DEADLINE_PERSISTENT},
        {"RESOURCE_EXHAUSTED_TRANSIENT", StatusCode::RESOURCE_EXHAUSTED_TRANSIENT},
        {"RESOURCE_EXHAUSTED_PERSISTENT", StatusCode::RESOURCE_EXHAUSTED_PERSISTENT},
        {"OUTPUT_INSUFFICIENT_SIZE", StatusCode::OUTPUT_INSUFFICIENT_SIZE},
}};

inline constexpr std::string_view kPrefix = "vendor.nnemu.fault.";
inline constexpr std::string_view kCpuPrefix = "vendor.nnemu.fault.cpu.";
inline constexpr std::string_view kSeed = "vendor.nnemu.fault.seed";
inline constexpr uint64_t kMaxDelayUs = 60'000'000;  // a minute: a slow NPU, not a hung one

enum class Selector : uint8_t { ALWAYS, NTH, EVERY, PROBABILITY };

struct Rule {
    StatusCode code = StatusCode::OK;  // OK: a delay only
    uint64_t delayUs = 0;
    Selector selector = Selector::ALWAYS;
    uint64_t n = 0;            // @n, %k
    double probability = 1.0;  // ~p
};

// ---- The pure half -------------------------------------------------------------------------

const PointInfo& info(Point point);
// vendor.nnemu.fault.<point> or vendor.nnemu.fault.cpu.<point>.
std::string propertyName(Driver driver, Point point);
// The (driver, point) a fault property names; BAD_DATA saying why for an unknown point or one
// the driver lacks (the seed is no point either).
Result<std::pair<Driver, Point>> parseName(std::string_view name);
// A value as above; BAD_DATA saying why (unknown result, a selector that is not a positive
// integer or a probability in [0, 1], a delay over kMaxDelayUs, a result the point cannot give).
Result<Rule> parseRule(std::string_view value, Point point);
// Whether the call numbered `call` (from 1) fires under `rule`; `stream` separates the draws
// of different properties under one seed.
bool selects(const Rule& rule, uint64_t call, uint64_t seed, uint64_t stream);

// ---- The process-wide half -----------------------------------------------------------------

// Re-reads the fault properties; an unusable name or value is ignored with one warning (per
// value) naming the property and why.
void refresh();

namespace detail {
extern std::atomic<bool> anyArmed;
}  // namespace detail

// Whether any fault property is in force in this process (as of the last refresh).
inline bool armed() { return detail::anyArmed.load(std::memory_order_relaxed); }

struct Injection {
    StatusCode code = StatusCode::OK;  // OK: a delay, already slept
    std::string message;               // "vendor.nnemu.fault.execute=DEAD_OBJECT@3: call 3 ..."
};

// Counts one call at `point` of `driver` and says whether a fault fires there, sleeping first
// for a delay; each fault also becomes an NNEMU_TRACE event. The driver logs `message` and fails
// with `code`.
std::optional<Injection> check(Driver driver, Point point);

// The fault properties in force, as "name=value" and what they do, for getprop.
struct InForce {
    std::string name;
    std::string value;
    std::string meaning;  // or why it is ignored
    bool valid;
};
std::vector<InForce> inForce();

}  // namespace nnemu::props::faults
