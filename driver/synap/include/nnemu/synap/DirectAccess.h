// The NPU reached without NNAPI, as the vx delegate reaches it: the same claim, compiler, SyNAP
// cache, core and statistics as the synap-npu NNAPI device. vendor.NNAPI_SYNAP_DISABLE only hides
// the NNAPI device, so it does not apply here.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/hal/Device.h"

namespace nnemu::synap {

// Per operation: the NPU runs it. BAD_DATA saying why when the model is invalid.
Result<std::vector<bool>> claimOperations(const hal::Model& model);

// A network of a model whose operations are all claimed; compiled at its first execution.
// BAD_DATA saying why otherwise.
Result<std::shared_ptr<hal::IPreparedModel>> prepareNetwork(hal::Model model);

// For a compiled-graph cache outside the driver (the vx delegate's cache_file_path): the key of
// `model` compiled for its declared input shapes by this compiler (32 bytes: the SyNAP cache's
// key in hexadecimal), and the compiler's version.
std::array<uint8_t, 32> networkKey(const hal::Model& model);
uint32_t networkCompilerVersion();
// The NPU program of a network made here; empty before its first execution compiled it.
std::vector<uint8_t> compiledProgram(const hal::IPreparedModel& network);
// A network loaded from such a program (its inputs and outputs are the program's), or why the
// program does not load.
Result<std::shared_ptr<hal::IPreparedModel>> networkFromProgram(std::vector<uint8_t> program);

}  // namespace nnemu::synap
