// Reading back a trace file that nnemu wrote (Trace Event Format) and checking its shape: the
// JSON parses, complete events carry what viewers need, and spans nest per thread.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace nnemu::trace::testing {

struct TraceEvent {
    std::string name;
    std::string category;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    nlohmann::json args;
    int64_t durationNs() const { return endNs - startNs; }
    bool contains(const TraceEvent& other) const {
        return pid == other.pid && tid == other.tid && startNs <= other.startNs && other.endNs <= endNs &&
               &other != this;
    }
};

struct Trace {
    std::vector<TraceEvent> events;        // "X" events
    std::map<int64_t, std::string> processNames;  // pid -> name, from the "M" events
};

// Timestamps are microseconds with three decimals: back to whole nanoseconds.
inline int64_t nanoseconds(const nlohmann::json& micros) { return std::llround(micros.get<double>() * 1000.0); }

// Parses `path`; a malformed file or event is a test failure (and gives what was read).
inline Trace readTrace(const std::string& path) {
    Trace trace;
    std::ifstream file(path);
    EXPECT_TRUE(file.is_open()) << path;
    const nlohmann::json document = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(document.is_discarded()) << path << " is not valid JSON";
    if (document.is_discarded() || !document.contains("traceEvents") || !document["traceEvents"].is_array()) {
        ADD_FAILURE() << path << " has no traceEvents array";
        return trace;
    }
    for (const nlohmann::json& event : document["traceEvents"]) {
        const std::string phase = event.value("ph", "");
        if (phase == "M") {
            if (event.value("name", "") == "process_name") {
                trace.processNames[event["pid"].get<int64_t>()] = event["args"]["name"].get<std::string>();
            }
            continue;
        }
        EXPECT_EQ(phase, "X") << event.dump();
        const bool complete = event.contains("name") && event.contains("cat") && event.contains("ts") &&
                              event.contains("dur") && event.contains("pid") && event.contains("tid") &&
                              event.contains("args") && event["args"].is_object();
        EXPECT_TRUE(complete) << event.dump();
        if (!complete) continue;
        TraceEvent parsed{event["name"].get<std::string>(), event["cat"].get<std::string>(),
                          nanoseconds(event["ts"]), 0, event["pid"].get<int64_t>(), event["tid"].get<int64_t>(),
                          event["args"]};
        const int64_t duration = nanoseconds(event["dur"]);
        EXPECT_GE(duration, 0) << event.dump();
        parsed.endNs = parsed.startNs + duration;
        trace.events.push_back(std::move(parsed));
    }
    return trace;
}

// Spans on one thread either nest or follow each other: "" when they do, else the first pair
// that overlaps.
inline std::string nestingViolation(const std::vector<TraceEvent>& events) {
    std::map<std::pair<int64_t, int64_t>, std::vector<const TraceEvent*>> byThread;
    for (const TraceEvent& event : events) byThread[{event.pid, event.tid}].push_back(&event);
    for (auto& [thread, list] : byThread) {
        std::sort(list.begin(), list.end(), [](const TraceEvent* a, const TraceEvent* b) {
            return a->startNs != b->startNs ? a->startNs < b->startNs : a->endNs > b->endNs;
        });
        std::vector<const TraceEvent*> open;
        for (const TraceEvent* event : list) {
            while (!open.empty() && open.back()->endNs <= event->startNs) open.pop_back();
            if (!open.empty() && event->endNs > open.back()->endNs) {
                return "'" + event->name + "' overlaps '" + open.back()->name + "' without nesting in it";
            }
            open.push_back(event);
        }
    }
    return "";
}

// The events inside `parent` (at any depth) of a category.
inline std::vector<const TraceEvent*> inside(const Trace& trace, const TraceEvent& parent,
                                             const std::string& category) {
    std::vector<const TraceEvent*> found;
    for (const TraceEvent& event : trace.events) {
        if (event.category == category && parent.contains(event)) found.push_back(&event);
    }
    return found;
}

inline std::vector<const TraceEvent*> named(const Trace& trace, const std::string& name) {
    std::vector<const TraceEvent*> found;
    for (const TraceEvent& event : trace.events) {
        if (event.name == name) found.push_back(&event);
    }
    return found;
}

}  // namespace nnemu::trace::testing
