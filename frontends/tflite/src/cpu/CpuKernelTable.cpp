// The table of CPU kernels (kKernels, by builtin code) and what kernels share: operand checks.
#include "CpuKernelList.h"

#include <cstring>

#include "../StringTensor.h"

namespace nnemu::tflite {

// Families that add their own kernels: RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL
// (Philox, state across invokes); EMBEDDING_LOOKUP_SPARSE; DENSIFY (sparse constants).
void addRandomKernels(CpuKernelTable& table);
void addLookupSparseKernels(CpuKernelTable& table);
void addDensifyKernels(CpuKernelTable& table);

size_t elementCount(const std::vector<int32_t>& shape) {
    size_t count = 1;
    for (int32_t dim : shape) count *= static_cast<size_t>(dim < 0 ? 0 : dim);
    return count;
}

std::string shapeText(const std::vector<int32_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

double numberAt(const CpuOperand& operand, size_t i) {
    switch (operand.type()) {
        case ElementType::FLOAT32: return operand.at<float>(i);
        case ElementType::UINT8:
        case ElementType::BOOL: return operand.at<uint8_t>(i);
        case ElementType::INT8: return operand.at<int8_t>(i);
        case ElementType::INT16: return operand.at<int16_t>(i);
        case ElementType::INT32: return operand.at<int32_t>(i);
        case ElementType::INT64: return static_cast<double>(operand.at<int64_t>(i));
        default: return 0.0;
    }
}

void setIndex(const CpuOperand& operand, size_t i, int64_t value) {
    if (operand.type() == ElementType::INT64) {
        operand.set<int64_t>(i, value);
    } else {
        operand.set<int32_t>(i, static_cast<int32_t>(value));
    }
}

bool normalizeAxis(const CpuKernelCall& call, int64_t axis, size_t rank, size_t* normalized) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) {
        return call.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    }
    *normalized = static_cast<size_t>(axis < 0 ? axis + r : axis);
    return true;
}

bool expectReduction(const CpuKernelCall& call, std::vector<bool>* reduced, bool* known) {
    std::vector<int64_t> axes;
    if (!call.ints(1, &axes, known)) return false;
    if (!*known) return true;
    const size_t rank = call.in(0).rank();
    reduced->assign(rank, false);
    for (int64_t axis : axes) {
        size_t d = 0;
        if (!normalizeAxis(call, axis, rank, &d)) return false;
        (*reduced)[d] = true;
    }
    const auto* options = call.params<TfLiteReducerParams>();
    const bool keepDims = options != nullptr && options->keep_dims;
    std::vector<int32_t> shape;
    for (size_t d = 0; d < rank; ++d) {
        if (!(*reduced)[d]) {
            shape.push_back(call.in(0).shape()[d]);
        } else if (keepDims) {
            shape.push_back(1);
        }
    }
    return call.expectOutputShape(0, shape);
}

bool expectComputedShape(const CpuKernelCall& call, ShapeFunction shapeOf) {
    std::vector<int32_t> shape;
    bool known = false;
    if (!shapeOf(call, &shape, &known)) return false;
    return !known || call.expectOutputShape(0, shape);
}

bool resizeToComputedShape(const CpuKernelCall& call, ShapeFunction shapeOf, const char* unknownReason,
                           std::vector<int32_t>* shape) {
    bool known = false;
    if (!shapeOf(call, shape, &known)) return false;
    if (!known) return call.fail(unknownReason);
    return call.resizeOutput(0, *shape);
}

size_t CpuOperand::count() const { return elementCount(tensor->shape); }

bool CpuKernelCall::fail(const std::string& reason) const {
    status_ = badData(reason);
    return false;
}

bool CpuKernelCall::expectCounts(size_t minInputs, size_t maxInputs, size_t outputCount) const {
    if (inputs.size() < minInputs || inputs.size() > maxInputs) {
        return fail("has " + std::to_string(inputs.size()) + " inputs, expected " +
                    (minInputs == maxInputs ? std::to_string(minInputs)
                                            : std::to_string(minInputs) + " to " + std::to_string(maxInputs)));
    }
    if (outputs.size() != outputCount) {
        return fail("has " + std::to_string(outputs.size()) + " outputs, expected " + std::to_string(outputCount));
    }
    for (size_t i = 0; i < minInputs; ++i) {
        if (!inputs[i].present()) return fail("required input " + std::to_string(i) + " is absent");
    }
    for (size_t i = 0; i < outputCount; ++i) {
        if (!outputs[i].present()) return fail("output " + std::to_string(i) + " is absent");
    }
    return true;
}

bool CpuKernelCall::expectType(const CpuOperand& operand, std::initializer_list<ElementType> types,
                               const char* what) const {
    for (ElementType type : types) {
        if (operand.type() == type) return true;
    }
    return fail(std::string(what) + " of type " + elementTypeName(operand.type()) + " is not supported");
}

bool CpuKernelCall::expectOutputShape(size_t i, const std::vector<int32_t>& shape) const {
    const std::vector<int32_t>& declared = outputs[i].shape();
    if (declared == shape) return true;
    // At invoke, inputs may have shapes earlier kernels computed: the output follows, as TFLite
    // resizes a node's outputs when its inputs were resized.
    if (resizer) return resizeOutput(i, shape);
    if (elementCount(declared) == elementCount(shape)) return true;
    return fail("output " + std::to_string(i) + " is declared " + shapeText(declared) + " but computes to " +
                shapeText(shape));
}

bool CpuKernelCall::ints(size_t i, std::vector<int64_t>* values, bool* known) const {
    const CpuOperand& operand = inputs[i];
    if (!expectType(operand, {ElementType::INT32, ElementType::INT64}, ("input " + std::to_string(i)).c_str())) {
        return false;
    }
    values->clear();
    *known = operand.known();
    if (!*known) return true;
    const size_t count = operand.count();
    for (size_t k = 0; k < count; ++k) {
        values->push_back(operand.type() == ElementType::INT32 ? operand.at<int32_t>(k) : operand.at<int64_t>(k));
    }
    return true;
}

bool CpuKernelCall::resizeOutput(size_t i, const std::vector<int32_t>& shape) const {
    CpuOperand& output = outputs[i];
    if (output.shape() == shape) return true;
    // As the loader bounds declared tensors: no shape at invoke may need more.
    constexpr uint64_t kMaxOutputBytes = uint64_t{1} << 31;
    uint64_t bytes = elementSize(output.type());
    for (int32_t dim : shape) {
        if (dim < 0) return fail("output " + std::to_string(i) + " computes to the invalid shape " + shapeText(shape));
        if (dim != 0 && bytes > kMaxOutputBytes / static_cast<uint64_t>(dim)) {
            return fail("output " + std::to_string(i) + " computes to shape " + shapeText(shape) + ", too large");
        }
        bytes *= static_cast<uint64_t>(dim);
    }
    if (resizer) {
        const Status resized = resizer(i, shape, 0, &output);
        return resized ? true : fail(resized.message());
    }
    if (elementCount(output.shape()) == elementCount(shape)) return true;
    return fail("output " + std::to_string(i) + " is declared " + shapeText(output.shape()) + " but computes to " +
                shapeText(shape));
}

bool CpuKernelCall::writeStrings(size_t i, const std::vector<int32_t>& shape,
                                 const std::vector<std::string_view>& strings) const {
    const std::vector<uint8_t> packed = packStrings(strings);
    if (!resizer) return fail("output " + std::to_string(i) + " holds strings: no interpreter to size it");
    CpuOperand& output = outputs[i];
    if (const Status resized = resizer(i, shape, packed.size(), &output); !resized) return fail(resized.message());
    std::memcpy(output.out, packed.data(), packed.size());
    return true;
}

void CpuKernelTable::add(fb::BuiltinOperator code, CpuKernel kernel) {
    const auto index = static_cast<size_t>(code);
    if (kernels_.size() <= index) kernels_.resize(index + 1);
    kernels_[index] = kernel;
}

const CpuKernel* CpuKernelTable::find(const Node& node) const {
    if (node.builtinCode < 0 || static_cast<size_t>(node.builtinCode) >= kernels_.size()) return nullptr;
    const CpuKernel& kernel = kernels_[static_cast<size_t>(node.builtinCode)];
    return kernel.run != nullptr ? &kernel : nullptr;
}

std::vector<std::string> CpuKernelTable::names() const {
    std::vector<std::string> result;
    for (size_t code = 0; code < kernels_.size(); ++code) {
        if (kernels_[code].run != nullptr) {
            result.emplace_back(fb::EnumNameBuiltinOperator(static_cast<fb::BuiltinOperator>(code)));
        }
    }
    return result;
}

namespace kernels {
namespace {

struct KernelRow {
    fb::BuiltinOperator code;
    CpuKernel kernel;
};

// Every CPU kernel, one row per builtin code, grouped by the cpu/<Family>.cpp that defines its
// functions (declared in CpuKernelList.h). Explicit, because a static library drops
// self-registering objects.
const KernelRow kKernels[] = {
    // Activation.cpp
    {fb::BuiltinOperator_RELU_0_TO_1, {activation::prepareRelu0To1, activation::runRelu0To1}},
    {fb::BuiltinOperator_RELU, {activation::prepareReluX, activation::runRelu}},
    {fb::BuiltinOperator_RELU6, {activation::prepareReluX, activation::runRelu6}},
    {fb::BuiltinOperator_RELU_N1_TO_1, {activation::prepareReluX, activation::runReluN1To1}},
    {fb::BuiltinOperator_GELU, {activation::prepareGelu, activation::runGelu}},
    {fb::BuiltinOperator_ELU, {activation::prepareElu, activation::runElu}},
    {fb::BuiltinOperator_LEAKY_RELU, {activation::prepareLeakyRelu, activation::runLeakyRelu}},
    {fb::BuiltinOperator_FAKE_QUANT, {activation::prepareFakeQuant, activation::runFakeQuant}},
    {fb::BuiltinOperator_TANH, {activation16::prepareTanh, activation16::runTanh}},   // Activation16.cpp
    {fb::BuiltinOperator_LOGISTIC, {activation16::prepareLogistic, activation16::runLogistic}},
    {fb::BuiltinOperator_HARD_SWISH, {activation::prepareHardSwish, activation::runHardSwish}},
    // AddNAtan2.cpp
    {fb::BuiltinOperator_ADD_N, {add_n_atan2::prepareAddN, add_n_atan2::runAddN}},
    {fb::BuiltinOperator_ATAN2, {add_n_atan2::prepareAtan2, add_n_atan2::runAtan2}},
    // ArgMinMax.cpp
    {fb::BuiltinOperator_ARG_MAX, {arg_min_max::prepareArg, arg_min_max::runArgMax}},
    {fb::BuiltinOperator_ARG_MIN, {arg_min_max::prepareArg, arg_min_max::runArgMin}},
    // Arithmetic.cpp
    {fb::BuiltinOperator_ADD, {arithmetic::prepareAdd, arithmetic::runAdd}},
    {fb::BuiltinOperator_SUB, {arithmetic::prepareSub, arithmetic::runSub}},
    {fb::BuiltinOperator_MUL, {arithmetic::prepareMul, arithmetic::runMul}},
    // Binary.cpp
    {fb::BuiltinOperator_FLOOR_DIV, {binary::prepareFloorDiv, binary::runFloorDiv}},
    {fb::BuiltinOperator_FLOOR_MOD, {binary::prepareFloorMod, binary::runFloorMod}},
    {fb::BuiltinOperator_SQUARED_DIFFERENCE, {binary::prepareSquaredDifference, binary::runSquaredDifference}},
    {fb::BuiltinOperator_MAXIMUM, {binary::prepareQuantizedExtremum, binary::runQuantizedMaximum}},
    {fb::BuiltinOperator_MINIMUM, {binary::prepareQuantizedExtremum, binary::runQuantizedMinimum}},
    // BatchMatmul.cpp
    {fb::BuiltinOperator_BATCH_MATMUL, {batch_matmul::prepareBatchMatmul, batch_matmul::runBatchMatmul}},
    // Bitwise.cpp
    {fb::BuiltinOperator_BITWISE_XOR, {bitwise::prepareBitwise, bitwise::runBitwiseXor}},
    {fb::BuiltinOperator_RIGHT_SHIFT, {bitwise::prepareBitwise, bitwise::runRightShift}},
    // BroadcastTo.cpp
    {fb::BuiltinOperator_BROADCAST_TO, {broadcast_to::prepareBroadcastTo, broadcast_to::runBroadcastTo}},
    {fb::BuiltinOperator_BROADCAST_ARGS, {broadcast_to::broadcastArgsCheck, broadcast_to::runBroadcastArgs}},
    // Bucketize.cpp
    {fb::BuiltinOperator_BUCKETIZE, {bucketize::prepareBucketize, bucketize::runBucketize}},
    // Cast.cpp
    {fb::BuiltinOperator_CAST, {cast::prepareCast, cast::runCast}},
    {fb::BuiltinOperator_BITCAST, {cast::prepareBitcast, cast::runBitcast}},
    // Conv.cpp
    {fb::BuiltinOperator_CONV_2D, {conv::prepareConv, conv::runConv}},
    // Conv3d.cpp
    {fb::BuiltinOperator_CONV_3D, {conv3d::prepareConv3d, conv3d::runConv3d}},
    {fb::BuiltinOperator_CONV_3D_TRANSPOSE, {conv3d::prepareTranspose, conv3d::runTranspose}},
    // Cos.cpp
    {fb::BuiltinOperator_COS, {cos::prepareCos, cos::runCos}},
    // Gather.cpp
    {fb::BuiltinOperator_GATHER_ND, {gather::prepareGatherNd, gather::runGatherNd}},
    // Generate.cpp
    {fb::BuiltinOperator_ONE_HOT, {generate::prepareOneHot, generate::runOneHot}},
    {fb::BuiltinOperator_RANGE, {generate::prepareRange, generate::runRange}},
    // Indexing.cpp
    {fb::BuiltinOperator_WHERE, {indexing::prepareWhere, indexing::runWhere}},
    {fb::BuiltinOperator_UNIQUE, {indexing::prepareUnique, indexing::runUnique}},
    // Lookup.cpp
    {fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookup::prepareEmbeddingLookup, lookup::runEmbeddingLookup}},
    {fb::BuiltinOperator_FULLY_CONNECTED, {hybrid::prepareFullyConnected, hybrid::runFullyConnected}},
    {fb::BuiltinOperator_DEPTHWISE_CONV_2D, {hybrid::prepareDepthwise, hybrid::runDepthwise}},
    {fb::BuiltinOperator_HASHTABLE_LOOKUP, {lookup::prepareHashtableLookup, lookup::runHashtableLookup}},
    // MatrixDiag.cpp
    {fb::BuiltinOperator_MATRIX_DIAG, {matrix_diag::prepareMatrixDiag, matrix_diag::runMatrixDiag}},
    {fb::BuiltinOperator_MATRIX_SET_DIAG, {matrix_diag::prepareMatrixSetDiag, matrix_diag::runMatrixSetDiag}},
    // SoftmaxFloat.cpp
    {fb::BuiltinOperator_SOFTMAX, {softmax::prepareSoftmax, softmax::runSoftmax}},
    // QuantizedLogSoftmax.cpp
    {fb::BuiltinOperator_LOG_SOFTMAX, {log_softmax::prepareQuantized, log_softmax::runQuantized}},
    // QuantizedComparison.cpp
    {fb::BuiltinOperator_EQUAL, {comparison::prepareQuantized, comparison::runEqual}},
    {fb::BuiltinOperator_NOT_EQUAL, {comparison::prepareQuantized, comparison::runNotEqual}},
    {fb::BuiltinOperator_LESS, {comparison::prepareQuantized, comparison::runLess}},
    {fb::BuiltinOperator_LESS_EQUAL, {comparison::prepareQuantized, comparison::runLessEqual}},
    {fb::BuiltinOperator_GREATER, {comparison::prepareQuantized, comparison::runGreater}},
    {fb::BuiltinOperator_GREATER_EQUAL, {comparison::prepareQuantized, comparison::runGreaterEqual}},
    // Pooling16.cpp
    {fb::BuiltinOperator_AVERAGE_POOL_2D, {pooling::prepareAveragePool, pooling::runAveragePool}},
    {fb::BuiltinOperator_MAX_POOL_2D, {pooling::preparePool16, pooling::runMaxPool16}},
    // Quantization.cpp
    {fb::BuiltinOperator_QUANTIZE, {quantization::prepareRequantize, quantization::runRequantize}},
    {fb::BuiltinOperator_DEQUANTIZE, {quantization::prepareDequantize, quantization::runDequantize}},
    // QuantizedL2Norm.cpp
    {fb::BuiltinOperator_L2_NORMALIZATION, {l2_norm::prepareQuantized, l2_norm::runQuantized}},
    // QuantizedDiv.cpp
    {fb::BuiltinOperator_DIV, {quantized_div::prepareDiv, quantized_div::runDiv}},
    // TransposeConv16.cpp
    {fb::BuiltinOperator_TRANSPOSE_CONV, {transpose_conv::prepareInt16, transpose_conv::runInt16}},
    // Movement.cpp
    {fb::BuiltinOperator_SQUEEZE, {movement::prepareSqueeze, movement::runSqueeze}},
    {fb::BuiltinOperator_TRANSPOSE, {movement::prepareTranspose, movement::runTranspose}},
    {fb::BuiltinOperator_CONCATENATION, {movement::prepareConcatenation, movement::runConcatenation}},
    {fb::BuiltinOperator_PAD, {movement::preparePad, movement::runPad}},
    // NonMaxSuppression.cpp
    {fb::BuiltinOperator_NON_MAX_SUPPRESSION_V4, {non_max_suppression::prepareNms, non_max_suppression::runNms}},
    {fb::BuiltinOperator_NON_MAX_SUPPRESSION_V5, {non_max_suppression::prepareNms, non_max_suppression::runNms}},
    // Reduce.cpp
    {fb::BuiltinOperator_SUM, {reduce::prepareSum, reduce::runSum}},
    // QuantizedMean.cpp
    {fb::BuiltinOperator_MEAN, {reduce::prepareQuantizedMean, reduce::runQuantizedMean}},
    // ReduceExtrema.cpp
    {fb::BuiltinOperator_REDUCE_MAX, {reduce::prepareReduceMax, reduce::runReduceMax}},
    {fb::BuiltinOperator_REDUCE_MIN, {reduce::prepareReduceMin, reduce::runReduceMin}},
    {fb::BuiltinOperator_REDUCE_PROD, {reduce::prepareReduceProd, reduce::runReduceProd}},
    // ReduceAll.cpp
    {fb::BuiltinOperator_REDUCE_ALL, {reduce_all::prepareReduceAll, reduce_all::runReduceAll}},
    // Resize.cpp
    {fb::BuiltinOperator_RESIZE_BILINEAR, {resize::prepareResize, resize::runBilinear}},
    {fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, {resize::prepareResize, resize::runNearest}},
    // ReverseSequence.cpp
    {fb::BuiltinOperator_REVERSE_SEQUENCE,
     {reverse_sequence::prepareReverseSequence, reverse_sequence::runReverseSequence}},
    // Scan.cpp
    {fb::BuiltinOperator_CUMSUM, {scan::prepareCumsum, scan::runCumsum}},
    // Scatter.cpp
    {fb::BuiltinOperator_SCATTER_ND, {scatter::prepareScatterNd, scatter::runScatterNd}},
    {fb::BuiltinOperator_SPARSE_TO_DENSE, {scatter::prepareSparseToDense, scatter::runSparseToDense}},
    {fb::BuiltinOperator_DYNAMIC_UPDATE_SLICE, {scatter::prepareDynamicUpdateSlice, scatter::runDynamicUpdateSlice}},
    // Segment.cpp
    {fb::BuiltinOperator_SEGMENT_SUM, {segment::prepareSegmentSum, segment::runSegmentSum}},
    {fb::BuiltinOperator_UNSORTED_SEGMENT_SUM, {segment::prepareUnsorted, segment::runUnsortedSegmentSum}},
    {fb::BuiltinOperator_UNSORTED_SEGMENT_PROD, {segment::prepareUnsorted, segment::runUnsortedSegmentProd}},
    {fb::BuiltinOperator_UNSORTED_SEGMENT_MAX, {segment::prepareUnsorted, segment::runUnsortedSegmentMax}},
    {fb::BuiltinOperator_UNSORTED_SEGMENT_MIN, {segment::prepareUnsorted, segment::runUnsortedSegmentMin}},
    // SelectPowAbs.cpp
    {fb::BuiltinOperator_SELECT_V2, {select_pow_abs::prepareSelectV2, select_pow_abs::runSelectV2}},
    {fb::BuiltinOperator_POW, {select_pow_abs::preparePow, select_pow_abs::runPow}},
    {fb::BuiltinOperator_ABS, {select_pow_abs::prepareAbs, select_pow_abs::runAbs}},
    // Shape.cpp
    {fb::BuiltinOperator_SHAPE, {shape::prepareShape, shape::runShape}},
    {fb::BuiltinOperator_UNPACK, {shape::prepareUnpack, shape::runUnpack}},
    {fb::BuiltinOperator_SPLIT_V, {shape::prepareSplitV, shape::runSplitV}},
    // StridedSlice.cpp
    {fb::BuiltinOperator_STRIDED_SLICE, {strided_slice::prepareStridedSlice, strided_slice::runStridedSlice}},
    // Unary.cpp
    {fb::BuiltinOperator_SQUARE, {unary::prepareFloat, unary::runSquare}},
    {fb::BuiltinOperator_CEIL, {unary::prepareFloat, unary::runCeil}},
    {fb::BuiltinOperator_ROUND, {unary::prepareFloat, unary::runRound}},
    {fb::BuiltinOperator_SIGN, {unary::prepareSign, unary::runSign}},
    {fb::BuiltinOperator_ZEROS_LIKE, {unary::prepareZerosLike, unary::runZerosLike}},
    {fb::BuiltinOperator_RANK, {unary::prepareRank, unary::runRank}},
};

}  // namespace
}  // namespace kernels

const CpuKernelTable& CpuKernelTable::get() {
    static const CpuKernelTable table = [] {
        CpuKernelTable t;
        for (const auto& row : kernels::kKernels) t.add(row.code, row.kernel);
        addComplexKernels(t);
        addVariableKernels(t);
        addHashtableKernels(t);
        addSkipGramKernel(t);
        addRandomKernels(t);
        addLookupSparseKernels(t);
        addDensifyKernels(t);
        return t;
    }();
    return table;
}

namespace {

// The node's operands as prepare() sees them: constants with their data.
CpuKernelCall preparedCall(const Subgraph& subgraph, const Node& node) {
    CpuKernelCall call(node);
    for (int32_t t : node.inputs) {
        CpuOperand operand;
        if (t >= 0) {
            operand.tensor = &subgraph.tensors[t];
            if (operand.tensor->isConstant) operand.data = operand.tensor->data;
        }
        call.inputs.push_back(operand);
    }
    for (int32_t t : node.outputs) {
        CpuOperand operand;
        if (t >= 0) operand.tensor = &subgraph.tensors[t];
        call.outputs.push_back(operand);
    }
    return call;
}

}  // namespace

Result<const CpuKernel*> prepareCpuKernel(const Subgraph& subgraph, const Node& node, QuantizedArithmetic arithmetic) {
    const CpuKernel* kernel = CpuKernelTable::get().find(node);
    if (kernel == nullptr) return badData("no CPU kernel");
    CpuKernelCall call = preparedCall(subgraph, node);
    call.arithmetic = arithmetic;
    for (const CpuOperand& operand : call.outputs) {
        if (operand.present() && operand.tensor->isConstant) {
            call.fail("an output is a constant");
            return call.status();
        }
    }
    if (kernel->prepare(call)) return kernel;
    return call.status();
}

}  // namespace nnemu::tflite
