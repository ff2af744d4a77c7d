#include "ResultCode.h"

#include <android/NeuralNetworks.h>

namespace nnemu::runtime {

using hal::ErrorStatus;

int toResultCode(StatusCode code) {
    switch (code) {
        case StatusCode::OK: return ANEURALNETWORKS_NO_ERROR;
        case StatusCode::OUT_OF_MEMORY: return ANEURALNETWORKS_OUT_OF_MEMORY;
        case StatusCode::INCOMPLETE: return ANEURALNETWORKS_INCOMPLETE;
        case StatusCode::UNEXPECTED_NULL: return ANEURALNETWORKS_UNEXPECTED_NULL;
        case StatusCode::BAD_DATA: return ANEURALNETWORKS_BAD_DATA;
        case StatusCode::OP_FAILED: return ANEURALNETWORKS_OP_FAILED;
        case StatusCode::BAD_STATE: return ANEURALNETWORKS_BAD_STATE;
        case StatusCode::UNMAPPABLE: return ANEURALNETWORKS_UNMAPPABLE;
        case StatusCode::OUTPUT_INSUFFICIENT_SIZE: return ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
        case StatusCode::UNAVAILABLE: return ANEURALNETWORKS_UNAVAILABLE_DEVICE;
        case StatusCode::MISSED_DEADLINE_TRANSIENT: return ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT;
        case StatusCode::MISSED_DEADLINE_PERSISTENT: return ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT;
        case StatusCode::RESOURCE_EXHAUSTED_TRANSIENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT;
        case StatusCode::RESOURCE_EXHAUSTED_PERSISTENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT;
        case StatusCode::DEAD_OBJECT: return ANEURALNETWORKS_DEAD_OBJECT;
        case StatusCode::NOT_FOUND:
        case StatusCode::DAMAGED:
        case StatusCode::BUSY: return ANEURALNETWORKS_OP_FAILED;
    }
    return ANEURALNETWORKS_OP_FAILED;
}

int resultFromStatus(ErrorStatus status) {
    switch (status) {
        case ErrorStatus::NONE: return ANEURALNETWORKS_NO_ERROR;
        case ErrorStatus::INVALID_ARGUMENT: return ANEURALNETWORKS_BAD_DATA;
        case ErrorStatus::OUTPUT_INSUFFICIENT_SIZE: return ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
        case ErrorStatus::DEVICE_UNAVAILABLE: return ANEURALNETWORKS_UNAVAILABLE_DEVICE;
        case ErrorStatus::MISSED_DEADLINE_TRANSIENT: return ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT;
        case ErrorStatus::MISSED_DEADLINE_PERSISTENT: return ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT;
        case ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT;
        case ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT;
        case ErrorStatus::DEAD_OBJECT: return ANEURALNETWORKS_DEAD_OBJECT;
        default: return ANEURALNETWORKS_OP_FAILED;
    }
}

bool isMissedDeadline(int result) {
    return result == ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT || result == ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT;
}

}  // namespace nnemu::runtime
