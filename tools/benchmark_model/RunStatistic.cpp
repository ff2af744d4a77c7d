#include "RunStatistic.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace nnemu::benchmark {

void RunStatistic::add(int64_t value) {
    if (count_ == 0) first_ = value;
    newest_ = value;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
    ++count_;
    sum_ += value;
    squaredSum_ += static_cast<double>(value) * static_cast<double>(value);
}

double RunStatistic::average() const {
    return empty() ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

int64_t RunStatistic::variance() const {
    if (allSame()) return 0;
    const double mean = average();
    return static_cast<int64_t>(squaredSum_ / static_cast<double>(count_) - mean * mean);
}

int64_t RunStatistic::standardDeviation() const {
    if (allSame()) return 0;
    return static_cast<int64_t>(std::sqrt(static_cast<double>(variance())));
}

void RunStatistic::print(std::ostream& out) const {
    if (empty()) {
        out << "count=0";
    } else if (allSame()) {
        out << "count=" << count_ << " curr=" << newest_;
        if (count_ > 1) out << "(all same)";
    } else {
        out << "count=" << count_ << " first=" << first_ << " curr=" << newest_ << " min=" << min_
            << " max=" << max_ << " avg=" << average() << " std=" << standardDeviation();
    }
}

std::string RunStatistic::toString() const {
    std::ostringstream out;
    print(out);
    return out.str();
}

}  // namespace nnemu::benchmark
