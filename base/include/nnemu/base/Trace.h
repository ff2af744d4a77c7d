// A timeline of a run in Chrome's Trace Event Format, for Perfetto or chrome://tracing.
//
// NNEMU_TRACE=<file.json> turns it on, read once at the first traced call. Spans are complete
// ("X") events kept in a process-wide buffer of bounded size, written out when it fills, at exit
// and when the library is unloaded. Every process appends its events to the same file under an
// exclusive lock (its own pid in the events), so several processes give one timeline and the file
// stays valid JSON after each write; remove the file for a fresh trace. A path that cannot be
// written gives one warning and turns tracing off. With tracing off a span costs one relaxed
// atomic load.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace nnemu::trace {

using Clock = std::chrono::steady_clock;

namespace detail {
enum State : int { kUnknown = 0, kOff = 1, kOn = 2 };
extern std::atomic<int> state;
bool enableFromEnvironment();  // the first call: reads NNEMU_TRACE
void appendArg(std::string& args, const char* key, std::string_view value);
void appendArg(std::string& args, const char* key, int64_t value);
}  // namespace detail

inline bool enabled() {
    const int state = detail::state.load(std::memory_order_relaxed);
    return state == detail::kOn || (state == detail::kUnknown && detail::enableFromEnvironment());
}

// Records one complete event on the calling thread. `args` holds JSON object members
// (`"key":value,...`), as Args builds them.
void complete(std::string_view name, const char* category, Clock::time_point start, Clock::time_point end,
              std::string args = {});

// Writes what is buffered now (the buffer is also written when full and at exit).
void flush();

// Members of an event's "args" object, built only while tracing is on.
class Args {
public:
    template <typename T>
    Args& add(const char* key, const T& value) {
        if constexpr (std::is_integral_v<T>) {
            detail::appendArg(text_, key, static_cast<int64_t>(value));
        } else {
            detail::appendArg(text_, key, std::string_view(value));
        }
        return *this;
    }
    std::string take() { return std::move(text_); }

private:
    std::string text_;
};

// A span from construction to destruction, on the constructing thread. Inactive (and free beyond
// the check) when tracing is off.
class Span {
public:
    Span() = default;
    Span(std::string_view name, const char* category) {
        if (!enabled()) return;
        active_ = true;
        name_ = name;
        category_ = category;
        start_ = Clock::now();
    }
    ~Span() { end(); }
    // Ends the span before its scope does.
    void end() {
        if (active_) complete(name_, category_, start_, Clock::now(), args_.take());
        active_ = false;
    }
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

    bool active() const { return active_; }
    template <typename T>
    Span& arg(const char* key, const T& value) {
        if (active_) args_.add(key, value);
        return *this;
    }

private:
    bool active_ = false;
    std::string name_;
    const char* category_ = "";
    Clock::time_point start_;
    Args args_;
};

}  // namespace nnemu::trace
