// libvx_delegate.so as TensorFlow Lite loads it: dlopen, tflite_plugin_create_delegate with
// options, the delegate's Prepare over a TfLiteContext, then its kernel's init, prepare and
// invoke. The host here is a few callbacks over hand-made tensors and nodes: the ABI only.
#include "VxTestHost.h"

namespace {

using vxtest::MiniHost;
using vxtest::VxAbi;

TEST_F(VxAbi, DelegatesTheAddAndRunsItOnTheNpu) {
    TfLiteDelegate* delegate = create({});
    ASSERT_NE(delegate, nullptr) << reported_;
    EXPECT_EQ(delegate->flags, kTfLiteDelegateFlagsAllowDynamicTensors | kTfLiteDelegateFlagsRequirePropagatedShapes);
    {
        MiniHost host;
        ASSERT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
        // The ADD is claimed, the custom operator stays with the host.
        ASSERT_EQ(host.replaced, std::vector<int>{0});
        ASSERT_NE(host.kernel.custom_name, nullptr);
        EXPECT_STREQ(host.kernel.custom_name, "Vx Delegate");
        EXPECT_EQ(host.kernel.builtin_code, 51);
        ASSERT_NE(host.kernelNode.user_data, nullptr);
        EXPECT_EQ(host.kernelPrepare, kTfLiteOk);

        host.data[0] = {1, 2, 200, 255};
        host.data[1] = {3, 4, 100, 1};
        ASSERT_EQ(host.kernel.invoke(&host.context, &host.kernelNode), kTfLiteOk);
        EXPECT_EQ(host.data[2], (std::vector<uint8_t>{4, 6, 255, 255}));
        host.data[0] = {10, 0, 0, 7};
        ASSERT_EQ(host.kernel.invoke(&host.context, &host.kernelNode), kTfLiteOk);
        EXPECT_EQ(host.data[2], (std::vector<uint8_t>{13, 4, 100, 8}));
        // Counted in the same statistics files as the NNAPI path.
        EXPECT_EQ(readCount(root_.root()), "2\n");
    }
    destroy_(delegate);
}

TEST_F(VxAbi, AllowedBuiltinCodeKeepsOtherOperatorsOnTheHost) {
    TfLiteDelegate* delegate = create({{"allowed_builtin_code", "3"}});
    ASSERT_NE(delegate, nullptr) << reported_;
    {
        MiniHost host;
        ASSERT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
        EXPECT_TRUE(host.replaced.empty());
    }
    destroy_(delegate);
}

TEST_F(VxAbi, TestHooksFailTheirStage) {
    TfLiteDelegate* delegate = create({{"error_during_prepare", "1"}});
    ASSERT_NE(delegate, nullptr);
    {
        MiniHost host;
        ASSERT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
        EXPECT_EQ(host.kernelPrepare, kTfLiteError);
    }
    destroy_(delegate);
    delegate = create({{"error_during_invoke", "true"}});
    ASSERT_NE(delegate, nullptr);
    {
        MiniHost host;
        ASSERT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
        ASSERT_EQ(host.kernelPrepare, kTfLiteOk);
        EXPECT_EQ(host.kernel.invoke(&host.context, &host.kernelNode), kTfLiteError);
    }
    destroy_(delegate);
}

TEST_F(VxAbi, BadValuesAreRefusedWithAMessageAndUnknownKeysIgnored) {
    EXPECT_EQ(create({{"allowed_cache_mode", "maybe"}}), nullptr);
    EXPECT_EQ(reported_, "Vx delegate: bad value 'maybe' for option allowed_cache_mode (expected 0, 1, true or false)");
    EXPECT_EQ(create({{"device_id", "-1"}}), nullptr);
    EXPECT_EQ(reported_, "Vx delegate: bad value '-1' for option device_id (expected a non-negative integer)");
    EXPECT_EQ(create({{"allowed_builtin_code", "3x"}}), nullptr);
    EXPECT_EQ(reported_, "Vx delegate: bad value '3x' for option allowed_builtin_code (expected a non-negative integer)");
    EXPECT_EQ(create({{"error_during_invoke", ""}}), nullptr);
    EXPECT_EQ(reported_, "Vx delegate: bad value '' for option error_during_invoke (expected 0, 1, true or false)");
    testing::internal::CaptureStderr();
    TfLiteDelegate* delegate = create({{"no_such_option", "1"}, {"device_id", "0"}});
    const std::string log = testing::internal::GetCapturedStderr();
    ASSERT_NE(delegate, nullptr);
    EXPECT_NE(log.find("WARNING: Vx delegate: unknown option 'no_such_option' ignored.\n"), std::string::npos) << log;
    destroy_(delegate);
}

// Per-channel scales that do not match the quantized dimension are not read (a host laying out
// TfLiteFloatArray otherwise shows as such a count): the node stays with the host.
TEST_F(VxAbi, ScalesThatDoNotMatchTheQuantizedDimensionKeepTheNodeOnTheHost) {
    TfLiteDelegate* delegate = create({});
    ASSERT_NE(delegate, nullptr);
    for (const int count : {1, 3}) {
        auto* scales = static_cast<TfLiteFloatArray*>(std::malloc(sizeof(TfLiteFloatArray) + 3 * sizeof(float)));
        scales->size = count;
        std::fill(scales->data, scales->data + 3, 1.0f);
        TfLiteAffineQuantization affine{scales, nullptr, 3};  // dims [1,2,2,1]: one channel
        MiniHost host;
        host.tensors[0].quantization = {kTfLiteAffineQuantization, &affine};
        testing::internal::CaptureStderr();
        EXPECT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
        const std::string log = testing::internal::GetCapturedStderr();
        std::free(scales);
        if (count == 1) {
            EXPECT_EQ(host.replaced, std::vector<int>{0});
        } else {
            EXPECT_TRUE(host.replaced.empty());
            EXPECT_NE(log.find("WARNING: Fallback unsupported op 0 to TfLite\n"), std::string::npos) << log;
        }
    }
    destroy_(delegate);
}

// TFLite's own loader passes no report_error and applies whatever it gets without a null check:
// bad values then give a delegate that takes no node, and the graph stays on the host's CPU.
TEST_F(VxAbi, WithoutReportErrorBadValuesGiveADelegateThatTakesNothing) {
    char key[] = "allowed_cache_mode", value[] = "maybe";
    char* keys[] = {key};
    char* values[] = {value};
    testing::internal::CaptureStderr();
    TfLiteDelegate* delegate = create_(keys, values, 1, nullptr);
    std::string log = testing::internal::GetCapturedStderr();
    ASSERT_NE(delegate, nullptr);
    EXPECT_EQ(log, "ERROR: Vx delegate: bad value 'maybe' for option allowed_cache_mode (expected 0, 1, true or "
                   "false); the delegate takes no node.\n");
    MiniHost host;
    testing::internal::CaptureStderr();
    EXPECT_EQ(delegate->Prepare(&host.context, delegate), kTfLiteOk);
    log = testing::internal::GetCapturedStderr();
    EXPECT_TRUE(host.replaced.empty());
    EXPECT_EQ(log, "");
    destroy_(delegate);
}

}  // namespace
