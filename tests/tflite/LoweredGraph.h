// The NNAPI graph a hand-built model lowers to (no compilation, no devices), and readers for
// its operations and constant scalars, so tests can check exactly what the loader asks of NNAPI.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "GraphBuilder.h"
#include "GraphChecks.h"
#include "NodeLowering.h"
#include "nnemu/tflite/NnapiGraph.h"

namespace nnemu::tflite::test {

struct LoweredGraph {
    std::unique_ptr<Model> model;
    NnapiGraph graph;
    bool ok = false;
    std::string error;

    std::vector<int32_t> operationTypes() const {
        std::vector<int32_t> types;
        for (const NnOperation& op : graph.operations) types.push_back(op.type);
        return types;
    }
    const NnOperand& operand(uint32_t index) const { return graph.operands.at(index); }
    const NnOperand& input(size_t op, size_t i) const { return operand(graph.operations.at(op).inputs.at(i)); }
    const NnOperand& output(size_t op, size_t i) const { return operand(graph.operations.at(op).outputs.at(i)); }
    template <typename T>
    T value(size_t op, size_t i) const {
        const NnOperand& o = input(op, i);
        T result{};
        EXPECT_TRUE(o.isConstant);
        EXPECT_EQ(o.valueLength(), sizeof(T));
        if (o.valueLength() == sizeof(T)) std::memcpy(&result, o.valueData(), sizeof(T));
        return result;
    }
    std::vector<int32_t> intVector(size_t op, size_t i) const {
        const NnOperand& o = input(op, i);
        std::vector<int32_t> values(o.valueLength() / 4);
        if (!values.empty()) std::memcpy(values.data(), o.valueData(), values.size() * 4);
        return values;
    }
    // An omitted optional operand: a constant without a value.
    bool omitted(size_t op, size_t i) const { return input(op, i).isConstant && input(op, i).valueLength() == 0; }
    bool cpuOnly(size_t node) const { return graph.cpuOnly.at(node); }
};

// signedInt8: lower as for a feature level 30+ runtime (int8 kept signed).
inline LoweredGraph lowerGraph(const GraphBuilder& builder, bool signedInt8 = false) {
    LoweredGraph lowered;
    lowered.graph.signedInt8 = signedInt8;
    lowered.model = builder.build();
    if (lowered.model == nullptr) return lowered;
    if (const Status flow = checkDataFlow(*lowered.model); !flow) {
        lowered.error = flow.message();
        return lowered;
    }
    const Status status = lowerModel(*lowered.model, lowered.graph);
    lowered.ok = status.isOk();
    lowered.error = status.message();
    return lowered;
}

}  // namespace nnemu::tflite::test
