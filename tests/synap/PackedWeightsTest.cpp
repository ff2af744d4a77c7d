// Weights packed into the NPU program at compilation (schema PackedWeights): a core loading the
// program, owned or mapped from a file, runs the own GEMM on them in place (no packing); the
// program keeps no raw filter of those layers. Weights of another layout version or instruction
// set are unpacked into the filter and packed again, with the same result; damaged ones are
// never read: packed again where they unpack, the program refused where they do not.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <fstream>
#include <random>

#include "compiler/Compiler.h"
#include "HalNetworkBuilder.h"
#include "core/NpuCore.h"
#include "program/PackedFilters.h"
#include "kernels/Isa.h"
#include "kernels/QuantGemm.h"
#include "nnemu/cache/CacheCounters.h"

namespace nnemu {
namespace {

using cache::cacheCounters;
using hal::OperandType;

// uint8 1x1 convolution [1, 6, 6, 24] -> [1, 6, 6, 40], then a fully connected layer to 10:
// two layers on the own GEMM.
hal::Model pointwiseNetwork() {
    test::HalNetworkBuilder b;
    const uint32_t input = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 6, 6, 24}, 0.05f, 120);
    std::vector<uint8_t> filter(40 * 24), weights(10 * 6 * 6 * 40);
    for (size_t i = 0; i < filter.size(); ++i) filter[i] = static_cast<uint8_t>(i * 37 + 11);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<uint8_t>(i * 53 + 7);
    std::vector<int32_t> bias(40), fcBias(10);
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<int32_t>(i * 97) - 1500;
    for (size_t i = 0; i < fcBias.size(); ++i) fcBias[i] = static_cast<int32_t>(i * 31) - 100;
    const uint32_t f = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {40, 1, 1, 24}, filter, 0.02f, 130);
    const uint32_t bb = b.constant(OperandType::TENSOR_INT32, {40}, bias, 0.05f * 0.02f);
    const uint32_t hidden = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 6, 6, 40}, 0.1f, 100);
    b.operation(hal::OperationType::CONV_2D, {input, f, bb, b.scalar(2), b.scalar(1), b.scalar(1), b.scalar(0)},
                hidden);
    const uint32_t w = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {10, 6 * 6 * 40}, weights, 0.01f, 128);
    const uint32_t wb = b.constant(OperandType::TENSOR_INT32, {10}, fcBias, 0.1f * 0.01f);
    const uint32_t output = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 10}, 0.5f, 128);
    b.operation(hal::OperationType::FULLY_CONNECTED, {hidden, w, wb, b.scalar(0)}, output);
    return b.finish(input, output);
}

std::vector<uint8_t> compiled() {
    nnemu::Result<std::vector<uint8_t>> compiled = synap::compileProgram(pointwiseNetwork(), {{1, 6, 6, 24}});
    EXPECT_TRUE(compiled.isOk()) << compiled.message();
    const std::vector<uint8_t> program = compiled.isOk() ? std::move(compiled).value() : std::vector<uint8_t>();
    return program;
}

std::vector<uint8_t> bytes(size_t n, uint32_t a, uint32_t b) {
    std::vector<uint8_t> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = static_cast<uint8_t>(i * a + b);
    return values;
}

std::vector<int32_t> biases(size_t n, int32_t step, int32_t offset) {
    std::vector<int32_t> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = static_cast<int32_t>(i) * step + offset;
    return values;
}

// Every own layer kind with stored state: the first 3x3 stride-2 convolution of 3 channels
// (im2col + GEMM) [1, 16, 16, 3] -> [1, 8, 8, 32], a 3x3 depthwise (own on AVX-512 VNNI), a 1x1
// convolution to 24 and a fully connected layer to 10; uint8, or int8 (activations' zero points
// moved by -128, filters symmetric, as TensorFlow 2 converts them).
hal::Model everyKindNetwork(bool int8 = false) {
    test::HalNetworkBuilder b;
    using T = OperandType;
    const T q = int8 ? T::TENSOR_QUANT8_ASYMM_SIGNED : T::TENSOR_QUANT8_ASYMM;
    const auto zp = [&](int32_t u) { return int8 ? u - 128 : u; };   // an activation's zero point
    const auto fzp = [&](int32_t u) { return int8 ? 0 : u; };        // a filter's
    const uint32_t input = b.tensor(q, {1, 16, 16, 3}, 0.02f, zp(128));
    const uint32_t f1 = b.constant(q, {32, 3, 3, 3}, bytes(32 * 27, 37, 11), 0.02f, fzp(120));
    const uint32_t b1 = b.constant(T::TENSOR_INT32, {32}, biases(32, 97, -1500), 0.02f * 0.02f);
    const uint32_t conv = b.tensor(q, {1, 8, 8, 32}, 0.1f, zp(0));
    b.operation(hal::OperationType::CONV_2D, {input, f1, b1, b.scalar(1), b.scalar(2), b.scalar(2), b.scalar(1)}, conv);
    const uint32_t f2 = b.constant(q, {1, 3, 3, 32}, bytes(9 * 32, 53, 7), 0.01f, fzp(130));
    const uint32_t b2 = b.constant(T::TENSOR_INT32, {32}, biases(32, 31, -200), 0.1f * 0.01f);
    const uint32_t dw = b.tensor(q, {1, 8, 8, 32}, 0.08f, zp(10));
    b.operation(hal::OperationType::DEPTHWISE_CONV_2D,
                {conv, f2, b2, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(1)}, dw);
    const uint32_t f3 = b.constant(q, {24, 1, 1, 32}, bytes(24 * 32, 29, 3), 0.02f, fzp(125));
    const uint32_t b3 = b.constant(T::TENSOR_INT32, {24}, biases(24, 53, -600), 0.08f * 0.02f);
    const uint32_t pw = b.tensor(q, {1, 8, 8, 24}, 0.1f, zp(100));
    b.operation(hal::OperationType::CONV_2D, {dw, f3, b3, b.scalar(2), b.scalar(1), b.scalar(1), b.scalar(0)}, pw);
    const uint32_t f4 = b.constant(q, {10, 8 * 8 * 24}, bytes(10 * 8 * 8 * 24, 41, 5), 0.01f, fzp(128));
    const uint32_t b4 = b.constant(T::TENSOR_INT32, {10}, biases(10, 31, -100), 0.1f * 0.01f);
    const uint32_t output = b.tensor(q, {1, 10}, 0.5f, zp(128));
    b.operation(hal::OperationType::FULLY_CONNECTED, {pw, f4, b4, b.scalar(0)}, output);
    return b.finish(input, output);
}

// The own layers of everyKindNetwork, on every ISA (the 8-bit depthwise included).
constexpr uint64_t kEveryKindOwnLayers = 4;

// The program with its packed weights changed by `edit`.
std::vector<uint8_t> edited(const std::vector<uint8_t>& program, void (*edit)(npu::PackedWeightsT&)) {
    std::unique_ptr<npu::ProgramT> unpacked(npu::GetProgram(program.data())->UnPack());
    for (auto& packed : unpacked->packed_weights) edit(*packed);
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(npu::Program::Pack(fbb, unpacked.get()), npu::ProgramIdentifier());
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

// The program with its filters unpacked from the packed weights (what another core loads).
std::vector<uint8_t> withFilters(const std::vector<uint8_t>& program) {
    Result<std::vector<uint8_t>> bytes = synap::unpackFilters(*npu::GetProgram(program.data()));
    EXPECT_TRUE(bytes.isOk()) << bytes.message();
    return bytes.isOk() ? std::move(bytes).value() : std::vector<uint8_t>();
}

// One inference of the core on a fixed input.
std::vector<uint8_t> run(synap::NpuCore& core) {
    std::vector<uint8_t> input(core.inputBytes(0)), output(core.outputBytes(0));
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 13 + 5);
    const nnemu::Status ran = core.run({input.data()}, {output.data()});
    EXPECT_TRUE(ran.isOk()) << ran.message();
    return output;
}

struct Loaded {
    std::vector<uint8_t> output;
    uint64_t packings = 0, inPlace = 0;
};

Loaded load(cache::ProgramImage program) {
    cacheCounters().reset();
    auto core = synap::NpuCore::load(std::move(program));
    EXPECT_TRUE(core.isOk()) << core.message();
    if (!core.isOk()) return {};
    return {run(**core), cacheCounters().weightPackings.load(), cacheCounters().weightsInPlace.load()};
}

// `program` written to a file, mapped from it and loaded.
Loaded loadMapped(const std::vector<uint8_t>& program) {
    const auto dir = std::filesystem::temp_directory_path() / ("nnemu_packed_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / "program.npu";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(program.data()),
                                                static_cast<std::streamsize>(program.size()));
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    Result<cache::ProgramImage> image = cache::ProgramImage::map(fd, program.size(), 0, program.size());
    close(fd);
    const bool mapped = image.isOk() && image->mapped();
    EXPECT_TRUE(mapped) << image.message();
    Loaded loaded = mapped ? load(std::move(image).value()) : Loaded{};
    std::filesystem::remove_all(dir);
    return loaded;
}

class PackedWeightsTest : public ::testing::Test {
protected:
    void SetUp() override {
        const char* choice = std::getenv("NNEMU_NPU_KERNELS");
        if (choice != nullptr && std::string(choice) == "xnnpack") GTEST_SKIP() << "own kernels are off";
        program_ = compiled();
        ASSERT_FALSE(program_.empty());
    }
    std::vector<uint8_t> program_;
};

TEST_F(PackedWeightsTest, TheProgramStoresTheGemmWeightsPackedAndAligned) {
    const npu::Program* program = npu::GetProgram(program_.data());
    ASSERT_NE(program->packed_weights(), nullptr);
    ASSERT_EQ(program->packed_weights()->size(), 2u);
    for (const npu::PackedWeights* packed : *program->packed_weights()) {
        EXPECT_EQ(packed->kernel(), npu::PackedKernel::QUANT_GEMM);
        EXPECT_EQ(packed->layout_version(), synap::kernels::kQuantGemmLayoutVersion);
        EXPECT_EQ(packed->isa(), static_cast<uint32_t>(synap::kernels::baseIsa(synap::kernels::bestIsa())));
        EXPECT_EQ((packed->data()->data() - program_.data()) % 64, 0) << "layer " << packed->layer();
        // The filter is not stored a second time.
        const npu::Tensor& filter = *program->tensors()->Get(program->layers()->Get(packed->layer())->inputs()->Get(1));
        EXPECT_TRUE(filter.packed());
        EXPECT_TRUE(filter.data() == nullptr || filter.data()->size() == 0);
    }
}

TEST_F(PackedWeightsTest, TheUnpackedFiltersAreTheModelsFilters) {
    const std::vector<uint8_t> bytes = withFilters(program_);
    const npu::Program* program = npu::GetProgram(bytes.data());
    EXPECT_EQ(program->packed_weights() == nullptr ? 0u : program->packed_weights()->size(), 0u);
    std::vector<std::vector<uint8_t>> filters;
    for (const npu::Layer* layer : *program->layers()) {
        const npu::Tensor& filter = *program->tensors()->Get(layer->inputs()->Get(1));
        EXPECT_FALSE(filter.packed());
        ASSERT_NE(filter.data(), nullptr);
        filters.emplace_back(filter.data()->begin(), filter.data()->end());
    }
    ASSERT_EQ(filters.size(), 2u);
    for (size_t i = 0; i < filters[0].size(); ++i) ASSERT_EQ(filters[0][i], static_cast<uint8_t>(i * 37 + 11)) << i;
    for (size_t i = 0; i < filters[1].size(); ++i) ASSERT_EQ(filters[1][i], static_cast<uint8_t>(i * 53 + 7)) << i;
}

TEST_F(PackedWeightsTest, TheXnnpackCoreRunsOnTheUnpackedFilters) {
    const std::vector<uint8_t> expected = load(cache::ProgramImage(program_)).output;
    setenv("NNEMU_NPU_KERNELS", "xnnpack", 1);  // read at every load
    const Loaded xnnpack = load(cache::ProgramImage(program_));
    unsetenv("NNEMU_NPU_KERNELS");
    EXPECT_EQ(xnnpack.inPlace, 0u);
    EXPECT_EQ(xnnpack.packings, 0u);
    EXPECT_EQ(xnnpack.output, expected);
}

TEST_F(PackedWeightsTest, AFilterHeldPackedForNoLayerIsRefused) {
    auto core = synap::NpuCore::load(cache::ProgramImage(edited(program_, [](npu::PackedWeightsT& p) { p.layer = 99; })));
    EXPECT_FALSE(core.isOk());
    EXPECT_NE(core.message().find("packed"), std::string::npos) << core.message();
}

TEST_F(PackedWeightsTest, ACoreRunsOnTheStoredWeightsWithoutPacking) {
    const Loaded owned = load(cache::ProgramImage(program_));
    EXPECT_EQ(owned.inPlace, 2u);
    EXPECT_EQ(owned.packings, 0u);
    // The same program with the raw filters and no packed weights packs both layers and computes
    // the same bytes.
    const Loaded packing = load(cache::ProgramImage(withFilters(program_)));
    EXPECT_EQ(packing.inPlace, 0u);
    EXPECT_EQ(packing.packings, 2u);
    EXPECT_EQ(packing.output, owned.output);
}

TEST_F(PackedWeightsTest, AMappedProgramIsUsedWhereItLies) {
    const Loaded mapped = loadMapped(program_);
    EXPECT_EQ(mapped.inPlace, 2u);
    EXPECT_EQ(mapped.packings, 0u);
    EXPECT_EQ(mapped.output, load(cache::ProgramImage(program_)).output);
}

TEST_F(PackedWeightsTest, AnyOtherTensorMarkedPackedIsRefused) {
    const size_t tensors = npu::GetProgram(program_.data())->tensors()->size();
    for (uint32_t t = 0; t < tensors; ++t) {
        std::unique_ptr<npu::ProgramT> program(npu::GetProgram(program_.data())->UnPack());
        if (program->tensors[t]->packed) continue;  // the two filters
        program->tensors[t]->packed = true;
        program->tensors[t]->data.clear();
        flatbuffers::FlatBufferBuilder fbb;
        fbb.Finish(npu::Program::Pack(fbb, program.get()), npu::ProgramIdentifier());
        EXPECT_FALSE(
                synap::NpuCore::load(cache::ProgramImage({fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()}))
                        .isOk())
                << "tensor " << t;
    }
}

TEST_F(PackedWeightsTest, AnotherLayoutOrInstructionSetIsPackedAgain) {
    const std::vector<uint8_t> expected = load(cache::ProgramImage(program_)).output;
    const auto otherIsa = [](npu::PackedWeightsT& p) { p.isa = (p.isa + 1) % 3; };
    const auto otherLayout = [](npu::PackedWeightsT& p) { ++p.layout_version; };
    for (const auto edit : {+otherIsa, +otherLayout}) {
        const Loaded loaded = load(cache::ProgramImage(edited(program_, edit)));
        EXPECT_EQ(loaded.inPlace, 0u);
        EXPECT_EQ(loaded.packings, 2u);
        EXPECT_EQ(loaded.output, expected);
    }
}

// Programs record the layouts' ISA (kernels::baseIsa): avx2 and avxvnni processes both write and
// read Avx2, so each runs the other's programs in place (the ctest variants
// banded_pairs_NNEMU_NPU_KERNEL_ISA_* run this on each ISA). No build writes AvxVnni's own value:
// a program carrying it is packed again, like any other instruction set's.
TEST_F(PackedWeightsTest, ProgramsRecordTheLayoutsIsa) {
    using synap::kernels::Isa;
    const npu::Program* program = npu::GetProgram(program_.data());
    for (const npu::PackedWeights* packed : *program->packed_weights()) {
        EXPECT_NE(packed->isa(), static_cast<uint32_t>(Isa::AvxVnni));
    }
    const std::vector<uint8_t> expected = load(cache::ProgramImage(program_)).output;
    const Loaded loaded = load(cache::ProgramImage(
            edited(program_, [](npu::PackedWeightsT& p) { p.isa = static_cast<uint32_t>(Isa::AvxVnni); })));
    EXPECT_EQ(loaded.inPlace, 0u);
    EXPECT_EQ(loaded.packings, 2u);
    EXPECT_EQ(loaded.output, expected);
}

TEST_F(PackedWeightsTest, DamagedWeightsArePackedAgainNeverRead) {
    const std::vector<uint8_t> expected = load(cache::ProgramImage(program_)).output;
    const std::vector<uint8_t> kept = withFilters(program_);
    const auto truncated = [](npu::PackedWeightsT& p) { p.data.pop_back(); };
    const auto deeper = [](npu::PackedWeightsT& p) { p.data[8] += 4; };       // the header's depth
    const auto empty = [](npu::PackedWeightsT& p) { p.data.clear(); };
    // Without the filter (the program as compiled), weights that do not unpack refuse the program.
    for (const auto edit : {+truncated, +deeper, +empty}) {
        const auto core = synap::NpuCore::load(cache::ProgramImage(edited(program_, edit)));
        EXPECT_FALSE(core.isOk());
        EXPECT_NE(core.message().find("packed"), std::string::npos) << core.message();
    }
    // With it (a program of an older compiler keeping both), they are packed again from it.
    const auto shifted = [](npu::PackedWeightsT& p) {                           // a right shift of 200
        const size_t padded = p.data[20] | p.data[21] << 8;                   // paddedChannels
        p.data[48 + 4 * (4 * padded)] = 200;                                   // rightShifts[0]
    };
    // Rebuilt on the unpacked program: the filters kept, the packed weights back as compiled.
    const auto withBoth = [&](void (*edit)(npu::PackedWeightsT&)) {
        std::unique_ptr<npu::ProgramT> both(npu::GetProgram(kept.data())->UnPack());
        std::unique_ptr<npu::ProgramT> original(npu::GetProgram(program_.data())->UnPack());
        both->packed_weights = std::move(original->packed_weights);
        for (auto& packed : both->packed_weights) edit(*packed);
        flatbuffers::FlatBufferBuilder fbb;
        fbb.Finish(npu::Program::Pack(fbb, both.get()), npu::ProgramIdentifier());
        return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    };
    for (const auto edit : {+truncated, +deeper, +shifted, +empty}) {
        const Loaded loaded = load(cache::ProgramImage(withBoth(edit)));
        EXPECT_EQ(loaded.inPlace, 0u);
        EXPECT_EQ(loaded.packings, 2u);
        EXPECT_EQ(loaded.output, expected);
    }
    // Requantization damaged, weights intact: unpacked and packed again, never run as they are.
    const Loaded repacked = load(cache::ProgramImage(edited(program_, shifted)));
    EXPECT_EQ(repacked.inPlace, 0u);
    EXPECT_EQ(repacked.packings, 2u);
    EXPECT_EQ(repacked.output, expected);
}

// Every own layer kind runs on the state stored in the program, mapped from its file: nothing is
// packed at load. Another ISA or layout packs every layer again from the program (the depthwise
// and unfolded filters are kept in it), the XNNPACK core runs on it: the same bytes.
TEST_F(PackedWeightsTest, EveryOwnLayerKindRunsOnTheMappedProgramWithoutPacking) {
    nnemu::Result<std::vector<uint8_t>> compiled = synap::compileProgram(everyKindNetwork(), {{1, 16, 16, 3}});
    ASSERT_TRUE(compiled.isOk()) << compiled.message();
    const std::vector<uint8_t> program = std::move(compiled).value();
    const npu::Program* view = npu::GetProgram(program.data());
    ASSERT_NE(view->packed_weights(), nullptr);
    ASSERT_EQ(view->packed_weights()->size(), kEveryKindOwnLayers);
    std::vector<npu::PackedKernel> kinds;
    for (const npu::PackedWeights* packed : *view->packed_weights()) {
        kinds.push_back(packed->kernel());
        EXPECT_EQ((packed->data()->data() - program.data()) % 64, 0) << "layer " << packed->layer();
    }
    EXPECT_EQ(kinds[0], npu::PackedKernel::QUANT_CONV);
    EXPECT_EQ(kinds[1], npu::PackedKernel::DEPTHWISE);

    const Loaded mapped = loadMapped(program);
    EXPECT_EQ(mapped.inPlace, kEveryKindOwnLayers);
    EXPECT_EQ(mapped.packings, 0u);
    ASSERT_FALSE(mapped.output.empty());

    const auto otherIsa = [](npu::PackedWeightsT& p) { p.isa = (p.isa + 1) % 3; };
    const auto otherLayout = [](npu::PackedWeightsT& p) { ++p.layout_version; };
    for (const auto edit : {+otherIsa, +otherLayout}) {
        const Loaded loaded = load(cache::ProgramImage(edited(program, edit)));
        EXPECT_EQ(loaded.inPlace, 0u);
        EXPECT_EQ(loaded.packings, kEveryKindOwnLayers);
        EXPECT_EQ(loaded.output, mapped.output);
    }
    // Damaged stored state (the last byte of each entry's header or GEMM depth changed) is never
    // read: where the filter is kept, that layer is packed again; same bytes out.
    const auto damaged = [](npu::PackedWeightsT& p) {
        if (p.kernel != npu::PackedKernel::QUANT_GEMM) p.data[8] ^= 1;  // channels / depth
    };
    const Loaded repacked = load(cache::ProgramImage(edited(program, damaged)));
    EXPECT_EQ(repacked.inPlace, 2u);
    EXPECT_EQ(repacked.packings, kEveryKindOwnLayers - 2);
    EXPECT_EQ(repacked.output, mapped.output);
    // Unpacked for another core: the GEMMs' filters come back, the other layers stay stored.
    const Loaded unpacked = load(cache::ProgramImage(withFilters(program)));
    EXPECT_EQ(unpacked.inPlace, kEveryKindOwnLayers - 2);
    EXPECT_EQ(unpacked.packings, 2u);
    EXPECT_EQ(unpacked.output, mapped.output);
    setenv("NNEMU_NPU_KERNELS", "xnnpack", 1);  // read at every load
    const Loaded xnnpack = load(cache::ProgramImage(program));
    unsetenv("NNEMU_NPU_KERNELS");
    EXPECT_EQ(xnnpack.inPlace, 0u);
    EXPECT_EQ(xnnpack.packings, 0u);
    EXPECT_EQ(xnnpack.output, mapped.output);
}

// The same with int8 activations: the unfolded convolution runs its GEMM on flipped (uint8)
// values but writes int8, and its stored state must still pass its check (it once did not, and
// every load packed it again).
TEST_F(PackedWeightsTest, AnInt8NetworkRunsOnTheMappedProgramWithoutPacking) {
    nnemu::Result<std::vector<uint8_t>> compiled = synap::compileProgram(everyKindNetwork(true), {{1, 16, 16, 3}});
    ASSERT_TRUE(compiled.isOk()) << compiled.message();
    const std::vector<uint8_t> program = std::move(compiled).value();
    const npu::Program* view = npu::GetProgram(program.data());
    ASSERT_NE(view->packed_weights(), nullptr);
    ASSERT_EQ(view->packed_weights()->size(), kEveryKindOwnLayers);
    const Loaded mapped = loadMapped(program);
    EXPECT_EQ(mapped.inPlace, kEveryKindOwnLayers);
    EXPECT_EQ(mapped.packings, 0u);
    const auto otherIsa = [](npu::PackedWeightsT& p) { p.isa = (p.isa + 1) % 3; };
    const Loaded repacked = load(cache::ProgramImage(edited(program, otherIsa)));
    EXPECT_EQ(repacked.packings, kEveryKindOwnLayers);
    EXPECT_EQ(repacked.output, mapped.output);
}

// What the warm start reads ahead of the first inference (NpuCore::constantsInRunOrder): every
// constant a layer reads and every packed weight, inside the program, layer by layer.
TEST_F(PackedWeightsTest, TheConstantsInRunOrderAreWhatTheLayersRead) {
    nnemu::Result<std::vector<uint8_t>> compiled = synap::compileProgram(everyKindNetwork(true), {{1, 16, 16, 3}});
    ASSERT_TRUE(compiled.isOk()) << compiled.message();
    auto core = synap::NpuCore::load(std::move(compiled).value());
    ASSERT_TRUE(core.isOk()) << core.message();
    const std::span<const uint8_t> program = (*core)->programBytes();
    const npu::Program* view = npu::GetProgram(program.data());
    const std::vector<std::span<const uint8_t>> constants = (*core)->constantsInRunOrder();
    const auto position = [&](const uint8_t* data) {
        for (size_t i = 0; i < constants.size(); ++i) {
            if (constants[i].data() == data) return static_cast<int>(i);
        }
        return -1;
    };
    for (const auto& span : constants) {
        ASSERT_FALSE(span.empty());
        EXPECT_GE(span.data(), program.data());
        EXPECT_LE(span.data() + span.size(), program.data() + program.size());
    }
    int previous = -1;
    for (uint32_t l = 0; l < view->layers()->size(); ++l) {
        int first = INT32_MAX;
        for (uint32_t t : *view->layers()->Get(l)->inputs()) {
            const auto* data = view->tensors()->Get(t)->data();
            if (data == nullptr || data->size() == 0) continue;
            const int at = position(data->data());
            EXPECT_GE(at, 0) << "layer " << l << " tensor " << t;
            first = std::min(first, at);
        }
        for (const npu::PackedWeights* weights : *view->packed_weights()) {
            if (weights->layer() != l) continue;
            const int at = position(weights->data()->data());
            EXPECT_GE(at, 0) << "layer " << l << "'s packed weights";
            first = std::min(first, at);
        }
        if (first == INT32_MAX) continue;
        EXPECT_GT(first, previous) << "layer " << l << "'s constants come after the layer before's";
        previous = first;
    }
    EXPECT_EQ(view->packed_weights()->size(), kEveryKindOwnLayers);
}

// Stored state with random bytes changed (headers mostly): loads and runs, or is refused; never
// read out of bounds (the sanitizer builds run this).
TEST_F(PackedWeightsTest, RandomlyDamagedStoredStateIsSafe) {
    nnemu::Result<std::vector<uint8_t>> compiled = synap::compileProgram(everyKindNetwork(), {{1, 16, 16, 3}});
    ASSERT_TRUE(compiled.isOk()) << compiled.message();
    const std::vector<uint8_t> program = std::move(compiled).value();
    std::mt19937 rng(7);
    for (int iteration = 0; iteration < 60; ++iteration) {
        std::unique_ptr<npu::ProgramT> unpacked(npu::GetProgram(program.data())->UnPack());
        for (auto& entry : unpacked->packed_weights) {
            const size_t span = iteration % 2 == 0 ? std::min<size_t>(entry->data.size(), 160) : entry->data.size();
            entry->data[rng() % span] ^= static_cast<uint8_t>(1u << (rng() % 8));
        }
        flatbuffers::FlatBufferBuilder fbb;
        fbb.Finish(npu::Program::Pack(fbb, unpacked.get()), npu::ProgramIdentifier());
        auto core = synap::NpuCore::load(cache::ProgramImage({fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()}));
        if (core.isOk()) {
            EXPECT_EQ(run(**core).size(), 10u) << "iteration " << iteration;
        }
    }
}

TEST_F(PackedWeightsTest, CheckOfPackedGemmWeights) {
    std::vector<uint8_t> weights(16 * 8, 3);
    std::vector<int32_t> bias(16, 0);
    std::vector<float> scales{0.5f};
    synap::kernels::QuantGemmSpec spec;
    spec.depth = 8;
    spec.channels = 16;
    spec.inputScale = 0.5f;
    spec.outputScale = 1.0f;
    spec.filterScales = scales;
    spec.high = 255;
    spec.weights = weights.data();
    spec.bias = bias.data();
    std::vector<uint8_t> packed;
    ASSERT_TRUE(synap::kernels::packQuantGemm(spec, &packed));
    EXPECT_TRUE(synap::kernels::checkPackedQuantGemm(packed, 8, 16, false));
    EXPECT_FALSE(synap::kernels::checkPackedQuantGemm(packed, 8, 16, true));
    EXPECT_FALSE(synap::kernels::checkPackedQuantGemm(packed, 12, 16, false));
    EXPECT_FALSE(synap::kernels::checkPackedQuantGemm(packed, 8, 17, false));
    EXPECT_FALSE(synap::kernels::checkPackedQuantGemm(std::span(packed).first(packed.size() - 1), 8, 16, false));
}

}  // namespace
}  // namespace nnemu
