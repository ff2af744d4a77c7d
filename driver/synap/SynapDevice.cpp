// The `synap-npu` device: claims what its NPU core runs correctly, prepares by validating and
// compiles each network at its first execution.
#include "Compiler.h"
#include "Lowering.h"
#include "PreparedNetwork.h"
#include "nnemu/hal/DeviceRegistry.h"
#include "nnemu/hal/Log.h"
#include "nnemu/hal/Validation.h"
#include "nnemu/props/SynapProperties.h"

namespace nnemu::synap {
namespace {

using hal::ErrorStatus;

class SynapDevice final : public hal::IDevice {
public:
    std::string getName() const override { return "synap-npu"; }
    // Changes with the compiler, so cached programs of another compiler never match.
    std::string getVersionString() const override {
        return "nnemu-" NNEMU_VERSION "-npu" + std::to_string(kCompilerVersion);
    }
    hal::DeviceType getType() const override { return hal::DeviceType::ACCELERATOR; }

    hal::Capabilities getCapabilities() const override {
        // Lower than the CPU's 1.0 so the runtime prefers the NPU for what it claims.
        const hal::PerformanceInfo fast{0.1f, 0.1f};
        hal::Capabilities capabilities;
        capabilities.relaxedFloat32toFloat16PerformanceScalar = fast;
        capabilities.relaxedFloat32toFloat16PerformanceTensor = fast;
        capabilities.operandPerformance = {{hal::OperandType::TENSOR_FLOAT32, fast},
                                           {hal::OperandType::TENSOR_QUANT8_ASYMM, fast}};
        return capabilities;
    }

    std::pair<ErrorStatus, std::vector<bool>> getSupportedOperations(const hal::Model& model) override {
        std::string why;
        if (!hal::validateModel(model, &why)) {
            NN_LOG(ERROR) << "synap-npu: invalid model: " << why;
            return {ErrorStatus::INVALID_ARGUMENT, {}};
        }
        // vendor.NNAPI_SYNAP_DISABLE=1 hides the NPU from NNAPI; read at every compilation.
        const bool disabled = props::SynapProperties::disable();
        const hal::ConstantLookup constantOf = [&](uint32_t index) {
            return hal::constantData(model, model.operands[index]);
        };
        std::vector<bool> supported;
        for (const auto& operation : model.operations) {
            const LoweringRule* rule = findLowering(operation.type);
            supported.push_back(!disabled && rule != nullptr &&
                                rule->supports(hal::makeOperationContext(operation, model.operands, constantOf)));
        }
        return {ErrorStatus::NONE, supported};
    }

    hal::PrepareResult prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                    const std::vector<int>&, const std::vector<int>&,
                                    const hal::CacheToken&) override {
        if (static_cast<int32_t>(preference) < 0 || static_cast<int32_t>(preference) > 2) {
            return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        }
        auto [status, supported] = getSupportedOperations(model);
        if (status != ErrorStatus::NONE) return {status, nullptr};
        for (size_t i = 0; i < supported.size(); ++i) {
            if (!supported[i]) {
                NN_LOG(ERROR) << "synap-npu: cannot run " << hal::operationName(model.operations[i].type);
                return {ErrorStatus::INVALID_ARGUMENT, nullptr};
            }
        }
        return {ErrorStatus::NONE, std::make_shared<PreparedNetwork>(model)};
    }
};

// Rank 0: the NPU is listed first, before nnapi-reference.
const hal::DeviceRegistrar kRegistrar(0, [] { return std::make_shared<SynapDevice>(); });

}  // namespace
}  // namespace nnemu::synap
