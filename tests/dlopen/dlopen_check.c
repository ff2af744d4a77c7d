/* Loads libneuralnetworks.so the way TensorFlow Lite's NNAPI delegate does (dlopen by bare name)
 * and checks its exports: exactly the functions of the feature levels nnemu implements, no more,
 * no less (TensorFlow Lite infers the level from which symbols exist, nnapi-fl30plus.md §5.3),
 * read from the library's dynamic symbol table. */
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 47 functions of feature levels 27 to 29 (43 + 4 platform), 19 of level 30, 7 of level 5, 2 of level 8,
 * the SL entry. */
static const char* const kExpected[] = {
    /* feature level 27 */
    "ANeuralNetworksMemory_createFromFd", "ANeuralNetworksMemory_free", "ANeuralNetworksModel_create",
    "ANeuralNetworksModel_free", "ANeuralNetworksModel_finish", "ANeuralNetworksModel_addOperand",
    "ANeuralNetworksModel_setOperandValue", "ANeuralNetworksModel_setOperandValueFromMemory",
    "ANeuralNetworksModel_addOperation", "ANeuralNetworksModel_identifyInputsAndOutputs",
    "ANeuralNetworksCompilation_create", "ANeuralNetworksCompilation_free",
    "ANeuralNetworksCompilation_setPreference", "ANeuralNetworksCompilation_finish",
    "ANeuralNetworksExecution_create", "ANeuralNetworksExecution_free", "ANeuralNetworksExecution_setInput",
    "ANeuralNetworksExecution_setInputFromMemory", "ANeuralNetworksExecution_setOutput",
    "ANeuralNetworksExecution_setOutputFromMemory", "ANeuralNetworksExecution_startCompute",
    "ANeuralNetworksEvent_wait", "ANeuralNetworksEvent_free",
    /* feature level 28 */
    "ANeuralNetworksModel_relaxComputationFloat32toFloat16",
    /* feature level 29 */
    "ANeuralNetworks_getDeviceCount", "ANeuralNetworks_getDevice", "ANeuralNetworksDevice_getName",
    "ANeuralNetworksDevice_getType", "ANeuralNetworksDevice_getVersion", "ANeuralNetworksDevice_getFeatureLevel",
    "ANeuralNetworksModel_getSupportedOperationsForDevices", "ANeuralNetworksCompilation_createForDevices",
    "ANeuralNetworksCompilation_setCaching", "ANeuralNetworksExecution_compute",
    "ANeuralNetworksExecution_getOutputOperandRank", "ANeuralNetworksExecution_getOutputOperandDimensions",
    "ANeuralNetworksBurst_create", "ANeuralNetworksBurst_free", "ANeuralNetworksExecution_burstCompute",
    "ANeuralNetworksMemory_createFromAHardwareBuffer", "ANeuralNetworksExecution_setMeasureTiming",
    "ANeuralNetworksExecution_getDuration", "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams",
    /* feature level 29, platform section (extensions) */
    "ANeuralNetworksDevice_getExtensionSupport", "ANeuralNetworksModel_getExtensionOperandType",
    "ANeuralNetworksModel_getExtensionOperationType", "ANeuralNetworksModel_setOperandExtensionData",
    /* feature level 30 */
    "ANeuralNetworksMemoryDesc_create", "ANeuralNetworksMemoryDesc_free", "ANeuralNetworksMemoryDesc_addInputRole",
    "ANeuralNetworksMemoryDesc_addOutputRole", "ANeuralNetworksMemoryDesc_setDimensions",
    "ANeuralNetworksMemoryDesc_finish", "ANeuralNetworksMemory_createFromDesc", "ANeuralNetworksMemory_copy",
    "ANeuralNetworksDevice_wait", "ANeuralNetworksModel_setOperandValueFromModel",
    "ANeuralNetworksCompilation_setPriority", "ANeuralNetworksCompilation_setTimeout",
    "ANeuralNetworksExecution_setTimeout", "ANeuralNetworksExecution_setLoopTimeout",
    "ANeuralNetworks_getDefaultLoopTimeout", "ANeuralNetworks_getMaximumLoopTimeout",
    "ANeuralNetworksEvent_createFromSyncFenceFd", "ANeuralNetworksEvent_getSyncFenceFd",
    "ANeuralNetworksExecution_startComputeWithDependencies",
    /* feature level 5 */
    "ANeuralNetworks_getRuntimeFeatureLevel", "ANeuralNetworksExecution_enableInputAndOutputPadding",
    "ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput",
    "ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput",
    "ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput",
    "ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput", "ANeuralNetworksExecution_setReusable",
    /* feature level 8 */
    "ANeuralNetworksCompilation_addExtensionAttribute", "ANeuralNetworksExecution_addExtensionAttribute",
    /* the Support Library entry point (its SL_* functions are reached through the table only) */
    "ANeuralNetworks_getSLDriverImpl",
};
enum { kExpectedCount = sizeof kExpected / sizeof kExpected[0] };

static int isExpected(const char* name) {
    for (size_t i = 0; i < kExpectedCount; ++i) {
        if (strcmp(kExpected[i], name) == 0) return 1;
    }
    return 0;
}

static unsigned char* readFile(const char* path, size_t* size) {
    FILE* file = fopen(path, "rb");
    if (file == NULL) return NULL;
    unsigned char* data = NULL;
    if (fseek(file, 0, SEEK_END) == 0) {
        const long length = ftell(file);
        if (length > 0 && fseek(file, 0, SEEK_SET) == 0 && (data = malloc((size_t)length)) != NULL &&
            fread(data, 1, (size_t)length, file) != (size_t)length) {
            free(data);
            data = NULL;
        }
        *size = length > 0 ? (size_t)length : 0;
    }
    fclose(file);
    return data;
}

/* Every defined global or weak symbol of the 64-bit ELF file's .dynsym: each must be expected,
 * and each expected one must appear once. Returns the number of failures. */
static int checkDynamicSymbols(const char* path) {
    size_t size = 0;
    unsigned char* data = readFile(path, &size);
    if (data == NULL || size < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) != 0 ||
        data[EI_CLASS] != ELFCLASS64) {
        fprintf(stderr, "cannot read %s as a 64-bit ELF file\n", path);
        free(data);
        return 1;
    }
    const Elf64_Ehdr* header = (const Elf64_Ehdr*)data;
    if (header->e_shoff + (size_t)header->e_shnum * sizeof(Elf64_Shdr) > size) {
        free(data);
        return 1;
    }
    const Elf64_Shdr* sections = (const Elf64_Shdr*)(data + header->e_shoff);
    int failures = 0, seen[kExpectedCount] = {0}, found = 0;
    for (size_t s = 0; s < header->e_shnum; ++s) {
        if (sections[s].sh_type != SHT_DYNSYM || sections[s].sh_link >= header->e_shnum) continue;
        const Elf64_Shdr* strings = &sections[sections[s].sh_link];
        if (sections[s].sh_offset + sections[s].sh_size > size || strings->sh_offset + strings->sh_size > size) break;
        const Elf64_Sym* symbols = (const Elf64_Sym*)(data + sections[s].sh_offset);
        const size_t count = sections[s].sh_size / sizeof(Elf64_Sym);
        found = 1;
        for (size_t i = 0; i < count; ++i) {
            const unsigned char binding = ELF64_ST_BIND(symbols[i].st_info);
            if (symbols[i].st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK)) continue;
            if (symbols[i].st_name >= strings->sh_size) continue;
            const char* name = (const char*)data + strings->sh_offset + symbols[i].st_name;
            int known = 0;
            for (size_t e = 0; e < kExpectedCount; ++e) {
                if (strcmp(kExpected[e], name) == 0) {
                    known = 1;
                    ++seen[e];
                }
            }
            if (!known) {
                fprintf(stderr, "unexpected export %s\n", name);
                ++failures;
            }
        }
    }
    for (size_t e = 0; e < kExpectedCount; ++e) {
        if (seen[e] != 1) {
            fprintf(stderr, "export %s seen %d times\n", kExpected[e], seen[e]);
            ++failures;
        }
    }
    if (!found) {
        fprintf(stderr, "no .dynsym in %s\n", path);
        ++failures;
    }
    free(data);
    return failures;
}

int main(void) {
    void* library = dlopen("libneuralnetworks.so", RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "dlopen failed: %s\n", dlerror());
        return 1;
    }
    int failures = 0;
    for (size_t i = 0; i < kExpectedCount; ++i) {
        if (dlsym(library, kExpected[i]) == NULL) {
            fprintf(stderr, "missing export %s\n", kExpected[i]);
            ++failures;
        }
    }
    /* Nothing reachable beyond the list: a few names a looser version script would let through. */
    static const char* const kAbsent[] = {"SL_ANeuralNetworksDiagnostic_registerCallbacks",
                                          "SL_ANeuralNetworksCompilation_setCachingFromFds"};
    for (size_t i = 0; i < sizeof kAbsent / sizeof kAbsent[0]; ++i) {
        if (isExpected(kAbsent[i]) || dlsym(library, kAbsent[i]) != NULL) {
            fprintf(stderr, "exports %s\n", kAbsent[i]);
            ++failures;
        }
    }
    failures += checkDynamicSymbols(NNEMU_LIBRARY_PATH);
    typedef int (*GetDeviceCount)(unsigned*);
    unsigned count = 0;
    GetDeviceCount getDeviceCount = (GetDeviceCount)dlsym(library, "ANeuralNetworks_getDeviceCount");
    if (getDeviceCount == NULL || getDeviceCount(&count) != 0 || count == 0) {
        fprintf(stderr, "no device reported\n");
        ++failures;
    }
    typedef long long (*GetLevel)(void);
    GetLevel getLevel = (GetLevel)dlsym(library, "ANeuralNetworks_getRuntimeFeatureLevel");
    if (getLevel == NULL || getLevel() != NNEMU_EXPECTED_FEATURE_LEVEL) {
        fprintf(stderr, "runtime feature level %lld, expected %lld\n", getLevel ? getLevel() : -1LL,
                (long long)NNEMU_EXPECTED_FEATURE_LEVEL);
        ++failures;
    }
    dlclose(library);
    printf("%zu exports checked: %s\n", (size_t)kExpectedCount, failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
