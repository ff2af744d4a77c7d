// The table itself: its layout (nnapi-fl30plus.md §4.2), its level, and that each entry is the
// library's exported function of the same name.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <set>
#include <string>

#include "SlLoader.h"

namespace nnemu::sltest {
namespace {

struct Entry {
    const char* name;
    size_t offset;
};

#define NNEMU_SL_ENTRY(field) Entry{#field, offsetof(NnApiSLDriverImplFL5, field)}

// The 104 entries in the order of §4.2 (the list the runtime's table is filled from).
constexpr Entry kEntries[] = {
#include "../../runtime/SupportLibraryEntries.inc"
};

#undef NNEMU_SL_ENTRY

constexpr size_t kEntryCount = sizeof(kEntries) / sizeof(kEntries[0]);
static_assert(kEntryCount == 104);

constexpr bool entriesFollowEachOther() {
    for (size_t i = 0; i < kEntryCount; ++i) {
        if (kEntries[i].offset != sizeof(NnApiSLDriverImpl) + i * sizeof(void*)) return false;
    }
    return true;
}
static_assert(entriesFollowEachOther(), "the table's pointers are contiguous, in the order of §4.2");
static_assert(sizeof(NnApiSLDriverImplFL5) == sizeof(NnApiSLDriverImpl) + kEntryCount * sizeof(void*));
static_assert(offsetof(NnApiSLDriverImplFL8, ANeuralNetworksExecution_addExtensionAttribute) ==
              sizeof(NnApiSLDriverImplFL5) + sizeof(void*));
static_assert(sizeof(NnApiSLDriverImplFL8) == sizeof(NnApiSLDriverImplFL5) + 2 * sizeof(void*));
#if defined(__LP64__)
static_assert(offsetof(NnApiSLDriverImplFL5, ANeuralNetworksBurst_create) == 8);
static_assert(sizeof(NnApiSLDriverImplFL5) == 840);
static_assert(sizeof(NnApiSLDriverImplFL8) == 856);
#endif

void* entryAt(const NnApiSLDriverImplFL5& table, const Entry& entry) {
    void* pointer = nullptr;
    std::memcpy(&pointer, reinterpret_cast<const char*>(&table) + entry.offset, sizeof(pointer));
    return pointer;
}

using TableTest = SupportLibraryTest;

TEST_F(TableTest, TheLevelIsTheRuntimeLevelUpToFeatureLevel7) {
    // An FL5-shaped table at the runtime's level, never 1000008: TensorFlow Lite rejects that.
    const int64_t runtimeLevel = sl().ANeuralNetworks_getRuntimeFeatureLevel();
    EXPECT_EQ(sl().base.implFeatureLevel, std::min<int64_t>(runtimeLevel, 1000007));
}

TEST_F(TableTest, TheTableIsStatic) {
    EXPECT_EQ(loadDriverImpl(), &sl().base);
}

TEST_F(TableTest, EveryEntryIsTheExportedFunctionOfItsName) {
    for (const Entry& entry : kEntries) {
        void* inTable = entryAt(sl(), entry);
        void* exported = dlsym(libraryHandle(), entry.name);
        if (std::strncmp(entry.name, "SL_", 3) == 0) {
            EXPECT_EQ(exported, nullptr) << entry.name << " is reachable through the table only";
        } else if (inTable != nullptr) {
            EXPECT_EQ(inTable, exported) << entry.name;
        } else {
            EXPECT_EQ(exported, nullptr) << entry.name << " is exported: put it in the table";
        }
    }
}

// Every slot is filled: the library defines every function of the table.
TEST_F(TableTest, NoEntryIsNull) {
    for (const Entry& entry : kEntries) EXPECT_NE(entryAt(sl(), entry), nullptr) << entry.name;
}

// The functions TensorFlow Lite's delegate calls without checking them (§4.5).
TEST_F(TableTest, WhatTfliteCallsUnconditionallyIsThere) {
    EXPECT_NE(sl().ANeuralNetworksExecution_setReusable, nullptr);
    EXPECT_NE(sl().ANeuralNetworksCompilation_setPriority, nullptr);
    EXPECT_NE(sl().ANeuralNetworksCompilation_createForDevices, nullptr);
    EXPECT_NE(sl().ANeuralNetworksExecution_compute, nullptr);
    EXPECT_NE(sl().ANeuralNetworksExecution_burstCompute, nullptr);
    EXPECT_NE(sl().ANeuralNetworksMemory_createFromFd, nullptr);
    EXPECT_NE(sl().ANeuralNetworksModel_getSupportedOperationsForDevices, nullptr);
    EXPECT_NE(sl().ANeuralNetworksDevice_getFeatureLevel, nullptr);
}

TEST_F(TableTest, LoopTimeoutsOnceControlFlowIsIn) {
    if (sl().ANeuralNetworks_getDefaultLoopTimeout == nullptr) {
        EXPECT_EQ(dlsym(libraryHandle(), "ANeuralNetworks_getDefaultLoopTimeout"), nullptr);
        return;
    }
    EXPECT_EQ(sl().ANeuralNetworks_getDefaultLoopTimeout(), 2'000'000'000u);
    ASSERT_NE(sl().ANeuralNetworks_getMaximumLoopTimeout, nullptr);
    EXPECT_EQ(sl().ANeuralNetworks_getMaximumLoopTimeout(), 15'000'000'000u);
    EXPECT_NE(sl().ANeuralNetworksExecution_setLoopTimeout, nullptr);
}

TEST_F(TableTest, GetRuntimeFeatureLevelAnswersThroughTheTable) {
    EXPECT_GE(sl().ANeuralNetworks_getRuntimeFeatureLevel(), 30);
}

}  // namespace
}  // namespace nnemu::sltest
