// The running statistic benchmark_model keeps for timings (TFLite's Stat<int64_t>): count, first,
// newest, min, max, sum and sum of squares, printed as the "count=..." line users compare.
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace nnemu::benchmark {

class RunStatistic {
public:
    void add(int64_t value);

    bool empty() const { return count_ == 0; }
    int64_t count() const { return count_; }
    int64_t first() const { return first_; }
    int64_t newest() const { return newest_; }
    int64_t min() const { return min_; }
    int64_t max() const { return max_; }
    int64_t sum() const { return sum_; }
    bool allSame() const { return count_ == 0 || min_ == max_; }

    // Mean as a double; 0 when empty (TFLite asks an integer type for its NaN, which is 0).
    double average() const;
    // Population variance and standard deviation, both truncated to integers at each step as
    // TFLite's integer Stat does (so std= is the integer sqrt of the integer variance).
    int64_t variance() const;
    int64_t standardDeviation() const;

    // "count=0" | "count=N curr=X" (+"(all same)" when N > 1) |
    // "count=N first=F curr=C min=m max=M avg=A std=S" with A at default stream precision.
    void print(std::ostream& out) const;
    std::string toString() const;

private:
    int64_t count_ = 0;
    int64_t first_ = 0;
    int64_t newest_ = 0;
    int64_t min_ = std::numeric_limits<int64_t>::max();
    int64_t max_ = std::numeric_limits<int64_t>::min();
    int64_t sum_ = 0;
    double squaredSum_ = 0;
};

}  // namespace nnemu::benchmark
