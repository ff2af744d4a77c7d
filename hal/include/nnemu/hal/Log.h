// The logging facility lives in base/ so that layers below the HAL (props, cache) can log
// without depending on it; this header keeps the HAL's includes working.
#pragma once

#include "nnemu/base/Log.h"
