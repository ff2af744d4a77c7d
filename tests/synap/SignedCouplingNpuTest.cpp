// The quantization coupling on synap-npu: the V1_0-V1_2 single-operation uint8 variants turned
// into TENSOR_QUANT8_ASYMM_SIGNED (tests/conformance/SignedCoupling.h). Every one the device
// claims is compiled and run on it through the HAL, below the runtime,
// and must give the converted goldens; operations with a uint8 claim on the NPU must have
// signed claims too.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "HalVariantRun.h"
#include "SignedCoupling.h"
#include "nnemu/hal/DeviceRegistry.h"

namespace nnemu {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<hal::IDevice> synapNpu() {
    for (const auto& device : hal::registeredDevices()) {
        if (device->getName() == "synap-npu") return device;
    }
    return nullptr;
}

bool claimsEverything(hal::IDevice& device, const hal::Model& model) {
    const auto [status, supported] = device.getSupportedOperations(model);
    if (status != hal::ErrorStatus::NONE || supported.empty()) return false;
    for (bool claimed : supported) {
        if (!claimed) return false;
    }
    return true;
}

// Prepares (the JIT compiles at the first execution) and runs one request on the device.
halvariant::Executor executorOn(const std::shared_ptr<hal::IDevice>& device) {
    return [device](const hal::Model& model, const hal::Request& request) {
        auto [status, prepared] = device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, {}, {},
                                                       hal::CacheToken{});
        if (status != hal::ErrorStatus::NONE || prepared == nullptr) {
            return std::make_tuple(status == hal::ErrorStatus::NONE ? hal::ErrorStatus::GENERAL_FAILURE : status,
                                   std::vector<hal::OutputShape>{});
        }
        auto [executed, shapes, timing] = prepared->executeSynchronously(request, hal::MeasureTiming::NO);
        return std::make_tuple(executed, std::move(shapes));
    };
}

TEST(SignedCouplingOnNpu, ClaimedSignedVariantsMatchTheConvertedGoldens) {
    const fs::path root = fs::path(NNEMU_SHARED_DIR) / "conformance";
    if (!fs::is_directory(root)) GTEST_SKIP() << "no conformance vectors at " << root;
    const auto device = synapNpu();
    ASSERT_NE(device, nullptr);
    const auto listed = coupling::coupledSignedVariants(root);
    ASSERT_TRUE(listed.isOk()) << listed.message();
    const std::vector<conformance::Variant>& variants = *listed;
    std::map<std::string, size_t> claimed;
    std::vector<std::string> failures;
    for (const auto& v : variants) {
        if (!claimsEverything(*device, halvariant::buildModel(v))) continue;
        ++claimed[v.operations[0].typeName];
        if (auto problem = halvariant::runVariant(v, executorOn(device))) failures.push_back(v.id + ": " + *problem);
    }
    size_t total = 0;
    std::printf("signed variants synap-npu claims, per operation:\n");
    for (const auto& [name, count] : claimed) {
        std::printf("  %-20s %4zu\n", name.c_str(), count);
        total += count;
    }
    std::printf("  %-20s %4zu of %zu\n", "total", total, variants.size());
    // The int8 vision set: the kinds a TF2 int8 network is made of.
    for (const char* name : {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "AVERAGE_POOL_2D",
                             "SOFTMAX", "RESHAPE", "CONCATENATION", "QUANTIZE", "DEQUANTIZE"}) {
        EXPECT_GT(claimed[name], 0u) << "synap-npu claims no signed " << name;
    }
    for (size_t i = 0; i < failures.size() && i < 30; ++i) ADD_FAILURE() << failures[i];
    EXPECT_TRUE(failures.empty()) << failures.size() << " claimed signed variants differ from their goldens";
}

}  // namespace
}  // namespace nnemu
