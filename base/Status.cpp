#include "nnemu/base/Status.h"

#include <ostream>

namespace nnemu {

const char* toString(StatusCode code) {
    switch (code) {
        case StatusCode::OK: return "ok";
        case StatusCode::OUT_OF_MEMORY: return "out of memory";
        case StatusCode::INCOMPLETE: return "incomplete";
        case StatusCode::UNEXPECTED_NULL: return "unexpected null";
        case StatusCode::BAD_DATA: return "bad data";
        case StatusCode::OP_FAILED: return "operation failed";
        case StatusCode::BAD_STATE: return "bad state";
        case StatusCode::UNMAPPABLE: return "unmappable";
        case StatusCode::OUTPUT_INSUFFICIENT_SIZE: return "output insufficient size";
        case StatusCode::UNAVAILABLE: return "unavailable";
        case StatusCode::MISSED_DEADLINE_TRANSIENT: return "missed deadline (transient)";
        case StatusCode::MISSED_DEADLINE_PERSISTENT: return "missed deadline (persistent)";
        case StatusCode::RESOURCE_EXHAUSTED_TRANSIENT: return "resource exhausted (transient)";
        case StatusCode::RESOURCE_EXHAUSTED_PERSISTENT: return "resource exhausted (persistent)";
        case StatusCode::DEAD_OBJECT: return "dead object";
        case StatusCode::NOT_FOUND: return "not found";
        case StatusCode::DAMAGED: return "damaged";
        case StatusCode::BUSY: return "busy";
    }
    return "unknown";
}

std::ostream& operator<<(std::ostream& out, StatusCode code) { return out << toString(code); }

std::ostream& operator<<(std::ostream& out, const Status& status) {
    out << status.code();
    if (!status.message().empty()) out << ": " << status.message();
    return out;
}

}  // namespace nnemu
