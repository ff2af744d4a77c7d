// The ADD's word tables (QuantAdd.h QuantAddParams::wordTables). The reference's output for a
// sum S of the two terms, before its zero point and clamp, is floor((S * M + P) / D) with
// D = 2^(31 + R) and a nudge P that depends on the sign of S. Split input a's share,
// term_a * M = I_a * D + f_a with f_a in [0, D): for each b the output less I_a must be, over all
// a, J_b or J_b + 1, the latter exactly for the f_a at or above a threshold h_b (Thresholds::of
// works out J_b and h_b, the sign included; where a b breaks that, no tables). Only the order of
// the f_a among the h_b matters, so each is replaced by its rank among the distinct h_b (at most
// 256 of them):
//   word_a = I_a * 256 + (how many h are at most f_a)        (0..256)
//   word_b = (J_b + zeroPoint) * 256 + 256 - (rank of h_b)   (rank 1..256)
// and the output is the high byte of word_a + word_b: the low bytes carry exactly where
// f_a >= h_b. The integer parts are split between the words; where the words cannot both fit
// 16 bits, no 16-bit tables (wordTables), but the same words in 32 bits (wideWords) where they
// fit 30. The kernel adds 16-bit words with signed saturation, which is exact: a sum beyond
// int16 has a high byte beyond int8, which the clamp to the output's range takes to the same
// bound.
//
// Every layer's tables are built when the core loads the program, so the construction is kept
// to one sort of the 256 f (by buckets) and a search of one bucket per threshold (~4 us a layer;
// the first version, a sort of the f, a scan of each b's runs and a sort of the h, took ~11 us
// warm and ~30 us in a load): each h_b is the least f_a of the a whose output is J_b + 1 (or D:
// none), so the ranks are counts over the a in order of f and the h_b need no sort of their
// own. Storing the tables in the program instead would have saved those microseconds at the
// cost of a schema change and a size check of 3 KB per ADD read from a mapped file.
#include <algorithm>
#include <cstdint>

#include "QuantAdd.h"

namespace nnemu::synap::kernels {
namespace {

// The a in order of f_a, with I_a, and where each 256th of [0, D) begins among them.
struct Parts {
    static constexpr int kBucketBits = 8;
    int64_t whole[256];  // I_a, by a
    int64_t f[256];  // the k-th least f
    uint8_t a[256];  // its a
    uint16_t first[256];  // the first k holding f[k]'s value
    uint16_t buckets[(1 << kBucketBits) + 1];  // the first k whose f is at least j * D / 256
    int bucketShift;

    // Sorted by bucket (counts, then each f to its bucket's next place), then within buckets by
    // an insertion sort: f_a spread over [0, D) as a multiple of term_a does, a bucket holds a
    // few at most; where they bunch up, a whole sort instead.
    void build(const int32_t (&term)[256], int64_t multiplier, int shift) {
        const int64_t mask = (int64_t{1} << shift) - 1;
        bucketShift = shift - kBucketBits;
        int64_t part[256];
        std::fill(buckets, buckets + (1 << kBucketBits) + 1, uint16_t{0});
        for (int v = 0; v < 256; ++v) {
            const int64_t x = int64_t{term[v]} * multiplier;  // |term| < 2^28
            whole[v] = x >> shift;  // arithmetic: the floor
            part[v] = x & mask;
            ++buckets[(part[v] >> bucketShift) + 1];
        }
        int fullest = 0;
        for (int j = 1; j <= 1 << kBucketBits; ++j) {
            fullest = std::max<int>(fullest, buckets[j]);
            buckets[j] = static_cast<uint16_t>(buckets[j] + buckets[j - 1]);
        }
        uint16_t next[1 << kBucketBits];
        std::copy(buckets, buckets + (1 << kBucketBits), next);
        for (int v = 0; v < 256; ++v) {
            const int k = next[part[v] >> bucketShift]++;
            f[k] = part[v];
            a[k] = static_cast<uint8_t>(v);
        }
        if (fullest <= 16) {
            for (int k = 1; k < 256; ++k) {
                const int64_t value = f[k];
                const uint8_t which = a[k];
                int i = k;
                for (; i > 0 && f[i - 1] > value; --i) {
                    f[i] = f[i - 1];
                    a[i] = a[i - 1];
                }
                f[i] = value;
                a[i] = which;
            }
        } else {
            uint8_t order[256];
            std::copy(a, a + 256, order);
            std::sort(order, order + 256, [&](uint8_t x, uint8_t y) { return part[x] < part[y]; });
            for (int k = 0; k < 256; ++k) {
                a[k] = order[k];
                f[k] = part[order[k]];
            }
        }
        first[0] = 0;
        for (int k = 1; k < 256; ++k) first[k] = f[k] == f[k - 1] ? first[k - 1] : static_cast<uint16_t>(k);
    }

    // How many f are below `bound` (0..256; bound at most D): a search of bound's 256th of
    // [0, D), which holds one f on average.
    int countBelow(int64_t bound) const {
        const int64_t j = bound >> bucketShift;
        if (j >= 1 << kBucketBits) return 256;
        return static_cast<int>(std::lower_bound(f + buckets[j], f + buckets[j + 1], bound) - f);
    }
};

// J_b and where h_b lies (the k of its first f, 256 for D), or false where no threshold splits
// b's outputs. In order of f the a form three runs, cut by the thresholds of the two signs'
// nudges: in each run the a of one sign share one output (less I_a). Where the signs' outputs
// differ in a run (it is short: the nudges differ by 2^31 of D) its a are looked at one by one.
struct Thresholds {
    const Parts& parts;
    const int32_t (&terms)[256];  // input a's
    int64_t multiplier, mask, nudges[2];  // S >= 0, S < 0
    int64_t leastPositive;  // the least sum that takes the nudge of S >= 0
    int shift;

    struct Group {
        int64_t share;
        int least, most;  // k of the least and greatest f
    };

    bool of(int32_t term, int64_t* share, int* thresholdAt) const {
        int64_t shares[2], bounds[2];
        for (int sign = 0; sign < 2; ++sign) {
            const int64_t y = int64_t{term} * multiplier + nudges[sign];
            shares[sign] = y >> shift;
            bounds[sign] = mask + 1 - (y & mask);
        }
        const int64_t leastA = leastPositive - term;  // a with a smaller term: S < 0
        const int lower = bounds[1] < bounds[0];  // the sign whose threshold comes first
        const int cuts[4] = {0, parts.countBelow(bounds[lower]), parts.countBelow(bounds[1 - lower]), 256};
        Group groups[6];
        int count = 0;
        for (int run = 0; run < 3; ++run) {
            const int begin = cuts[run], end = cuts[run + 1];
            if (begin == end) continue;
            // Each sign's output in this run: one more from its own threshold on.
            int64_t runShares[2];
            for (int sign = 0; sign < 2; ++sign) runShares[sign] = shares[sign] + (run > (sign == lower ? 0 : 1));
            if (runShares[0] == runShares[1]) {
                groups[count++] = {runShares[0], begin, end - 1};
                continue;
            }
            int ends[2][2] = {{-1, -1}, {-1, -1}};  // per sign: first and last k
            for (int k = begin; k < end; ++k) {
                const int sign = terms[parts.a[k]] < leastA;
                if (ends[sign][0] < 0) ends[sign][0] = k;
                ends[sign][1] = k;
            }
            for (int sign = 0; sign < 2; ++sign) {
                if (ends[sign][0] >= 0) groups[count++] = {runShares[sign], ends[sign][0], ends[sign][1]};
            }
        }
        int64_t low = groups[0].share, high = low;
        for (int g = 1; g < count; ++g) {
            low = std::min(low, groups[g].share);
            high = std::max(high, groups[g].share);
        }
        if (high - low > 1) return false;
        int lowTop = -1, highBottom = 256;  // k of the greatest f of output J, the least of J + 1
        for (int g = 0; g < count; ++g) {
            if (groups[g].share == low) {
                lowTop = std::max(lowTop, groups[g].most);
            } else {
                highBottom = std::min(highBottom, groups[g].least);
            }
        }
        *share = low;
        *thresholdAt = highBottom < 256 ? parts.first[highBottom] : 256;
        return highBottom == 256 || parts.f[lowTop] < parts.f[highBottom];
    }
};

}  // namespace

void prepareWordTables(QuantAddParams* p) {
    p->wordTables = p->wideWords = false;
    if (!p->byteLookups || p->outputMultiplier <= 0) return;
    const int32_t r = p->outputRightShift;
    const int shift = 31 + r;  // at most 62
    const int64_t nudge = (int64_t{1} << 30) + (r > 0 ? int64_t{1} << (30 + r) : 0);
    Parts parts;
    parts.build(p->inputs[0].term, p->outputMultiplier, shift);
    // A sum S takes the nudge of S >= 0 where S * M >= -2^30: from S = -(2^30 / M) on.
    const Thresholds thresholds{parts, p->inputs[0].term, p->outputMultiplier, (int64_t{1} << shift) - 1,
                                {nudge, r > 0 ? nudge - (int64_t{1} << 31) : nudge},
                                -((int64_t{1} << 30) / p->outputMultiplier), shift};
    int64_t wholeB[256];
    int thresholdAt[256];
    bool isThreshold[257] = {};
    for (int b = 0; b < 256; ++b) {
        if (!thresholds.of(p->inputs[1].term[b], &wholeB[b], &thresholdAt[b])) return;
        isThreshold[thresholdAt[b]] = true;
    }
    // The ranks: thresholds at distinct k are distinct values (each at its value's first k).
    int below[257];  // how many thresholds lie before k
    below[0] = 0;
    for (int k = 0; k < 256; ++k) below[k + 1] = below[k] + isThreshold[k];
    int64_t ranks[2][256];
    for (int k = 0; k < 256; ++k) ranks[0][parts.a[k]] = below[k + 1];  // the thresholds at most f
    for (int b = 0; b < 256; ++b) ranks[1][b] = below[thresholdAt[b]] + 1;
    const int64_t(&wholeA)[256] = parts.whole;
    // 32-bit words (the zero point in word_b): where both stay within 2^30, so that no sum wraps.
    const auto [lowA, highA] = std::minmax_element(wholeA, wholeA + 256);
    const auto [lowB, highB] = std::minmax_element(wholeB, wholeB + 256);
    const int64_t limit = int64_t{1} << 21;  // integer parts within 2^21: words within 2^30
    if (*lowA <= -limit || *highA >= limit || *lowB + p->outputZeroPoint <= -limit || *highB + p->outputZeroPoint >= limit) {
        return;
    }
    for (int v = 0; v < 256; ++v) {
        const int64_t words[2] = {wholeA[v] * 256 + ranks[0][v], (wholeB[v] + p->outputZeroPoint) * 256 + 256 - ranks[1][v]};
        for (int i = 0; i < 2; ++i) {
            for (int k = 0; k < 4; ++k) p->wideBytes[i][k][v] = static_cast<uint8_t>(static_cast<uint64_t>(words[i]) >> (8 * k));
        }
    }
    p->wideWords = true;
    // 16-bit words: the integer parts split between them so that both fit int16, word_a from
    // (I - moved) * 256 to (I - moved) * 256 + 256, word_b from (J' + moved) * 256 to that + 255.
    const int bias = p->signedValues ? 0 : 128;  // uint8 outputs are computed as int8, 128 lower
    const int64_t zero = p->outputZeroPoint - bias;
    const int64_t least = std::max(*highA - 126, -128 - (*lowB + zero));
    const int64_t most = std::min(*lowA + 128, 127 - (*highB + zero));
    if (least > most) return;  // too wide for 16 bits
    const int64_t moved = least + (most - least) / 2;
    for (int v = 0; v < 256; ++v) {
        const int64_t words[2] = {(wholeA[v] - moved) * 256 + ranks[0][v], (wholeB[v] + zero + moved) * 256 + 256 - ranks[1][v]};
        for (int i = 0; i < 2; ++i) {
            const auto word = static_cast<uint16_t>(static_cast<int16_t>(words[i]));
            p->wordBytes[i][0][v] = static_cast<uint8_t>(word);
            p->wordBytes[i][1][v] = static_cast<uint8_t>(word >> 8);
        }
    }
    p->wordTables = true;
}

}  // namespace nnemu::synap::kernels
