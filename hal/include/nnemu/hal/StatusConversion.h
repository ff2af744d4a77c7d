// The one place a Status (base/Status.h) becomes a HAL ErrorStatus, for a driver answering
// through IDevice / IPreparedModel.
#pragma once

#include "nnemu/base/Status.h"
#include "nnemu/hal/Types.h"

namespace nnemu::hal {

// The HAL code of the same meaning: BAD_DATA and UNEXPECTED_NULL are INVALID_ARGUMENT,
// UNAVAILABLE is DEVICE_UNAVAILABLE, the deadline, resource and dead-object codes keep their
// names, and every other failure is GENERAL_FAILURE.
inline ErrorStatus toErrorStatus(StatusCode code) {
    switch (code) {
        case StatusCode::OK: return ErrorStatus::NONE;
        case StatusCode::BAD_DATA:
        case StatusCode::UNEXPECTED_NULL: return ErrorStatus::INVALID_ARGUMENT;
        case StatusCode::OUTPUT_INSUFFICIENT_SIZE: return ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
        case StatusCode::UNAVAILABLE: return ErrorStatus::DEVICE_UNAVAILABLE;
        case StatusCode::MISSED_DEADLINE_TRANSIENT: return ErrorStatus::MISSED_DEADLINE_TRANSIENT;
        case StatusCode::MISSED_DEADLINE_PERSISTENT: return ErrorStatus::MISSED_DEADLINE_PERSISTENT;
        case StatusCode::RESOURCE_EXHAUSTED_TRANSIENT: return ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT;
        case StatusCode::RESOURCE_EXHAUSTED_PERSISTENT: return ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT;
        case StatusCode::DEAD_OBJECT: return ErrorStatus::DEAD_OBJECT;
        default: return ErrorStatus::GENERAL_FAILURE;
    }
}

inline ErrorStatus toErrorStatus(const Status& status) { return toErrorStatus(status.code()); }

}  // namespace nnemu::hal
