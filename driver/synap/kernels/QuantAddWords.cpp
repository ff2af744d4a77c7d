// The ADD's word tables (QuantAdd.h QuantAddParams::wordTables). The reference's output for a
// sum S of the two terms, before its zero point and clamp, is floor((S * M + P) / D) with
// D = 2^(31 + R) and a nudge P that depends on the sign of S. Split input a's share,
// term_a * M = I_a * D + f_a with f_a in [0, D): for each b the output less I_a must be, over all
// a, J_b or J_b + 1, the latter exactly for the f_a at or above a threshold h_b (Shares::splitFor
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
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "QuantAdd.h"

namespace nnemu::synap::kernels {
namespace {

struct Shares {
    const QuantAddParams& p;
    int shift;
    int64_t denominator, leastPositive;
    int64_t whole[2][256], part[2][256];  // I_a, f_a; J_b, the least f_a whose output is J_b + 1
    int byPart[256];  // the a in order of f_a

    int64_t f(int k) const { return part[0][byPart[k]]; }  // the k-th least f
    int firstAtLeast(int64_t bound) const {
        return static_cast<int>(std::partition_point(byPart, byPart + 256, [&](int a) { return part[0][a] < bound; }) - byPart);
    }

    // b's J and threshold. With Y = term_b * M + nudge, floor((X_a + Y) / D) = I_a + share, share =
    // J + [f_a >= D - (Y mod D)], J and threshold by the nudge of the sum's sign (the negative one
    // 2^31 lower: its J the same or one less). In order of f the a form three runs: only in the
    // middle one (one J: between the two thresholds) or the two outer ones (two J: below the
    // negative's, from the positive's on) does the sign change the share, and these are short
    // (the nudges differ by 2^31 of D). false where the shares take more than two neighbouring
    // values or f does not split them.
    bool splitFor(int b, const int64_t (&shares)[2], const int64_t (&bounds)[2]) {
        const int64_t least = leastPositive - p.inputs[1].term[b];
        auto shareOf = [&](int a) {
            const int sign = p.inputs[0].term[a] < least;
            return shares[sign] + (part[0][a] >= bounds[sign]);
        };
        const bool oneJ = shares[0] == shares[1];
        // (The sign's runs are short: found by a step at a time from their known end.)
        int ends[3] = {oneJ ? firstAtLeast(bounds[0]) : 0, 256, 256};
        if (oneJ) {
            for (ends[1] = ends[0]; ends[1] < 256 && f(ends[1]) < bounds[1];) ++ends[1];
        } else {
            while (ends[0] < 256 && f(ends[0]) < bounds[1]) ++ends[0];
            while (ends[1] > ends[0] && f(ends[1] - 1) >= bounds[0]) --ends[1];
        }
        // (share, least f, greatest f) of each run where the sign does not matter, of each a
        // where it does.
        int64_t runs[258][3];
        int count = 0;
        for (int r = 0, begin = 0; r < 3; begin = ends[r++]) {
            const bool signMatters = (r == 1) == oneJ;
            for (int k = begin; k < ends[r]; k = signMatters ? k + 1 : ends[r]) {
                const int last = signMatters ? k : ends[r] - 1;
                runs[count][0] = shareOf(byPart[k]);
                runs[count][1] = f(k);
                runs[count++][2] = f(last);
            }
        }
        int64_t low = INT64_MAX, high = INT64_MIN;
        for (int i = 0; i < count; ++i) {
            low = std::min(low, runs[i][0]);
            high = std::max(high, runs[i][0]);
        }
        int64_t lowTop = -1, highBottom = denominator;
        for (int i = 0; i < count; ++i) {
            if (runs[i][0] == low) lowTop = std::max(lowTop, runs[i][2]);
            if (runs[i][0] != low) highBottom = std::min(highBottom, runs[i][1]);
        }
        whole[1][b] = low;
        part[1][b] = highBottom;
        return high - low <= 1 && lowTop < highBottom;
    }

    bool split() {
        const int32_t r = p.outputRightShift;
        const int64_t multiplier = p.outputMultiplier;
        const int64_t nudge = (int64_t{1} << 30) + (r > 0 ? int64_t{1} << (30 + r) : 0);
        const int64_t nudges[2] = {nudge, r > 0 ? nudge - (int64_t{1} << 31) : nudge};  // S >= 0, S < 0
        for (int a = 0; a < 256; ++a) {
            const int64_t x = int64_t{p.inputs[0].term[a]} * multiplier;  // |term| < 2^28
            whole[0][a] = x >> shift;  // arithmetic: the floor
            part[0][a] = x & (denominator - 1);
        }
        std::iota(byPart, byPart + 256, 0);
        std::sort(byPart, byPart + 256, [&](int x, int y) { return part[0][x] < part[0][y]; });
        for (int b = 0; b < 256; ++b) {
            int64_t shares[2], bounds[2];
            for (int sign = 0; sign < 2; ++sign) {
                const int64_t y = int64_t{p.inputs[1].term[b]} * multiplier + nudges[sign];
                shares[sign] = y >> shift;
                bounds[sign] = denominator - (y & (denominator - 1));
            }
            if (!splitFor(b, shares, bounds)) return false;
        }
        return true;
    }
};

}  // namespace

void prepareWordTables(QuantAddParams* p) {
    p->wordTables = p->wideWords = false;
    if (!p->byteLookups || p->outputMultiplier <= 0) return;
    // A sum S takes the nudge of S >= 0 where S * M >= -2^30: from S = -(2^30 / M) on.
    const int shift = 31 + p->outputRightShift;  // at most 62
    auto s = std::make_unique<Shares>(Shares{*p, shift, int64_t{1} << shift, -((int64_t{1} << 30) / p->outputMultiplier), {}, {}, {}});
    if (!s->split()) return;
    std::vector<int64_t> bounds(s->part[1], s->part[1] + 256);
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    // The ranks by merging: the a in order of f, the b in order of their thresholds.
    int byBound[256];
    std::iota(byBound, byBound + 256, 0);
    std::sort(byBound, byBound + 256, [&](int x, int y) { return s->part[1][x] < s->part[1][y]; });
    int64_t ranks[2][256];
    size_t below = 0;  // how many thresholds are at most f
    for (int a : s->byPart) {
        while (below < bounds.size() && bounds[below] <= s->part[0][a]) ++below;
        ranks[0][a] = static_cast<int64_t>(below);
    }
    below = 0;  // how many thresholds are below h
    for (int b : byBound) {
        while (bounds[below] < s->part[1][b]) ++below;
        ranks[1][b] = static_cast<int64_t>(below) + 1;
    }
    // 32-bit words (the zero point in word_b): where both stay within 2^30, so that no sum wraps.
    const auto [lowA, highA] = std::minmax_element(s->whole[0], s->whole[0] + 256);
    const auto [lowB, highB] = std::minmax_element(s->whole[1], s->whole[1] + 256);
    const int64_t limit = int64_t{1} << 21;  // integer parts within 2^21: words within 2^30
    if (*lowA <= -limit || *highA >= limit || *lowB + p->outputZeroPoint <= -limit || *highB + p->outputZeroPoint >= limit) {
        return;
    }
    for (int v = 0; v < 256; ++v) {
        const int64_t words[2] = {s->whole[0][v] * 256 + ranks[0][v],
                                  (s->whole[1][v] + p->outputZeroPoint) * 256 + 256 - ranks[1][v]};
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
        const int64_t words[2] = {(s->whole[0][v] - moved) * 256 + ranks[0][v],
                                  (s->whole[1][v] + zero + moved) * 256 + 256 - ranks[1][v]};
        for (int i = 0; i < 2; ++i) {
            const auto word = static_cast<uint16_t>(static_cast<int16_t>(words[i]));
            p->wordBytes[i][0][v] = static_cast<uint8_t>(word);
            p->wordBytes[i][1][v] = static_cast<uint8_t>(word >> 8);
        }
    }
    p->wordTables = true;
}

}  // namespace nnemu::synap::kernels
