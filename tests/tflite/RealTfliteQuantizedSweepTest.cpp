// Differential sweep against real TensorFlow Lite 2.21: every quantized builtin whose output
// depends on its tensors' scales (but CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, swept with
// their kernels; float32 BATCH_MATMUL beside its quantized forms), on random scales, zero points,
// shapes, broadcasts and options drawn from a fixed
// seed, through nnemu's CPU path and through tflite_run's builtin kernels (--xnnpack=0), byte for
// byte. Round, hand-picked scales hide how a kernel derives its multipliers (float or double
// products, which rounding); random ones do not. Each test puts its cases (one operator each,
// independent of the others) in one model: one tflite_run per builtin, and a failure names the
// output and its case, which the fixed seed reproduces.
//
// Each sweep runs twice: on usual scales (UsualScales), and on scales far outside what a
// converter writes (ExtremeScales: one tensor in three 1e-38 to 1e38, so that scale ratios and
// products overflow to infinity, underflow to zero or leave int32; one shape in eight empty;
// 60 cases). There each case
// is a model of its own through nnemu's CPU path only, which must run it or refuse it with a
// message; its outputs are not compared, because TFLite's own kernels reach undefined behaviour
// there (shifts past 31, infinities converted to int: tried, 13 of the 48 sweeps gave other bytes
// than nnemu, e.g. a RELU_0_TO_1 whose requantization shifts left by 24). The sanitizer job
// (scripts/sanitize.sh) runs them under ASan and UBSan: what the loader fuzzer otherwise finds one
// at a time, such as a NaN converted to int, fails there on every run.
#include <random>

#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

using TT = fb::TensorType;
constexpr TT kU8 = fb::TensorType_UINT8, kI8 = fb::TensorType_INT8, kI16 = fb::TensorType_INT16;
// Set by the fixture: the ExtremeScales instantiation.
bool gExtreme = false;
// Cases per test (1500 pass too, in 4 s); fewer on extreme scales, where each is a model and a
// tflite_run of its own.
int caseCount() { return gExtreme ? 60 : 200; }
constexpr double kExtremeScales[] = {1e-38, 1e-30, 1e-20, 1e-9, 1e9, 1e20, 1e30, 1e38};

std::string typeName(TT type) {
    switch (type) {
        case fb::TensorType_UINT8: return "uint8";
        case fb::TensorType_INT8: return "int8";
        case fb::TensorType_INT16: return "int16";
        case fb::TensorType_INT32: return "int32";
        case fb::TensorType_INT64: return "int64";
        case fb::TensorType_FLOAT32: return "float32";
        default: return "type " + std::to_string(type);
    }
}

// "int8[2,3] 0.0123/-5" (a constant marked "const").
std::string describe(const Spec& s) {
    std::string text = typeName(s.type) + "[";
    for (size_t i = 0; i < s.shape.size(); ++i) text += (i ? "," : "") + std::to_string(s.shape[i]);
    text += "]";
    if (s.scale > 0) {
        std::ostringstream q;
        q.precision(9);
        q << " " << s.scale << "/" << s.zeroPoint;
        text += q.str();
    }
    return text + (s.constant.empty() ? "" : " const");
}

fb::ActivationFunctionType kActivations[] = {fb::ActivationFunctionType_NONE, fb::ActivationFunctionType_RELU,
                                             fb::ActivationFunctionType_RELU6, fb::ActivationFunctionType_RELU_N1_TO_1};

// Known gaps (docs/tflite.md, "The quantized sweep"): forms TFLite's builtin kernels run that
// nnemu's CPU path refuses at prepare. A case of one is not compared: its one-operator model
// must be refused with a message (never a crash). When one starts to run, the test fails: move
// it from this list to the compared cases.
struct Gap {
    fb::BuiltinOperator code;
    TT type;   // of one of the case's tensors
    // A further condition on the case's tensors and options (`what`, as Sweep::add names them);
    // nullptr: none.
    bool (*applies)(const std::vector<Spec>& ins, const std::vector<Spec>& outs, const std::string& what) = nullptr;
};

// Every reduced axis of size 1 (REDUCE_PROD's inputs: the tensor, then its axes as a constant).
bool singleElementProducts(const std::vector<Spec>& ins, const std::vector<Spec>&, const std::string&) {
    const std::vector<int32_t> axes = valuesOf<int32_t>(ins[1].constant.data(), ins[1].constant.size() / 4);
    const auto rank = static_cast<int32_t>(ins[0].shape.size());
    return std::all_of(axes.begin(), axes.end(), [&](int32_t a) { return ins[0].shape[static_cast<size_t>(a < 0 ? a + rank : a)] == 1; });
}

// BATCH_MATMUL with adj_x, both ranks above 2, the right side's third dimension from the end 1
// and the left side's not: TFLite folds that dimension away and writes the first left batch's
// product only; the rest of its output keeps what its arena held (other operators' values).
bool adjointLhsFolded(const std::vector<Spec>& ins, const std::vector<Spec>&, const std::string& what) {
    const std::vector<int32_t>&lhs = ins[0].shape, &rhs = ins[1].shape;
    return what.find("adj_x") != std::string::npos && lhs.size() > 2 && rhs.size() > 2 && rhs[rhs.size() - 3] == 1 &&
           lhs[lhs.size() - 3] != 1;
}

size_t elementSize(TT type) {
    if (type == kU8 || type == kI8) return 1;
    return type == kI16 ? 2 : 4;
}

// The same product with the right side's unit third dimension from the end tiled to the left
// side's: TFLite does not fold it and computes every batch. `data`: the input's bytes, or its
// constant's when it has one.
void tiledRightSide(std::vector<Spec>* ins, std::vector<std::vector<uint8_t>>* data) {
    Spec& rhs = (*ins)[1];
    const size_t rank = rhs.shape.size();
    const int32_t times = (*ins)[0].shape[(*ins)[0].shape.size() - 3];
    const size_t block = elementSize(rhs.type) * static_cast<size_t>(rhs.shape[rank - 2]) * static_cast<size_t>(rhs.shape[rank - 1]);
    std::vector<uint8_t>& bytes = (*data)[1];
    std::vector<uint8_t> tiled;
    for (size_t offset = 0; offset < bytes.size(); offset += block) {
        for (int32_t t = 0; t < times; ++t) tiled.insert(tiled.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset),
                                                         bytes.begin() + static_cast<std::ptrdiff_t>(offset + block));
    }
    bytes = std::move(tiled);
    rhs.shape[rank - 3] = times;
    if (!rhs.constant.empty()) rhs.constant = bytes;
}

const std::vector<Gap> kRefused = {
        // Quantized REDUCE_PROD over single elements: TFLite's optimized kernel drops the unit
        // dimensions, which leaves it no axis, and then reads the word before its axis
        // temporary to choose which dimensions to reduce: int8 and int16 [1, 2] over axis 0
        // (3 and 5 stored, scales equal) gave 15 and 0 alone in a model and 3 and 5 after two
        // other operators; an output it does not write keeps what the arena held. No kernel can
        // reproduce that, so the tools' kernel refuses the form.
        {fb::BuiltinOperator_REDUCE_PROD, kI8, singleElementProducts},
        {fb::BuiltinOperator_REDUCE_PROD, kI16, singleElementProducts},
};

// Forms whose TFLite output is not a function of the operator's inputs: the CPU path computes
// the operation, compared byte for byte with what TFLite gives for an equivalent form (`twin`,
// which rewrites the input specs and their bytes) that it computes in full.
struct Undetermined {
    fb::BuiltinOperator code;
    bool (*applies)(const std::vector<Spec>& ins, const std::vector<Spec>& outs, const std::string& what);
    void (*twin)(std::vector<Spec>* ins, std::vector<std::vector<uint8_t>>* data);
};
const std::vector<Undetermined> kUndetermined = {
        {fb::BuiltinOperator_BATCH_MATMUL, adjointLhsFolded, tiledRightSide},
};

const Undetermined* undetermined(fb::BuiltinOperator code, const std::vector<Spec>& ins, const std::vector<Spec>& outs,
                                 const std::string& what) {
    for (const Undetermined& form : kUndetermined) {
        if (form.code == code && form.applies(ins, outs, what)) return &form;
    }
    return nullptr;
}

bool refused(fb::BuiltinOperator code, const std::vector<Spec>& ins, const std::vector<Spec>& outs,
             const std::string& what) {
    const auto typed = [&](TT type) {
        const auto is = [type](const Spec& s) { return s.type == type; };
        return std::any_of(ins.begin(), ins.end(), is) || std::any_of(outs.begin(), outs.end(), is);
    };
    return std::any_of(kRefused.begin(), kRefused.end(), [&](const Gap& gap) {
        return gap.code == code && typed(gap.type) && (gap.applies == nullptr || gap.applies(ins, outs, what));
    });
}

// The random cases of one test and the model that holds them.
class Sweep {
public:
    // xnnpack: against TFLite's default delegate (tflite_run --xnnpack=1), nnemu's CPU path as it.
    explicit Sweep(uint32_t seed, bool xnnpack = false) : random_(seed), xnnpack_(xnnpack) {}

    int32_t pick(int32_t n) { return std::uniform_int_distribution<int32_t>(0, n - 1)(random_); }
    bool coin() { return pick(2) == 0; }
    double uniform(double low, double high) { return std::uniform_real_distribution<double>(low, high)(random_); }
    double logUniform(double low, double high) { return std::exp(uniform(std::log(low), std::log(high))); }
    template <typename T>
    T choose(std::initializer_list<T> values) {
        return *(values.begin() + pick(static_cast<int32_t>(values.size())));
    }
    fb::ActivationFunctionType activation() { return kActivations[pick(4)]; }

    // TFLite's zero points: anywhere in the 8-bit types' range, 0 for int16 (symmetric).
    int64_t zero(TT type) {
        if (type == kU8) return pick(256);
        if (type == kI8) return pick(256) - 128;
        return 0;
    }
    // A quantized tensor, its scale log-uniform over [low, high] (on extreme scales, one time in
    // three one of kExtremeScales instead).
    Spec q(TT type, std::vector<int32_t> shape, double low = 0.002, double high = 0.5) {
        const double scale = logUniform(low, high);
        return {std::move(shape), type, static_cast<float>(extreme(scale)), zero(type)};
    }
    // The same type and shape, the scale `s`'s times a log-uniform factor over [low, high].
    Spec rescaled(const Spec& s, std::vector<int32_t> shape, double low, double high) {
        const double scale = s.scale * logUniform(low, high);
        return {std::move(shape), s.type, static_cast<float>(extreme(scale)), zero(s.type)};
    }
    double extreme(double scale) {
        if (!gExtreme || pick(3) != 0) return scale;
        return kExtremeScales[pick(static_cast<int32_t>(std::size(kExtremeScales)))];
    }
    static Spec fixed(TT type, std::vector<int32_t> shape, float scale, int64_t zeroPoint) {
        return {std::move(shape), type, scale, zeroPoint};
    }

    // rank in [minRank, maxRank], each dimension in [1, maxDim] (on extreme scales, one shape in
    // eight has a dimension 0: an empty tensor).
    std::vector<int32_t> shape(int32_t minRank, int32_t maxRank, int32_t maxDim) {
        std::vector<int32_t> dims(static_cast<size_t>(minRank + pick(maxRank - minRank + 1)));
        for (int32_t& d : dims) d = 1 + pick(maxDim);
        if (gExtreme && !dims.empty() && pick(8) == 0) dims[static_cast<size_t>(pick(static_cast<int32_t>(dims.size())))] = 0;
        return dims;
    }
    // A shape `shape` broadcasts with: some dimensions 1, some leading ones dropped; the same
    // shape one time in three.
    std::vector<int32_t> broadcastOf(const std::vector<int32_t>& shape) {
        if (shape.empty() || pick(3) == 0) return shape;
        std::vector<int32_t> dims = shape;
        for (int32_t& d : dims) d = pick(3) == 0 ? d : 1;
        const auto drop = static_cast<size_t>(pick(static_cast<int32_t>(dims.size())));
        return std::vector<int32_t>(dims.begin() + static_cast<std::ptrdiff_t>(drop), dims.end());
    }

    template <typename T>
    std::vector<uint8_t> randomValues(size_t count, double low, double high) {
        std::vector<T> values(count);
        for (T& v : values) {
            v = std::is_floating_point_v<T> ? static_cast<T>(uniform(low, high))
                                            : static_cast<T>(std::llround(uniform(low, high)));
        }
        return GraphBuilder::bytes(values);
    }
    // Random bytes for a model input (floats and int32 over the spec's bounds).
    std::vector<uint8_t> inputFor(const Spec& s) {
        const size_t n = elementCount(s.shape);
        const auto bound = [](double value, double fallback) { return std::isnan(value) ? fallback : value; };
        if (s.type == fb::TensorType_FLOAT32) return randomValues<float>(n, bound(s.low, -4), bound(s.high, 4));
        if (s.type == fb::TensorType_INT32) return randomValues<int32_t>(n, bound(s.low, -50), bound(s.high, 50));
        if (s.type == kU8) return randomValues<uint8_t>(n, bound(s.low, 0), bound(s.high, 255));
        if (s.type == kI8) return randomValues<int8_t>(n, bound(s.low, -128), bound(s.high, 127));
        return randomValues<int16_t>(n, bound(s.low, -32768), bound(s.high, 32767));
    }
    // A random constant of the spec's type and shape.
    Spec randomConstant(Spec s) {
        s.constant = inputFor(s);
        return s;
    }

    // One case: the operator on `ins` gives `outs`; `what` names its options in failure messages.
    void add(fb::BuiltinOperator code, const std::vector<Spec>& ins, const std::vector<Spec>& outs,
             fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, GraphBuilder::Options options = nullptr,
             const std::string& what = "") {
        std::string name = "case " + std::to_string(cases_++) + " " + fb::EnumNameBuiltinOperator(code) + " " + what + " (";
        for (size_t i = 0; i < ins.size(); ++i) name += (i ? ", " : "") + describe(ins[i]);
        name += ") ->";
        for (const Spec& s : outs) name += " " + describe(s);
        if (gExtreme) return runAlone(name, oneOp(code, ins, outs, optionsType, std::move(options)), ins);
        if (refused(code, ins, outs, what)) {
            SCOPED_TRACE(name + ", a known gap");
            const std::unique_ptr<Model> model = oneOp(code, ins, outs, optionsType, options).build();
            ASSERT_NE(model, nullptr);
            const Result<std::unique_ptr<Interpreter>> created = Interpreter::create(*model, DelegateOptions{});
            EXPECT_FALSE(created.status().isOk()) << "the CPU path runs it now: remove it from kRefused";
            EXPECT_FALSE(created.status().message().empty());
            for (const Spec& s : ins) {
                if (s.constant.empty()) gapInputs_.push_back(inputFor(s));
            }
            addOp(gaps_, code, ins, outs, optionsType, std::move(options));
            return;
        }
        if (const Undetermined* form = undetermined(code, ins, outs, what)) {
            std::vector<std::vector<uint8_t>> data;
            for (const Spec& s : ins) data.push_back(s.constant.empty() ? inputFor(s) : s.constant);
            std::vector<Spec> twinIns = ins;
            std::vector<std::vector<uint8_t>> twinData = data;
            form->twin(&twinIns, &twinData);
            for (size_t i = 0; i < ins.size(); ++i) {
                if (!ins[i].constant.empty()) continue;
                looseInputs_.push_back(data[i]);
                twinInputs_.push_back(twinData[i]);
            }
            for (size_t o = 0; o < outs.size(); ++o) looseNames_.push_back(name + ", against TFLite's twin form");
            addOp(loose_, code, ins, outs, optionsType, options);
            addOp(twins_, code, twinIns, outs, optionsType, std::move(options));
            return;
        }
        for (const Spec& s : ins) {
            if (s.constant.empty()) inputs_.push_back(inputFor(s));
        }
        for (size_t o = 0; o < outs.size(); ++o) names_.push_back(name);
        addOp(g_, code, ins, outs, optionsType, std::move(options));
    }

    // Every case in one model: one tflite_run, nnemu's CPU path, byte for byte. The undetermined
    // forms in one model, against TFLite on their twins in another. The known gaps in one model
    // too: TFLite must run them.
    void expectSameAsTflite() {
        if (gExtreme) {
            std::cout << "extreme scales: " << ran_ << " of " << cases_ << " cases ran, " << refused_ << " refused\n";
            return;
        }
        if (!names_.empty()) expectCpuPathAsRealTflite(g_.buildBytes(), inputs_, 0, names_, xnnpack_);
        if (!looseNames_.empty()) {   // TFLite's builtin kernels on the twins, whatever xnnpack_
            expectCpuPathAsRealTflite(loose_.buildBytes(), looseInputs_, runRealTflite(twins_.buildBytes(), twinInputs_), 0,
                                      looseNames_);
        }
        if (gapInputs_.empty()) return;
        const RealTfliteResult real = runRealTflite(gaps_.buildBytes(), gapInputs_);
        EXPECT_TRUE(real.ok) << "TFLite refuses a known gap:\n" << real.log;
    }

private:
    // An extreme-scales case: its own model through nnemu's CPU path, which runs it or refuses it
    // (when loaded, created or invoked) with a message.
    void runAlone(const std::string& name, const GraphBuilder& g, const std::vector<Spec>& ins) {
        SCOPED_TRACE(name);
        const Result<std::unique_ptr<Model>> model = Model::fromBuffer(g.buildBytes());
        Status status = model.status();
        if (model) {
            DelegateOptions options;
            options.xnnpack = xnnpack_;
            const Result<std::unique_ptr<Interpreter>> created = Interpreter::create(**model, options);
            status = created.status();
            if (created) {
                size_t input = 0;
                for (const Spec& s : ins) {
                    if (!s.constant.empty()) continue;
                    const std::vector<uint8_t> bytes = inputFor(s);
                    ASSERT_EQ(bytes.size(), (*created)->inputTensor(input).byteSize());
                    if (!bytes.empty()) std::memcpy((*created)->inputData(input), bytes.data(), bytes.size());
                    ++input;
                }
                status = (*created)->invoke();
            }
        }
        if (status) {
            ++ran_;
        } else {
            EXPECT_FALSE(status.message().empty());
            ++refused_;
        }
    }

    int ran_ = 0, refused_ = 0;
    std::mt19937 random_;
    bool xnnpack_ = false;
    GraphBuilder g_, gaps_, loose_, twins_;
    std::vector<std::vector<uint8_t>> inputs_, gapInputs_, looseInputs_, twinInputs_;
    std::vector<std::string> names_, looseNames_;
    int cases_ = 0;
};

std::string activationName(fb::ActivationFunctionType act) { return fb::EnumNameActivationFunctionType(act); }


// The fixture of both instantiations (usual and extreme scales, gExtreme).
class RealTfliteQuantizedSweep : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override { gExtreme = GetParam(); }
    void TearDown() override { gExtreme = false; }
};
#define SWEEP_TEST(name) TEST_P(RealTfliteQuantizedSweep, name)
// Extreme scales run without TFLite.
#define REQUIRE()                                  \
    do {                                           \
        if (!gExtreme) NNEMU_REQUIRE_REAL_TFLITE(); \
    } while (false)

// ---- binary arithmetic, broadcast either way, fused activations; int16 on TFLite's general
// scale path (pot_scale_int16 false) and on its power-of-two one
void addSub(fb::BuiltinOperator code, uint32_t seed, bool xnnpack = false) {
    Sweep s(seed, xnnpack);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const std::vector<int32_t> shape = s.shape(1, 4, 6);
        Spec a = s.q(type, shape), b = s.rescaled(a, s.broadcastOf(shape), 0.1, 10);
        if (s.coin()) std::swap(a, b);
        Spec out = s.rescaled(a.scale > b.scale ? a : b, shape, 0.5, 4);
        // int16 one time in three on TFLite's power-of-two path: the input scales powers of two,
        // the output's the larger of them (TFLite requires one input's scale on the output), no
        // broadcast (with one, tflite_run failed without a message on some runs: not a form to
        // compare against).
        const bool pot = type == kI16 && s.pick(3) == 0;
        if (pot) {
            for (Spec* spec : {&a, &b}) {
                spec->scale = std::ldexp(1.0f, -(8 + s.pick(8)));
                spec->shape = shape;
            }
            out.scale = std::max(a.scale, b.scale);
        }
        const fb::ActivationFunctionType act = s.activation();
        const bool add = code == fb::BuiltinOperator_ADD;
        s.add(code, {a, b}, {out}, add ? fb::BuiltinOptions_AddOptions : fb::BuiltinOptions_SubOptions,
              [act, add, pot](flatbuffers::FlatBufferBuilder& fbb) {
                  return add ? fb::CreateAddOptions(fbb, act, pot).Union() : fb::CreateSubOptions(fbb, act, pot).Union();
              },
              activationName(act) + (pot ? " pot_scale_int16" : ""));
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(Add) { REQUIRE(); addSub(fb::BuiltinOperator_ADD, 101); }
// Against TFLite's default delegate: the 8-bit cases XNNPACK claims (XnnpackForms.cpp) compute its
// arithmetic, the int16 ones (which it leaves) TFLite's builtin kernel's.
SWEEP_TEST(AddXnnpack) { REQUIRE(); addSub(fb::BuiltinOperator_ADD, 101, true); }
SWEEP_TEST(Sub) { REQUIRE(); addSub(fb::BuiltinOperator_SUB, 102); }

void mul(bool xnnpack) {
    Sweep s(103, xnnpack);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const std::vector<int32_t> shape = s.shape(1, 4, 6);
        Spec a = s.q(type, shape), b = s.q(type, s.broadcastOf(shape));
        if (s.coin()) std::swap(a, b);
        Spec out = s.q(type, shape);
        out.scale = static_cast<float>(a.scale * b.scale * (type == kI16 ? s.logUniform(4000, 60000) : s.logUniform(16, 256)));
        const fb::ActivationFunctionType act = s.activation();
        s.add(fb::BuiltinOperator_MUL, {a, b}, {out}, fb::BuiltinOptions_MulOptions,
              [act](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateMulOptions(fbb, act).Union(); },
              activationName(act));
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(Mul) { REQUIRE(); mul(false); }
// Against TFLite's default delegate: the 8-bit cases XNNPACK claims compute its arithmetic.
SWEEP_TEST(MulXnnpack) { REQUIRE(); mul(true); }

SWEEP_TEST(SquaredDifference) {
    REQUIRE();
    Sweep s(104);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = kI8;   // TFLite's kernel: int8 only
        const std::vector<int32_t> shape = s.shape(1, 4, 6);
        Spec a = s.q(type, shape), b = s.rescaled(a, s.broadcastOf(shape), 0.3, 3);
        if (s.coin()) std::swap(a, b);
        Spec out = s.q(type, shape);
        out.scale = static_cast<float>(std::max(a.scale, b.scale) * std::max(a.scale, b.scale) * s.logUniform(16, 512));
        s.add(fb::BuiltinOperator_SQUARED_DIFFERENCE, {a, b}, {out});
    }
    s.expectSameAsTflite();
}

// TFLite compares the stored values; the same quantization everywhere one time in two.
void maxMin(fb::BuiltinOperator code, uint32_t seed) {
    Sweep s(seed);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const std::vector<int32_t> shape = s.shape(1, 4, 6);
        Spec a = s.q(type, shape), b = a, out = a;
        b.shape = s.broadcastOf(shape);
        if (s.coin()) {
            b = s.rescaled(a, b.shape, 0.3, 3);
            out = s.rescaled(a, shape, 0.3, 3);
        }
        if (s.coin()) std::swap(a, b);
        s.add(code, {a, b}, {out});
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(Maximum) { REQUIRE(); maxMin(fb::BuiltinOperator_MAXIMUM, 105); }
SWEEP_TEST(Minimum) { REQUIRE(); maxMin(fb::BuiltinOperator_MINIMUM, 106); }

// ---- comparisons: TFLite rescales 8-bit inputs quantized otherwise onto a common scale
SWEEP_TEST(Comparisons) {
    REQUIRE();
    Sweep s(135);
    for (int i = 0; i < caseCount(); ++i) {
        const fb::BuiltinOperator code =
                s.choose({fb::BuiltinOperator_EQUAL, fb::BuiltinOperator_NOT_EQUAL, fb::BuiltinOperator_LESS,
                          fb::BuiltinOperator_LESS_EQUAL, fb::BuiltinOperator_GREATER, fb::BuiltinOperator_GREATER_EQUAL});
        const TT type = s.choose({kU8, kI8});
        const std::vector<int32_t> shape = s.shape(1, 4, 6);
        Spec a = s.q(type, shape), b = s.pick(4) == 0 ? Spec{s.broadcastOf(shape), type, a.scale, a.zeroPoint}
                                                       : s.rescaled(a, s.broadcastOf(shape), 0.5, 2);
        if (s.coin()) std::swap(a, b);
        s.add(code, {a, b}, {boolean(shape)});
    }
    s.expectSameAsTflite();
}

// ---- DIV (uint8, the only quantized type TFLite's kernel takes); no divisor at its zero point
SWEEP_TEST(Div) {
    REQUIRE();
    Sweep s(136);
    for (int i = 0; i < caseCount(); ++i) {
        const std::vector<int32_t> shape = s.shape(1, 4, 6);
        Spec a = s.q(kU8, shape), b = s.q(kU8, s.broadcastOf(shape));
        b.zeroPoint = s.pick(128);
        b = range(b, static_cast<double>(b.zeroPoint + 1), 255);
        Spec out = s.q(kU8, shape);
        out.scale = static_cast<float>(a.scale / b.scale * s.logUniform(0.5, 8));
        const fb::ActivationFunctionType act = s.activation();
        s.add(fb::BuiltinOperator_DIV, {a, b}, {out}, fb::BuiltinOptions_DivOptions,
              [act](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateDivOptions(fbb, act).Union(); },
              activationName(act));
    }
    s.expectSameAsTflite();
}

// ---- pooling: NHWC, SAME or VALID, strides 1-2, fused activations
void pool(fb::BuiltinOperator code, uint32_t seed) {
    Sweep s(seed);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const int32_t n = 1 + s.pick(2), h = 1 + s.pick(9), w = 1 + s.pick(9), c = 1 + s.pick(6);
        const int32_t fh = 1 + s.pick(std::min(h, 4)), fw = 1 + s.pick(std::min(w, 4)), sh = 1 + s.pick(2),
                      sw = 1 + s.pick(2);
        const bool same = s.coin();
        const int32_t oh = same ? (h + sh - 1) / sh : (h - fh) / sh + 1, ow = same ? (w + sw - 1) / sw : (w - fw) / sw + 1;
        const Spec in = s.q(type, {n, h, w, c});
        // TFLite's kernels take the input's quantization only (a debug assertion; its release
        // build ignores the output's but for the activation's bounds).
        Spec out = in;
        out.shape = {n, oh, ow, c};
        const fb::ActivationFunctionType act = s.activation();
        const fb::Padding padding = same ? fb::Padding_SAME : fb::Padding_VALID;
        s.add(code, {in}, {out}, fb::BuiltinOptions_Pool2DOptions,
              [=](flatbuffers::FlatBufferBuilder& fbb) {
                  return fb::CreatePool2DOptions(fbb, padding, sw, sh, fw, fh, act).Union();
              },
              std::string(same ? "SAME" : "VALID") + " filter " + std::to_string(fh) + "x" + std::to_string(fw) +
                      " stride " + std::to_string(sh) + "x" + std::to_string(sw) + " " + activationName(act));
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(AveragePool) { REQUIRE(); pool(fb::BuiltinOperator_AVERAGE_POOL_2D, 107); }
SWEEP_TEST(MaxPool) { REQUIRE(); pool(fb::BuiltinOperator_MAX_POOL_2D, 108); }

// ---- reductions over random axes, keep_dims either way
void reduce(fb::BuiltinOperator code, std::initializer_list<TT> types, uint32_t seed, bool xnnpack = false) {
    Sweep s(seed, xnnpack);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose(types);
        // A product's scale is the input's to the power of the count: few elements reduced.
        const std::vector<int32_t> shape = code == fb::BuiltinOperator_REDUCE_PROD ? s.shape(1, 2, 2) : s.shape(1, 4, 6);
        const auto rank = static_cast<int32_t>(shape.size());
        std::vector<int32_t> axes;
        for (int32_t d = 0; d < rank; ++d) {
            if (s.coin()) axes.push_back(s.coin() ? d - rank : d);
        }
        if (axes.empty()) axes.push_back(s.pick(rank));
        const bool keep = s.coin();
        std::vector<int32_t> outShape;
        for (int32_t d = 0; d < rank; ++d) {
            const bool reduced = std::any_of(axes.begin(), axes.end(), [&](int32_t a) { return (a < 0 ? a + rank : a) == d; });
            if (!reduced) outShape.push_back(shape[static_cast<size_t>(d)]);
            else if (keep) outShape.push_back(1);
        }
        const Spec in = s.q(type, shape);
        size_t count = elementCount(shape) / std::max<size_t>(1, elementCount(outShape));
        double factor = code == fb::BuiltinOperator_SUM ? std::sqrt(static_cast<double>(count)) : 1;
        Spec out = s.rescaled(in, outShape, 0.5 * factor, 2 * factor);
        // TFLite's REDUCE_MAX and REDUCE_MIN take the input's quantization only; MEAN has a path
        // of its own for it (one case in six).
        if (code == fb::BuiltinOperator_REDUCE_MAX || code == fb::BuiltinOperator_REDUCE_MIN ||
            (code == fb::BuiltinOperator_MEAN && s.pick(6) == 0)) {
            out = {outShape, type, in.scale, in.zeroPoint};
        }
        if (code == fb::BuiltinOperator_REDUCE_PROD) {
            const double values = type == kI16 ? 3000 : 40;   // a typical stored magnitude
            out.scale = static_cast<float>(std::pow(in.scale * values, static_cast<double>(count)) / (type == kI16 ? 3000 : 60) *
                                           s.logUniform(0.5, 2));
        }
        std::string axesText = "axes {";
        for (size_t a = 0; a < axes.size(); ++a) axesText += (a ? "," : "") + std::to_string(axes[a]);
        s.add(code, {in, constantOf<int32_t>({static_cast<int32_t>(axes.size())}, fb::TensorType_INT32, axes)}, {out},
              fb::BuiltinOptions_ReducerOptions,
              [keep](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateReducerOptions(fbb, keep).Union(); },
              axesText + "}" + (keep ? " keep_dims" : ""));
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(Mean) { REQUIRE(); reduce(fb::BuiltinOperator_MEAN, {kU8, kI8, kI16}, 109); }
// Against TFLite's default delegate: the 8-bit means XNNPACK claims compute its arithmetic.
SWEEP_TEST(MeanXnnpack) { REQUIRE(); reduce(fb::BuiltinOperator_MEAN, {kU8, kI8, kI16}, 109, true); }
// Exact halves against TFLite's default delegate: means of two values, the output quantized as
// the input, so that half the outputs are ties (XNNPACK's uint8 MEAN rounds them up, its int8
// one to even).
SWEEP_TEST(MeanXnnpackTies) {
    REQUIRE();
    Sweep s(138, true);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8});
        const int32_t rows = 1 + s.pick(8);
        const Spec in = s.q(type, {rows, 2});
        const Spec out{{rows}, type, in.scale, in.zeroPoint};
        s.add(fb::BuiltinOperator_MEAN, {in, constantOf<int32_t>({1}, fb::TensorType_INT32, {1})}, {out},
              fb::BuiltinOptions_ReducerOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateReducerOptions(fbb, false).Union(); },
              "axes {1}");
    }
    s.expectSameAsTflite();
}
// MEAN's own path: 4-D over height and width with keep_dims (8-bit; int16 takes the reference
// path there too), one case in four quantized as the input
SWEEP_TEST(MeanHeightWidth) {
    REQUIRE();
    Sweep s(135);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const std::vector<int32_t> shape = {1 + s.pick(2), 1 + s.pick(7), 1 + s.pick(7), 1 + s.pick(5)};
        const std::vector<int32_t> outShape = {shape[0], 1, 1, shape[3]};
        const Spec in = s.q(type, shape);
        Spec out = s.rescaled(in, outShape, 0.5, 2);
        if (s.pick(4) == 0) out = {outShape, type, in.scale, in.zeroPoint};
        const std::vector<int32_t> axes = s.coin() ? std::vector<int32_t>{1, 2} : std::vector<int32_t>{2, 1};
        s.add(fb::BuiltinOperator_MEAN, {in, constantOf<int32_t>({2}, fb::TensorType_INT32, axes)}, {out},
              fb::BuiltinOptions_ReducerOptions,
              [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateReducerOptions(fbb, true).Union(); }, "");
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(Sum) { REQUIRE(); reduce(fb::BuiltinOperator_SUM, {kU8, kI8, kI16}, 110); }
SWEEP_TEST(ReduceMax) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MAX, {kU8, kI8, kI16}, 111); }
SWEEP_TEST(ReduceMin) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MIN, {kU8, kI8, kI16}, 112); }
SWEEP_TEST(ReduceProd) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_PROD, {kI8, kI16}, 137); }

// ---- CONCATENATION: 2-4 inputs, each uint8 one quantized its own way
void concatenation(bool xnnpack) {
    Sweep s(113, xnnpack);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        std::vector<int32_t> shape = s.shape(1, 4, 5);
        const auto rank = static_cast<int32_t>(shape.size());
        const int32_t axis = s.pick(rank);
        std::vector<Spec> ins;
        int32_t total = 0;
        const int32_t count = 2 + s.pick(3);
        for (int32_t k = 0; k < count; ++k) {
            shape[static_cast<size_t>(axis)] = 1 + s.pick(4);
            total += shape[static_cast<size_t>(axis)];
            // TFLite's int8 and int16 kernels take one quantization for all; uint8 rescales.
            const bool same = k > 0 && (type != kU8 || s.pick(4) == 0);
            ins.push_back(same ? Spec{shape, type, ins[0].scale, ins[0].zeroPoint} : s.q(type, shape));
        }
        shape[static_cast<size_t>(axis)] = total;
        const Spec out = type != kU8 ? Spec{shape, type, ins[0].scale, ins[0].zeroPoint} : s.rescaled(ins[0], shape, 0.3, 3);
        const int32_t written = s.coin() ? axis - rank : axis;
        s.add(fb::BuiltinOperator_CONCATENATION, ins, {out}, fb::BuiltinOptions_ConcatenationOptions,
              [written](flatbuffers::FlatBufferBuilder& fbb) {
                  return fb::CreateConcatenationOptions(fbb, written).Union();
              },
              "axis " + std::to_string(written));
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(Concatenation) { REQUIRE(); concatenation(false); }
// Against TFLite's default delegate (tflite_run --xnnpack=1), rescaling uint8 copies included: the
// same bytes as TFLite's builtin kernel, so nnemu keeps the builtin path; this pins that.
// Against TFLite's default delegate (tflite_run --xnnpack=1), rescaling uint8 copies included: the
// same bytes as TFLite's builtin kernel, so nnemu keeps the builtin path; this pins that.
SWEEP_TEST(ConcatenationXnnpack) { REQUIRE(); concatenation(true); }

// ---- resizes: align_corners, half_pixel_centers or neither; the output requantized one time in four
void resize(fb::BuiltinOperator code, uint32_t seed) {
    Sweep s(seed);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const int32_t n = 1 + s.pick(2), h = 1 + s.pick(7), w = 1 + s.pick(7), c = 1 + s.pick(4);
        const int32_t oh = 1 + s.pick(12), ow = 1 + s.pick(12);
        const int32_t mode = s.pick(3);
        const bool align = mode == 1, half = mode == 2;
        const Spec in = s.q(type, {n, h, w, c});
        Spec out = in;
        out.shape = {n, oh, ow, c};
        if (s.pick(4) == 0) out = s.rescaled(in, out.shape, 0.5, 2);
        const Spec size = constantOf<int32_t>({2}, fb::TensorType_INT32, {oh, ow});
        const bool bilinear = code == fb::BuiltinOperator_RESIZE_BILINEAR;
        s.add(code, {in, size}, {out},
              bilinear ? fb::BuiltinOptions_ResizeBilinearOptions : fb::BuiltinOptions_ResizeNearestNeighborOptions,
              [=](flatbuffers::FlatBufferBuilder& fbb) {
                  return bilinear ? fb::CreateResizeBilinearOptions(fbb, align, half).Union()
                                  : fb::CreateResizeNearestNeighborOptions(fbb, align, half).Union();
              },
              std::string(align ? "align_corners" : half ? "half_pixel_centers" : "plain"));
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(ResizeBilinear) { REQUIRE(); resize(fb::BuiltinOperator_RESIZE_BILINEAR, 114); }
SWEEP_TEST(ResizeNearestNeighbor) { REQUIRE(); resize(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, 115); }

// ---- activations with TFLite's fixed output quantizations
struct FixedOut {
    TT type;
    float scale;
    int64_t zeroPoint;
};
void fixedOutput(fb::BuiltinOperator code, const std::vector<FixedOut>& forms, uint32_t seed,
                 fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE,
                 std::function<std::pair<GraphBuilder::Options, std::string>(Sweep&)> options = nullptr,
                 int cases = caseCount(), bool xnnpack = false) {
    Sweep s(seed, xnnpack);
    for (int i = 0; i < cases; ++i) {
        const FixedOut& form = forms[static_cast<size_t>(s.pick(static_cast<int32_t>(forms.size())))];
        const std::vector<int32_t> shape = s.shape(1, 4, 7);
        const Spec in = form.type == kI16 ? s.q(kI16, shape, 1e-4, 2e-3) : s.q(form.type, shape, 0.005, 0.3);
        std::pair<GraphBuilder::Options, std::string> chosen{nullptr, ""};
        if (options) chosen = options(s);
        s.add(code, {in}, {Sweep::fixed(form.type, shape, form.scale, form.zeroPoint)}, optionsType, chosen.first,
              chosen.second);
    }
    s.expectSameAsTflite();
}
std::pair<GraphBuilder::Options, std::string> softmaxBeta(Sweep& s) {
    const auto beta = static_cast<float>(s.logUniform(0.1, 3));
    return {[beta](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateSoftmaxOptions(fbb, beta).Union(); },
            "beta " + std::to_string(beta)};
}
const std::vector<FixedOut> kSoftmaxForms = {{kU8, 1.0f / 256, 0}, {kI8, 1.0f / 256, -128}, {kI16, 1.0f / 32768, 0}};
SWEEP_TEST(Softmax) {
    REQUIRE();
    fixedOutput(fb::BuiltinOperator_SOFTMAX, kSoftmaxForms, 116, fb::BuiltinOptions_SoftmaxOptions, softmaxBeta);
}
// 1500 cases: case 680 (int8 [4,7,7,3], scale 0.0659/76, beta 0.556) found nnapi-reference's
// fixed-point softmax a step from TFLite's float-table kernel on one byte of 588 (the 200 cases
// above all agreed); the CPU path runs TFLite's kernel now (QuantizedSoftmax.cpp).
SWEEP_TEST(SoftmaxManyCases) {
    REQUIRE();
    fixedOutput(fb::BuiltinOperator_SOFTMAX, kSoftmaxForms, 116, fb::BuiltinOptions_SoftmaxOptions, softmaxBeta, gExtreme ? caseCount() : 1500);
}
SWEEP_TEST(Logistic) {
    REQUIRE();
    fixedOutput(fb::BuiltinOperator_LOGISTIC, {{kU8, 1.0f / 256, 0}, {kI8, 1.0f / 256, -128}, {kI16, 1.0f / 32768, 0}}, 117);
}
// Against TFLite's default delegate (tflite_run --xnnpack=1): the same bytes as TFLite's builtin
// kernel on these cases, so nnemu keeps the builtin path; this pins that.
SWEEP_TEST(LogisticXnnpack) {
    REQUIRE();
    fixedOutput(fb::BuiltinOperator_LOGISTIC, {{kU8, 1.0f / 256, 0}, {kI8, 1.0f / 256, -128}, {kI16, 1.0f / 32768, 0}}, 117,
                fb::BuiltinOptions_NONE, nullptr, caseCount(), true);
}
SWEEP_TEST(Tanh) {
    REQUIRE();
    fixedOutput(fb::BuiltinOperator_TANH, {{kU8, 1.0f / 128, 128}, {kI8, 1.0f / 128, 0}, {kI16, 1.0f / 32768, 0}}, 118);
}
// int16 LOGISTIC and TANH on TFLite's power-of-two path (input scale 2^-12, TANH also 2^-11):
// gemmlowp's 16-bit functions instead of the lookup table
SWEEP_TEST(Int16PowerOfTwoActivations) {
    REQUIRE();
    Sweep s(136);
    for (int i = 0; i < caseCount(); ++i) {
        const bool tanh = s.coin();
        const float scale = tanh && s.coin() ? 1.0f / 2048 : 1.0f / 4096;
        const std::vector<int32_t> shape = s.shape(1, 4, 7);
        s.add(tanh ? fb::BuiltinOperator_TANH : fb::BuiltinOperator_LOGISTIC, {Sweep::fixed(kI16, shape, scale, 0)},
              {Sweep::fixed(kI16, shape, 1.0f / 32768, 0)});
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(L2Normalization) {
    REQUIRE();
    fixedOutput(fb::BuiltinOperator_L2_NORMALIZATION, {{kU8, 1.0f / 128, 128}, {kI8, 1.0f / 128, 0}}, 119);
}
SWEEP_TEST(LogSoftmax) {
    REQUIRE();
    fixedOutput(fb::BuiltinOperator_LOG_SOFTMAX, {{kU8, 16.0f / 256, 255}, {kI8, 16.0f / 256, 127}}, 120);
}

// ---- activations that requantize to any output quantization
void rescaling(fb::BuiltinOperator code, std::initializer_list<TT> types, uint32_t seed, double low, double high,
               fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE,
               std::function<std::pair<GraphBuilder::Options, std::string>(Sweep&)> options = nullptr,
               bool xnnpack = false) {
    Sweep s(seed, xnnpack);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose(types);
        const std::vector<int32_t> shape = s.shape(1, 4, 7);
        const Spec in = type == kI16 ? s.q(kI16, shape, 1e-4, 2e-3) : s.q(type, shape, 0.005, 0.3);
        std::pair<GraphBuilder::Options, std::string> chosen{nullptr, ""};
        if (options) chosen = options(s);
        s.add(code, {in}, {s.rescaled(in, shape, low, high)}, optionsType, chosen.first, chosen.second);
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(HardSwish) { REQUIRE(); rescaling(fb::BuiltinOperator_HARD_SWISH, {kU8, kI8}, 121, 0.3, 3); }
SWEEP_TEST(Elu) { REQUIRE(); rescaling(fb::BuiltinOperator_ELU, {kI8}, 122, 0.3, 3); }
SWEEP_TEST(Relu) { REQUIRE(); rescaling(fb::BuiltinOperator_RELU, {kU8, kI8, kI16}, 123, 0.3, 3); }
SWEEP_TEST(Relu6) { REQUIRE(); rescaling(fb::BuiltinOperator_RELU6, {kU8, kI8}, 124, 0.1, 2); }
SWEEP_TEST(ReluN1To1) { REQUIRE(); rescaling(fb::BuiltinOperator_RELU_N1_TO_1, {kU8, kI8}, 125, 0.05, 1); }
SWEEP_TEST(Relu0To1) { REQUIRE(); rescaling(fb::BuiltinOperator_RELU_0_TO_1, {kU8, kI8}, 126, 0.05, 1); }
SWEEP_TEST(Gelu) {
    REQUIRE();
    rescaling(fb::BuiltinOperator_GELU, {kU8, kI8}, 127, 0.3, 3, fb::BuiltinOptions_GeluOptions, [](Sweep& s) {
        const bool approximate = s.coin();
        return std::make_pair(GraphBuilder::Options([approximate](flatbuffers::FlatBufferBuilder& fbb) {
                                  return fb::CreateGeluOptions(fbb, approximate).Union();
                              }),
                              std::string(approximate ? "approximate" : "exact"));
    });
}
std::pair<GraphBuilder::Options, std::string> leakyAlpha(Sweep& s) {
    const auto alpha = static_cast<float>(s.pick(4) == 0 ? s.uniform(1, 3) : s.uniform(0.01, 0.99));
    return std::make_pair(GraphBuilder::Options([alpha](flatbuffers::FlatBufferBuilder& fbb) {
                              return fb::CreateLeakyReluOptions(fbb, alpha).Union();
                          }),
                          "alpha " + std::to_string(alpha));
}
SWEEP_TEST(LeakyRelu) {
    REQUIRE();
    rescaling(fb::BuiltinOperator_LEAKY_RELU, {kU8, kI8, kI16}, 128, 0.3, 3, fb::BuiltinOptions_LeakyReluOptions, leakyAlpha);
}
// Against TFLite's default delegate: the 8-bit cases whose scale ratios XNNPACK accepts compute
// its arithmetic (Activation.cpp), the others and int16 the builtin kernel's.
SWEEP_TEST(LeakyReluXnnpack) {
    REQUIRE();
    rescaling(fb::BuiltinOperator_LEAKY_RELU, {kU8, kI8, kI16}, 128, 0.3, 3, fb::BuiltinOptions_LeakyReluOptions, leakyAlpha,
              true);
}
SWEEP_TEST(Abs) { REQUIRE(); rescaling(fb::BuiltinOperator_ABS, {kI8, kI16}, 129, 0.3, 3); }

SWEEP_TEST(Prelu) {
    REQUIRE();
    Sweep s(130);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8});
        const std::vector<int32_t> shape = s.shape(1, 4, 6);
        const Spec in = s.q(type, shape, 0.005, 0.3);
        Spec alpha = s.q(type, s.broadcastOf(shape), 0.001, 0.02);
        if (s.coin()) alpha = s.randomConstant(alpha);
        s.add(fb::BuiltinOperator_PRELU, {in, alpha}, {s.rescaled(in, shape, 0.3, 3)});
    }
    s.expectSameAsTflite();
}

// ---- QUANTIZE (float to integers and requantizing), DEQUANTIZE
SWEEP_TEST(Quantize) {
    REQUIRE();
    Sweep s(131);
    const std::vector<std::pair<TT, TT>> pairs = {{kU8, kU8}, {kU8, kI8}, {kI8, kI8}, {kI8, kU8}, {kI16, kI16},
                                                  {kI16, kI8}, {fb::TensorType_FLOAT32, kU8},
                                                  {fb::TensorType_FLOAT32, kI8}, {fb::TensorType_FLOAT32, kI16}};
    for (int i = 0; i < caseCount(); ++i) {
        const auto [from, to] = pairs[static_cast<size_t>(s.pick(static_cast<int32_t>(pairs.size())))];
        const std::vector<int32_t> shape = s.shape(1, 4, 7);
        Spec out = to == kI16 ? s.q(kI16, shape, 1e-4, 2e-3) : s.q(to, shape, 0.005, 0.3);
        Spec in;
        if (from == fb::TensorType_FLOAT32) {
            const double span = (to == kI16 ? 40000 : 300) * out.scale;
            in = f32(shape, -span, span);
        } else {
            in = from == kI16 ? s.q(kI16, shape, 1e-4, 2e-3) : s.q(from, shape, 0.005, 0.3);
            out.scale = static_cast<float>(in.scale * s.logUniform(to == kI8 && from == kI16 ? 30 : 0.3,
                                                                   to == kI8 && from == kI16 ? 600 : 3));
        }
        s.add(fb::BuiltinOperator_QUANTIZE, {in}, {out});
    }
    s.expectSameAsTflite();
}
SWEEP_TEST(Dequantize) {
    REQUIRE();
    Sweep s(132);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const std::vector<int32_t> shape = s.shape(1, 4, 7);
        s.add(fb::BuiltinOperator_DEQUANTIZE, {s.q(type, shape, 1e-4, 0.5)}, {f32(shape)});
    }
    s.expectSameAsTflite();
}

// ---- BATCH_MATMUL: batches broadcast either way (ranks 2 to 5, differing), either side
// transposed, the right side a constant one time in two

// One case's shapes: `batch` and a broadcast of it (either side), [m, k] x [k, n] with random
// adj_x and adj_y.
struct MatmulShapes {
    std::vector<int32_t> lhs, rhs, out;
    bool adjX, adjY;
};
MatmulShapes matmulShapes(Sweep& s, int32_t m, int32_t k, int32_t n, const std::vector<int32_t>& batch) {
    MatmulShapes c{batch, {}, batch, s.coin(), s.coin()};
    c.rhs = s.broadcastOf(batch);
    if (s.pick(3) == 0) std::swap(c.lhs, c.rhs);
    c.lhs.insert(c.lhs.end(), {c.adjX ? k : m, c.adjX ? m : k});
    c.rhs.insert(c.rhs.end(), {c.adjY ? n : k, c.adjY ? k : n});
    c.out.insert(c.out.end(), {m, n});
    return c;
}
void addMatmul(Sweep& s, const MatmulShapes& c, const Spec& lhs, const Spec& rhs, const Spec& out) {
    const bool adjX = c.adjX, adjY = c.adjY;
    s.add(fb::BuiltinOperator_BATCH_MATMUL, {lhs, rhs}, {out}, fb::BuiltinOptions_BatchMatMulOptions,
          [adjX, adjY](flatbuffers::FlatBufferBuilder& fbb) {
              return fb::CreateBatchMatMulOptions(fbb, adjX, adjY).Union();
          },
          std::string(adjX ? "adj_x " : "") + (adjY ? "adj_y" : ""));
}

SWEEP_TEST(BatchMatMul) {
    REQUIRE();
    Sweep s(133);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kI8, kI16});
        const int32_t m = 1 + s.pick(6), k = 1 + s.pick(9), n = 1 + s.pick(6);
        const std::vector<int32_t> batch = s.shape(0, 3, 3);
        const MatmulShapes c = matmulShapes(s, m, k, n, batch);
        const Spec lhs = type == kI16 ? s.q(kI16, c.lhs, 1e-4, 2e-3) : s.q(type, c.lhs);
        Spec rhs = type == kI16 ? s.q(kI16, c.rhs, 1e-4, 2e-3) : s.q(type, c.rhs);
        if (s.coin()) rhs = s.randomConstant(rhs);
        Spec out = s.q(type, c.out);
        const double sums = std::sqrt(static_cast<double>(k));
        out.scale = static_cast<float>(lhs.scale * rhs.scale * sums *
                                       (type == kI16 ? s.logUniform(3000, 40000) : s.logUniform(16, 256)));
        addMatmul(s, c, lhs, rhs, out);
    }
    s.expectSameAsTflite();
}

// float32, the same forms, bit for bit: the broadcasts, differing ranks and rank 5 on the tools'
// kernel, the equal batches of rank 2 to 4 on nnapi-reference (TFLite's x86 kernel sums each
// output from 0 in the depth's order, as both do); small, medium and deep (600 to 2000) depths,
// one row or one column, the right side constant or not
SWEEP_TEST(BatchMatMulFloat) {
    REQUIRE();
    Sweep s(233);
    for (int i = 0; i < caseCount(); ++i) {
        const int32_t size = s.pick(3);
        const int32_t m = 1 + s.pick(size == 0 ? 6 : size == 1 ? 20 : 5);
        const int32_t k = size == 0 ? 1 + s.pick(9) : size == 1 ? 1 + s.pick(100) : 600 + s.pick(1400);
        const int32_t n = 1 + s.pick(size == 0 ? 6 : size == 1 ? 40 : 10);
        const MatmulShapes c = matmulShapes(s, m, k, n, size == 2 ? s.shape(0, 2, 2) : s.shape(0, 3, 3));
        Spec rhs = f32(c.rhs);
        if (s.coin()) rhs = s.randomConstant(rhs);
        addMatmul(s, c, f32(c.lhs), rhs, f32(c.out));
    }
    s.expectSameAsTflite();
}

// ---- TRANSPOSE_CONV: uint8, int8 (filter per tensor or per channel), int16 activations with
// int8 filters; SAME or VALID, strides 1-2, with or without a bias
SWEEP_TEST(TransposeConv) {
    REQUIRE();
    Sweep s(134);
    for (int i = 0; i < caseCount(); ++i) {
        const TT type = s.choose({kU8, kI8, kI16});
        const int32_t n = 1 + s.pick(2), h = 1 + s.pick(5), w = 1 + s.pick(5), ci = 1 + s.pick(4), co = 1 + s.pick(4);
        const int32_t kh = 1 + s.pick(3), kw = 1 + s.pick(3), sh = 1 + s.pick(2), sw = 1 + s.pick(2);
        const bool same = s.coin();
        const int32_t oh = same ? h * sh : (h - 1) * sh + kh, ow = same ? w * sw : (w - 1) * sw + kw;
        const Spec in = type == kI16 ? s.q(kI16, {n, h, w, ci}, 1e-4, 2e-3) : s.q(type, {n, h, w, ci});
        const TT filterType = type == kU8 ? kU8 : kI8;
        Spec filter = s.randomConstant({{co, kh, kw, ci}, filterType, static_cast<float>(s.logUniform(0.002, 0.05)),
                                        filterType == kU8 ? s.zero(kU8) : 0});
        if (type != kU8 && s.coin()) {   // per-channel filter scales
            for (int32_t c = 0; c < co; ++c) filter.channelScales.push_back(static_cast<float>(s.logUniform(0.002, 0.05)));
        }
        const double taps = std::sqrt(static_cast<double>(ci * kh * kw));
        Spec out = s.q(type, {n, oh, ow, co});
        out.scale = static_cast<float>(in.scale * filter.scale * taps *
                                       (type == kI16 ? s.logUniform(2000, 30000) : s.logUniform(16, 256)));
        std::vector<Spec> ins = {constantOf<int32_t>({4}, fb::TensorType_INT32, {n, oh, ow, co}), filter, in};
        const bool bias = s.coin();
        if (bias) {
            const TT biasType = type == kI16 ? fb::TensorType_INT64 : fb::TensorType_INT32;
            Spec b{{co}, biasType, in.scale * filter.scale, 0};
            for (float scale : filter.channelScales) b.channelScales.push_back(in.scale * scale);
            b.constant = biasType == fb::TensorType_INT64 ? s.randomValues<int64_t>(static_cast<size_t>(co), -3000, 3000)
                                                          : s.randomValues<int32_t>(static_cast<size_t>(co), -3000, 3000);
            ins.push_back(b);
        }
        const fb::ActivationFunctionType act = s.activation();
        const fb::Padding padding = same ? fb::Padding_SAME : fb::Padding_VALID;
        s.add(fb::BuiltinOperator_TRANSPOSE_CONV, ins, {out}, fb::BuiltinOptions_TransposeConvOptions,
              [=](flatbuffers::FlatBufferBuilder& fbb) {
                  return fb::CreateTransposeConvOptions(fbb, padding, sw, sh, act).Union();
              },
              std::string(same ? "SAME" : "VALID") + " filter " + std::to_string(kh) + "x" + std::to_string(kw) +
                      " stride " + std::to_string(sh) + "x" + std::to_string(sw) +
                      (filter.channelScales.empty() ? "" : " per-channel") + (bias ? " bias " : " ") + activationName(act));
    }
    s.expectSameAsTflite();
}

INSTANTIATE_TEST_SUITE_P(Scales, RealTfliteQuantizedSweep, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                             return std::string(info.param ? "ExtremeScales" : "UsualScales");
                         });

}  // namespace
}  // namespace nnemu::tflite::test
