// SKIP_GRAM (issue 24), as TFLite's skip_gram.cc: the first string of the input split into words
// at whitespace (TFLite's splitter: its first byte never ends a word), then every n-gram of
// ngram_size words (all sizes up to it with include_all_ngrams) whose consecutive words are at
// most max_skip_size words apart, in TFLite's enumeration order, each joined by one space: the
// output is a vector of those strings.
#include <cctype>

#include "../StringTensor.h"
#include "CpuKernelUnit.h"

namespace nnemu::tflite {

namespace {

constexpr size_t kMaxOutputBytes = size_t{1} << 31;   // as resizeOutput bounds outputs

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::vector<std::string_view> wordsOf(std::string_view text) {
    std::vector<std::string_view> words;
    size_t start = 0;
    for (size_t i = 1; i < text.size(); ++i) {
        if (!isSpace(text[i])) continue;
        if (i > start && !isSpace(text[start])) words.push_back(text.substr(start, i - start));
        start = i + 1;
    }
    if (text.size() > start) words.push_back(text.substr(start));
    return words;
}

bool prepareSkipGram(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    const auto* params = call.params<TfLiteSkipGramParams>();
    if (params == nullptr) return call.fail("has no SkipGramOptions");
    return call.expectType(call.in(0), {ElementType::STRING}, "input") &&
           call.expectType(call.out(0), {ElementType::STRING}, "output");
}

bool runSkipGram(const CpuKernelCall& call) {
    const auto* params = call.params<TfLiteSkipGramParams>();
    const CpuOperand& input = call.in(0);
    Result<std::vector<std::string_view>> strings = readStrings(input.data, input.tensor->byteSize(), input.count());
    if (!strings) return call.fail("input: " + strings.message());
    if (strings->empty()) return call.fail("input holds no string");
    const std::vector<std::string_view> words = wordsOf((*strings)[0]);
    const int ngram = params->ngram_size;
    const int count = static_cast<int>(words.size());
    std::vector<std::string> grams;
    size_t bytes = 0;
    // A negative ngram_size gives no n-grams (TFLite compares it with the word count unsigned).
    if (ngram >= 0 && count >= ngram) {
        // The indexes of the words of the n-gram being built; depth: how many are chosen.
        std::vector<int> stack(static_cast<size_t>(ngram), 0);
        int depth = 1;
        const auto canStep = [&] {
            if (depth >= ngram || stack[depth] + 1 >= count) return false;
            return depth == 0 || stack[depth] - stack[depth - 1] <= params->max_skip_size;
        };
        while (depth >= 0) {
            if (canStep()) {
                ++stack[depth];
                ++depth;
                if (depth < ngram) stack[depth] = stack[depth - 1];
                continue;
            }
            const bool include = depth > 0 && (params->include_all_ngrams ? depth <= ngram : depth == ngram);
            if (include) {
                std::string gram;
                for (int i = 0; i < depth; ++i) {
                    if (i > 0) gram += ' ';
                    gram += words[static_cast<size_t>(stack[i])];
                }
                bytes += gram.size() + sizeof(int32_t);
                if (bytes > kMaxOutputBytes) return call.fail("the n-grams need more than 2 GB");
                grams.push_back(std::move(gram));
            }
            --depth;
        }
    }
    const std::vector<std::string_view> views(grams.begin(), grams.end());
    return call.writeStrings(0, {static_cast<int32_t>(views.size())}, views);
}

}  // namespace

void addSkipGramKernel(CpuKernelTable& table) { table.add(fb::BuiltinOperator_SKIP_GRAM, {prepareSkipGram, runSkipGram}); }

}  // namespace nnemu::tflite
