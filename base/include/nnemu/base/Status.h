// The one error type below the C API: a Status is a code and a message, Result<T> a value or a
// failed Status. An OK Status carries no message and allocates nothing. The codes mirror the
// NNAPI result codes one to one (runtime/ResultCode.h turns them into those, hal/ into
// ErrorStatus) plus three for caches and files (NOT_FOUND, DAMAGED, BUSY).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace nnemu {

enum class StatusCode : uint8_t {
    OK = 0,
    OUT_OF_MEMORY,
    INCOMPLETE,
    UNEXPECTED_NULL,
    BAD_DATA,
    OP_FAILED,
    BAD_STATE,
    UNMAPPABLE,
    OUTPUT_INSUFFICIENT_SIZE,
    UNAVAILABLE,  // a device, a database or a file that cannot be used
    MISSED_DEADLINE_TRANSIENT,
    MISSED_DEADLINE_PERSISTENT,
    RESOURCE_EXHAUSTED_TRANSIENT,
    RESOURCE_EXHAUSTED_PERSISTENT,
    DEAD_OBJECT,
    NOT_FOUND,  // nothing stored under a key or a name
    DAMAGED,    // stored data that failed its checks
    BUSY,       // another process held a shared resource too long
};

// "ok", "out of memory", "not found", ...
const char* toString(StatusCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
    static Status ok() { return {}; }

    bool isOk() const { return code_ == StatusCode::OK; }
    explicit operator bool() const { return isOk(); }
    StatusCode code() const { return code_; }
    // Byte for byte what the failure said; empty when OK.
    const std::string& message() const { return message_; }

    friend bool operator==(const Status& a, StatusCode b) { return a.code_ == b; }

private:
    StatusCode code_ = StatusCode::OK;
    std::string message_;
};

std::ostream& operator<<(std::ostream& out, StatusCode code);
// "<code>: <message>" (the code alone when there is no message).
std::ostream& operator<<(std::ostream& out, const Status& status);

// Shorthands for the common failures.
inline Status badData(std::string message) { return {StatusCode::BAD_DATA, std::move(message)}; }
inline Status unavailable(std::string message) { return {StatusCode::UNAVAILABLE, std::move(message)}; }
inline Status opFailed(std::string message) { return {StatusCode::OP_FAILED, std::move(message)}; }

// A value, or the Status that explains why there is none (never an OK Status).
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
    Result(Status status) : state_(std::in_place_index<1>, std::move(status)) {  // NOLINT
        if (std::get<1>(state_).isOk()) state_.template emplace<1>(StatusCode::OP_FAILED, "no value and no error");
    }
    template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                      !std::is_same_v<std::decay_t<U>, Status> &&
                                                      !std::is_same_v<std::decay_t<U>, T>>>
    Result(U&& value) : state_(std::in_place_index<0>, std::forward<U>(value)) {}  // NOLINT

    bool isOk() const { return state_.index() == 0; }
    explicit operator bool() const { return isOk(); }
    // The failure; an OK Status when there is a value.
    Status status() const { return isOk() ? Status() : std::get<1>(state_); }
    StatusCode code() const { return isOk() ? StatusCode::OK : std::get<1>(state_).code(); }
    const std::string& message() const {
        static const std::string none;
        return isOk() ? none : std::get<1>(state_).message();
    }

    T& value() & { return std::get<0>(state_); }
    const T& value() const& { return std::get<0>(state_); }
    T&& value() && { return std::get<0>(std::move(state_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

private:
    std::variant<T, Status> state_;
};

namespace status_internal {
inline Status toStatus(Status status) { return status; }
template <typename T>
Status toStatus(const Result<T>& result) { return result.status(); }
}  // namespace status_internal

}  // namespace nnemu

#define NNEMU_STATUS_CONCAT_INNER(a, b) a##b
#define NNEMU_STATUS_CONCAT(a, b) NNEMU_STATUS_CONCAT_INNER(a, b)

// Returns the failed Status of `expr` (a Status or a Result) from the enclosing function.
#define NNEMU_RETURN_IF_ERROR(expr)                                     \
    do {                                                               \
        if (auto nnemu_status_ = (expr); !nnemu_status_.isOk())         \
            return ::nnemu::status_internal::toStatus(nnemu_status_);  \
    } while (false)

// `lhs = value of expr` (a Result), or returns its failure from the enclosing function.
#define NNEMU_ASSIGN_OR_RETURN(lhs, expr) \
    NNEMU_ASSIGN_OR_RETURN_IMPL(NNEMU_STATUS_CONCAT(nnemu_result_, __LINE__), lhs, expr)
#define NNEMU_ASSIGN_OR_RETURN_IMPL(result, lhs, expr) \
    auto result = (expr);                              \
    if (!result.isOk()) return result.status();        \
    lhs = std::move(result).value()
