// A minimal TensorFlow Lite host for libvx_delegate.so, written against the C ABI only: dlopen,
// tflite_plugin_create_delegate with options, the delegate's Prepare over a TfLiteContext, then
// its kernel's init, prepare and invoke over hand-made tensors and nodes.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "StatisticsFiles.h"
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

inline size_t elementSize(TfLiteType type) {
    return type == kTfLiteUInt8 || type == kTfLiteInt8 || type == kTfLiteBool ? 1 : type == kTfLiteInt64 ? 8 : 4;
}

struct TensorSpec {
    TfLiteType type = kTfLiteFloat32;
    std::vector<int> dims;
    std::vector<uint8_t> constant;  // a read-only (mmapped) tensor when not empty
    float scale = 0.0f;
    int32_t zeroPoint = 0;
};

struct NodeSpec {
    int32_t builtinCode;
    const void* builtinData;
    std::vector<int> inputs;
    std::vector<int> outputs;
    const char* customName = nullptr;
};

// A graph of the given tensors and nodes, planned in order. The delegate may replace one
// connected subset: its kernel is then initialised and prepared at once, as TFLite does.
struct Host {
    TfLiteContext context{};
    std::vector<TfLiteTensor> tensors;
    std::vector<std::vector<uint8_t>> data;
    std::vector<TfLiteIntArray*> arrays;
    std::vector<TfLiteNode> nodes;
    std::vector<TfLiteRegistration> registrations;
    TfLiteIntArray* plan = nullptr;

    // What the delegate asked for.
    std::vector<int> replaced;
    TfLiteRegistration kernel{};
    TfLiteNode kernelNode{};
    TfLiteDelegateParams params{};
    TfLiteStatus kernelPrepare = kTfLiteError;

    Host(const std::vector<TensorSpec>& tensorSpecs, const std::vector<NodeSpec>& nodeSpecs)
        : tensors(tensorSpecs.size()), data(tensorSpecs.size()), nodes(nodeSpecs.size()),
          registrations(nodeSpecs.size()) {
        for (size_t t = 0; t < tensors.size(); ++t) {
            const TensorSpec& spec = tensorSpecs[t];
            size_t count = 1;
            for (int d : spec.dims) count *= static_cast<size_t>(d);
            data[t] = spec.constant.empty() ? std::vector<uint8_t>(count * elementSize(spec.type)) : spec.constant;
            TfLiteTensor& tensor = tensors[t];
            tensor.type = spec.type;
            tensor.dims = keep(intArray(spec.dims));
            tensor.params = {spec.scale, spec.zeroPoint};
            tensor.allocation_type = spec.constant.empty() ? kTfLiteArenaRw : kTfLiteMmapRo;
            tensor.bytes = data[t].size();
            tensor.data.data = data[t].data();
            tensor.buffer_handle = -1;
        }
        std::vector<int> order;
        for (size_t n = 0; n < nodes.size(); ++n) {
            nodes[n].inputs = keep(intArray(nodeSpecs[n].inputs));
            nodes[n].outputs = keep(intArray(nodeSpecs[n].outputs));
            nodes[n].builtin_data = const_cast<void*>(nodeSpecs[n].builtinData);
            registrations[n].builtin_code = nodeSpecs[n].builtinCode;
            registrations[n].custom_name = nodeSpecs[n].customName;
            registrations[n].version = 1;
            order.push_back(static_cast<int>(n));
        }
        plan = keep(intArray(order));
        context.tensors_size = tensors.size();
        context.tensors = tensors.data();
        context.impl_ = this;
        context.GetExecutionPlan = [](TfLiteContext* c, TfLiteIntArray** out) {
            *out = self(c)->plan;
            return kTfLiteOk;
        };
        context.GetNodeAndRegistration = [](TfLiteContext* c, int index, TfLiteNode** node, TfLiteRegistration** r) {
            Host* host = self(c);
            if (index < 0 || static_cast<size_t>(index) >= host->nodes.size()) return kTfLiteError;
            *node = &host->nodes[index];
            *r = &host->registrations[index];
            return kTfLiteOk;
        };
        context.ReplaceNodeSubsetsWithDelegateKernels = [](TfLiteContext* c, TfLiteRegistration registration,
                                                           const TfLiteIntArray* list, TfLiteDelegate* delegate) {
            self(c)->replace(registration, std::vector<int>(list->data, list->data + list->size), delegate);
            return kTfLiteOk;
        };
        context.ReportError = reportError;
    }
    ~Host() {
        if (kernel.free != nullptr && kernelNode.user_data != nullptr) kernel.free(&context, kernelNode.user_data);
        for (TfLiteIntArray* array : arrays) std::free(array);
    }
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    TfLiteIntArray* keep(TfLiteIntArray* array) {
        arrays.push_back(array);
        return array;
    }
    static Host* self(TfLiteContext* c) { return static_cast<Host*>(c->impl_); }

    // The replaced nodes' inputs from outside them, and their outputs read outside them or by nobody.
    void replace(const TfLiteRegistration& registration, std::vector<int> list, TfLiteDelegate* delegate) {
        replaced = std::move(list);
        kernel = registration;
        if (replaced.empty()) return;
        std::vector<int> produced, inputs, outputs;
        for (int n : replaced) produced.insert(produced.end(), nodes[n].outputs->data, nodes[n].outputs->data + nodes[n].outputs->size);
        const auto isIn = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
        for (int n : replaced) {
            for (int i = 0; i < nodes[n].inputs->size; ++i) {
                const int t = nodes[n].inputs->data[i];
                if (t >= 0 && !isIn(produced, t) && !isIn(inputs, t)) inputs.push_back(t);
            }
        }
        for (int t : produced) {
            bool readInside = false, readOutside = false;
            for (size_t n = 0; n < nodes.size(); ++n) {
                for (int i = 0; i < nodes[n].inputs->size; ++i) {
                    if (nodes[n].inputs->data[i] != t) continue;
                    (isIn(replaced, static_cast<int>(n)) ? readInside : readOutside) = true;
                }
            }
            if (readOutside || !readInside) outputs.push_back(t);
        }
        params = {delegate, keep(intArray(replaced)), keep(intArray(inputs)), keep(intArray(outputs))};
        kernelNode.inputs = params.input_tensors;
        kernelNode.outputs = params.output_tensors;
        kernelNode.delegate = delegate;
        kernelNode.user_data = registration.init(&context, reinterpret_cast<const char*>(&params), 0);
        kernelPrepare = registration.prepare(&context, &kernelNode);
    }
};

// Two nodes over uint8 [1,2,2,1] tensors with scale 1, zero point 0: node 0 ADD(t0, t1) -> t2,
// node 1 a custom operator t2 -> t3 (which nothing can delegate).
struct MiniHost : Host {
    TfLiteAddParams addParams{kTfLiteActNone, false};
    MiniHost()
        : Host(std::vector<TensorSpec>(4, TensorSpec{kTfLiteUInt8, {1, 2, 2, 1}, {}, 1.0f, 0}),
               {NodeSpec{0, &addParams, {0, 1}, {2}}, NodeSpec{32, nullptr, {2}, {3}, "MyCustomOp"}}) {}
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

    static std::string readCount(const std::string& root) { return nnemu::props::testing::readInferenceCount(root); }

    nnemu::props::testing::TemporaryDeviceRoot root_;
    void* library_ = nullptr;
    TfLitePluginCreateDelegate create_ = nullptr;
    TfLitePluginDestroyDelegate destroy_ = nullptr;
    static inline std::string reported_;
};

}  // namespace vxtest
