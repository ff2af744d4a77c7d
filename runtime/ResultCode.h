// NNAPI result codes from what lies below the C API: the one place a Status (base/Status.h) or a
// HAL ErrorStatus becomes an ANEURALNETWORKS_* code.
#pragma once

#include "nnemu/base/Status.h"
#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

// The code of the same name; NOT_FOUND, DAMAGED and BUSY (which callers answer before a result
// code is due) are OP_FAILED.
int toResultCode(StatusCode code);
// Logs nothing: the message is the caller's to report where it belongs.
inline int toResultCode(const Status& status) { return toResultCode(status.code()); }

int resultFromStatus(hal::ErrorStatus status);
bool isMissedDeadline(int result);

}  // namespace nnemu::runtime
