// A minimal TensorFlow Lite host for libvx_delegate.so, written against the C ABI only: dlopen,
// tflite_plugin_create_delegate with options, the delegate's Prepare over a TfLiteContext, then
// its kernel's init, prepare and invoke over hand-made tensors and nodes.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "TemporaryDeviceRoot.h"
#include "nnemu/delegate/TfLiteAbi.h"

namespace vxtest {


inline TfLiteIntArray* intArray(std::vector<int> values) {
    auto* array = static_cast<TfLiteIntArray*>(std::malloc(sizeof(TfLiteIntArray) + sizeof(int) * values.size()));
    array->size = static_cast<int>(values.size());
    for (size_t i = 0; i < values.size(); ++i) array->data[i] = values[i];
    return array;
}

inline void reportError(TfLiteContext*, const char* format, ...) { ADD_FAILURE() << "ReportError: " << format; }

// A graph of two nodes over uint8 [1,2,2,1] tensors with scale 1, zero point 0:
// node 0 ADD(t0, t1) -> t2, node 1 a custom operator t2 -> t3 (which nothing can delegate).
struct MiniHost {
    TfLiteContext context{};
    std::vector<TfLiteTensor> tensors = std::vector<TfLiteTensor>(4);
    std::vector<std::vector<uint8_t>> data = std::vector<std::vector<uint8_t>>(4, std::vector<uint8_t>(4));
    std::vector<TfLiteIntArray*> arrays;
    TfLiteNode nodes[2]{};
    TfLiteRegistration registrations[2]{};
    TfLiteAddParams addParams{kTfLiteActNone, false};
    TfLiteIntArray* plan = nullptr;

    // What the delegate asked for.
    std::vector<int> replaced;
    TfLiteRegistration kernel{};
    TfLiteNode kernelNode{};
    TfLiteDelegateParams params{};
    TfLiteStatus kernelPrepare = kTfLiteError;

    MiniHost() {
        for (int t = 0; t < 4; ++t) {
            TfLiteTensor& tensor = tensors[t];
            tensor.type = kTfLiteUInt8;
            tensor.dims = keep(intArray({1, 2, 2, 1}));
            tensor.params = {1.0f, 0};
            tensor.allocation_type = kTfLiteArenaRw;
            tensor.bytes = 4;
            tensor.data.data = data[t].data();
            tensor.buffer_handle = -1;
        }
        nodes[0].inputs = keep(intArray({0, 1}));
        nodes[0].outputs = keep(intArray({2}));
        nodes[0].builtin_data = &addParams;
        registrations[0].builtin_code = 0;  // ADD
        registrations[0].version = 1;
        nodes[1].inputs = keep(intArray({2}));
        nodes[1].outputs = keep(intArray({3}));
        registrations[1].builtin_code = 32;  // CUSTOM
        registrations[1].custom_name = "MyCustomOp";
        plan = keep(intArray({0, 1}));

        context.tensors_size = tensors.size();
        context.tensors = tensors.data();
        context.impl_ = this;
        context.GetExecutionPlan = [](TfLiteContext* c, TfLiteIntArray** out) {
            *out = self(c)->plan;
            return kTfLiteOk;
        };
        context.GetNodeAndRegistration = [](TfLiteContext* c, int index, TfLiteNode** node, TfLiteRegistration** r) {
            if (index < 0 || index > 1) return kTfLiteError;
            *node = &self(c)->nodes[index];
            *r = &self(c)->registrations[index];
            return kTfLiteOk;
        };
        context.ReplaceNodeSubsetsWithDelegateKernels = [](TfLiteContext* c, TfLiteRegistration registration,
                                                           const TfLiteIntArray* list, TfLiteDelegate* delegate) {
            MiniHost* host = self(c);
            host->replaced.assign(list->data, list->data + list->size);
            host->kernel = registration;
            if (host->replaced != std::vector<int>{0}) return kTfLiteOk;  // the test then fails on `replaced`
            host->params = {delegate, host->keep(intArray({0})), host->keep(intArray({0, 1})), host->keep(intArray({2}))};
            host->kernelNode.inputs = host->params.input_tensors;
            host->kernelNode.outputs = host->params.output_tensors;
            host->kernelNode.delegate = delegate;
            host->kernelNode.user_data = registration.init(c, reinterpret_cast<const char*>(&host->params), 0);
            host->kernelPrepare = registration.prepare(c, &host->kernelNode);
            return kTfLiteOk;
        };
        context.ReportError = reportError;
    }
    ~MiniHost() {
        if (kernel.free != nullptr && kernelNode.user_data != nullptr) kernel.free(&context, kernelNode.user_data);
        for (TfLiteIntArray* array : arrays) std::free(array);
    }
    TfLiteIntArray* keep(TfLiteIntArray* array) {
        arrays.push_back(array);
        return array;
    }
    static MiniHost* self(TfLiteContext* c) { return static_cast<MiniHost*>(c->impl_); }
};

class VxAbi : public testing::Test {
protected:
    void SetUp() override {
        library_ = dlopen(VX_DELEGATE_PATH, RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(library_, nullptr) << dlerror();
        create_ = reinterpret_cast<TfLitePluginCreateDelegate>(dlsym(library_, "tflite_plugin_create_delegate"));
        destroy_ = reinterpret_cast<TfLitePluginDestroyDelegate>(dlsym(library_, "tflite_plugin_destroy_delegate"));
        ASSERT_NE(create_, nullptr);
        ASSERT_NE(destroy_, nullptr);
    }
    void TearDown() override {
        if (library_ != nullptr) dlclose(library_);
    }

    TfLiteDelegate* create(std::vector<std::pair<std::string, std::string>> options) {
        std::vector<char*> keys, values;
        for (auto& [key, value] : options) {
            keys.push_back(key.data());
            values.push_back(value.data());
        }
        reported_.clear();
        return create_(keys.data(), values.data(), options.size(), [](const char* message) { reported_ += message; });
    }

    static std::string readCount(const std::string& root) {
        for (const char* path : {"/sys/class/misc/synap/device/misc/synap/statistics/inference_count",
                                 "/sys/class/misc/synap/statistics/inference_count"}) {
            std::ifstream file(root + path);
            if (file) {
                std::stringstream text;
                text << file.rdbuf();
                return text.str();
            }
        }
        return "";
    }

    nnemu::props::testing::TemporaryDeviceRoot root_;
    void* library_ = nullptr;
    TfLitePluginCreateDelegate create_ = nullptr;
    TfLitePluginDestroyDelegate destroy_ = nullptr;
    static inline std::string reported_;
};

}  // namespace vxtest
