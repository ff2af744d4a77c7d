#include "nnemu/props/Faults.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "nnemu/base/Log.h"
#include "nnemu/base/Trace.h"
#include "nnemu/props/Properties.h"

namespace nnemu::props::faults {
namespace {

// A non-negative decimal integer that fits, or nullopt (no sign, no spaces, no hexadecimal).
std::optional<uint64_t> parseCount(std::string_view text) {
    if (text.empty() || text.size() > 19) return std::nullopt;
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    return value;
}

// A probability written as a decimal fraction ("0.25", "1", ".5"), or nullopt.
std::optional<double> parseProbability(std::string_view text) {
    if (text.empty() || text.size() > 32) return std::nullopt;
    int dots = 0;
    for (char c : text) {
        if (c == '.') {
            ++dots;
        } else if (c < '0' || c > '9') {
            return std::nullopt;
        }
    }
    if (dots > 1 || text == ".") return std::nullopt;
    const double value = std::strtod(std::string(text).c_str(), nullptr);
    if (!std::isfinite(value) || value < 0.0 || value > 1.0) return std::nullopt;
    return value;
}

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

std::string_view resultName(StatusCode code) {
    for (const ResultInfo& result : kResults) {
        if (result.code == code) return result.name;
    }
    return "delay";
}

}  // namespace

const PointInfo& info(Point point) { return kPoints[static_cast<std::size_t>(point)]; }

std::string propertyName(Driver driver, Point point) {
    return std::string(driver == Driver::CPU ? kCpuPrefix : kPrefix) + std::string(info(point).name);
}

Result<std::pair<Driver, Point>> parseName(std::string_view name) {
    if (name.substr(0, kPrefix.size()) != kPrefix) return badData("not a fault property");
    const bool cpu = name.substr(0, kCpuPrefix.size()) == kCpuPrefix;
    const std::string_view point = name.substr(cpu ? kCpuPrefix.size() : kPrefix.size());
    for (const PointInfo& candidate : kPoints) {
        if (candidate.name != point) continue;
        if (cpu && !candidate.onCpu) {
            return badData("nnapi-reference has no fault point " + std::string(point) +
                           " (it has prepare, execute and fence)");
        }
        return std::pair{cpu ? Driver::CPU : Driver::NPU, candidate.point};
    }
    return badData("unknown fault point " + std::string(point) +
                   " (known: prepare, jit, execute, cache.read, cache.write, fence)");
}

Result<Rule> parseRule(std::string_view value, Point point) {
    Rule rule;
    const std::size_t at = value.find_first_of("@%~");
    std::string_view result = value.substr(0, at);
    if (at != std::string_view::npos) {
        const char kind = value[at];
        const std::string_view argument = value.substr(at + 1);
        if (kind == '~') {
            std::optional<double> probability = parseProbability(argument);
            if (!probability) return badData("the probability after ~ must be a number from 0 to 1");
            rule.selector = Selector::PROBABILITY;
            rule.probability = *probability;
        } else {
            std::optional<uint64_t> count = parseCount(argument);
            if (!count || *count == 0) {
                return badData(std::string("the count after ") + kind + " must be a positive integer");
            }
            rule.selector = kind == '@' ? Selector::NTH : Selector::EVERY;
            rule.n = *count;
        }
    }
    if (result.substr(0, 6) == "delay=") {
        std::optional<uint64_t> delay = parseCount(result.substr(6));
        if (!delay || *delay > kMaxDelayUs) {
            return badData("delay=<us> needs a number of microseconds up to " + std::to_string(kMaxDelayUs));
        }
        rule.delayUs = *delay;
        return rule;
    }
    for (const ResultInfo& candidate : kResults) {
        if (candidate.name != result) continue;
        if (candidate.code == StatusCode::OUTPUT_INSUFFICIENT_SIZE && !info(point).outputSize) {
            return badData("OUTPUT_INSUFFICIENT_SIZE is an execution's result, not one of " +
                           std::string(info(point).name));
        }
        rule.code = candidate.code;
        return rule;
    }
    return badData("unknown result '" + std::string(result) +
                   "' (known: OP_FAILED, UNAVAILABLE_DEVICE, DEAD_OBJECT, MISSED_DEADLINE_TRANSIENT, "
                   "MISSED_DEADLINE_PERSISTENT, RESOURCE_EXHAUSTED_TRANSIENT, RESOURCE_EXHAUSTED_PERSISTENT, "
                   "OUTPUT_INSUFFICIENT_SIZE, delay=<us>)");
}

bool selects(const Rule& rule, uint64_t call, uint64_t seed, uint64_t stream) {
    switch (rule.selector) {
        case Selector::ALWAYS: return true;
        case Selector::NTH: return call == rule.n;
        case Selector::EVERY: return call % rule.n == 0;
        case Selector::PROBABILITY: {
            const uint64_t draw = mix(mix(seed ^ mix(stream)) ^ call);
            return static_cast<double>(draw >> 11) * 0x1.0p-53 < rule.probability;
        }
    }
    return false;
}

// ---- The process-wide half -----------------------------------------------------------------

namespace detail {
std::atomic<bool> anyArmed{false};
}  // namespace detail

namespace {

constexpr std::size_t kSlots = 2 * kPointCount;

std::size_t slotOf(Driver driver, Point point) {
    return static_cast<std::size_t>(driver) * kPointCount + static_cast<std::size_t>(point);
}

struct Slot {
    std::string value;  // as set; empty: no fault here
    Rule rule;
    uint64_t calls = 0;
};

struct State {
    std::mutex mutex;
    std::array<Slot, kSlots> slots;
    uint64_t seed = 0;
    std::map<std::string, std::string> warned;  // property -> the value last warned about
};

State& state() {
    static State* instance = new State();  // never destroyed: drivers may check during exit
    return *instance;
}

// Warns once per (property, value), however often the properties are re-read.
void warnOnce(State& s, const std::string& name, const std::string& value, const std::string& why) {
    auto [it, inserted] = s.warned.try_emplace(name, value);
    if (!inserted && it->second == value) return;
    it->second = value;
    NN_LOG(WARNING) << "ignoring property " << name << "=" << value << ": " << why;
}

}  // namespace

void refresh() {
    std::map<std::string, std::string> properties = all();
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::array<std::string, kSlots> values;
    uint64_t seed = 0;
    for (auto it = properties.lower_bound(std::string(kPrefix));
         it != properties.end() && std::string_view(it->first).substr(0, kPrefix.size()) == kPrefix; ++it) {
        const auto& [name, value] = *it;
        if (name == kSeed) {
            if (std::optional<uint64_t> parsed = parseCount(value)) {
                seed = *parsed;
            } else {
                warnOnce(s, name, value, "the seed must be a non-negative integer; using 0");
            }
            continue;
        }
        Result<std::pair<Driver, Point>> where = parseName(name);
        if (!where) {
            warnOnce(s, name, value, where.message());
            continue;
        }
        values[slotOf(where->first, where->second)] = value;
    }
    bool any = false;
    for (std::size_t i = 0; i < kSlots; ++i) {
        Slot& slot = s.slots[i];
        if (values[i] == slot.value) {
            any = any || !slot.value.empty();
            continue;
        }
        slot = Slot{};
        if (values[i].empty()) continue;
        const auto point = static_cast<Point>(i % kPointCount);
        const std::string name = propertyName(static_cast<Driver>(i / kPointCount), point);
        Result<Rule> rule = parseRule(values[i], point);
        if (!rule) {
            warnOnce(s, name, values[i], rule.message());
            continue;
        }
        slot.value = values[i];
        slot.rule = *rule;
        any = true;
    }
    s.seed = seed;
    detail::anyArmed.store(any, std::memory_order_relaxed);
}

std::optional<Injection> check(Driver driver, Point point) {
    State& s = state();
    Injection injection;
    uint64_t delayUs = 0;
    std::string property = propertyName(driver, point);
    std::string value;
    uint64_t call = 0;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        Slot& slot = s.slots[slotOf(driver, point)];
        if (slot.value.empty()) return std::nullopt;
        call = ++slot.calls;
        if (!selects(slot.rule, call, s.seed, slotOf(driver, point))) return std::nullopt;
        injection.code = slot.rule.code;
        delayUs = slot.rule.delayUs;
        value = slot.value;
    }
    const std::string_view result = resultName(injection.code);
    injection.message = "fault injected by " + property + "=" + value + " at call " + std::to_string(call) + ": " +
                        (injection.code == StatusCode::OK ? "delay of " + std::to_string(delayUs) + " us"
                                                          : std::string(result));
    const auto start = trace::Clock::now();
    if (delayUs > 0) std::this_thread::sleep_for(std::chrono::microseconds(delayUs));
    if (trace::enabled()) {
        trace::complete("fault", "fault", start, trace::Clock::now(),
                        trace::Args()
                                .add("property", property)
                                .add("value", value)
                                .add("call", call)
                                .add("result", result)
                                .take());
    }
    return injection;
}

std::vector<InForce> inForce() {
    std::vector<InForce> list;
    for (const auto& [name, value] : all()) {
        if (std::string_view(name).substr(0, kPrefix.size()) != kPrefix) continue;
        if (name == kSeed) {
            const bool valid = parseCount(value).has_value();
            list.push_back({name, value, valid ? "seed of the ~<p> draws" : "ignored: not a non-negative integer",
                            valid});
            continue;
        }
        Result<std::pair<Driver, Point>> where = parseName(name);
        if (!where) {
            list.push_back({name, value, "ignored: " + where.message(), false});
            continue;
        }
        Result<Rule> rule = parseRule(value, where->second);
        const std::string device = where->first == Driver::CPU ? "nnapi-reference" : "synap-npu";
        list.push_back({name, value,
                        rule ? device + ": " + std::string(info(where->second).meaning) : "ignored: " + rule.message(),
                        rule.isOk()});
    }
    return list;
}

}  // namespace nnemu::props::faults
