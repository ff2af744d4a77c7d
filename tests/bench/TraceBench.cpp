// The cost of one trace span with tracing off and on, in one process: NNEMU_TRACE names a
// temporary file, and the off case sets the module's state to off around its loop (it is read
// once per process otherwise). On includes writing the buffer out each time it fills.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "nnemu/base/Trace.h"

namespace {

using nnemu::trace::Span;
namespace detail = nnemu::trace::detail;

void BM_SpanTracingOff(benchmark::State& state) {
    detail::state.store(detail::kOff);
    for (auto _ : state) {
        Span span("span", "bench");
        benchmark::DoNotOptimize(span.active());
    }
    detail::state.store(detail::kOn);
}
BENCHMARK(BM_SpanTracingOff);

void BM_SpanTracingOn(benchmark::State& state) {
    for (auto _ : state) {
        Span span("span", "bench");
        span.arg("layers", 33);
        benchmark::DoNotOptimize(span.active());
    }
}
BENCHMARK(BM_SpanTracingOn)->Iterations(200000);  // about 30 MB of trace

}  // namespace

int main(int argc, char** argv) {
    const std::string path = "/tmp/nnemu_bench_trace_" + std::to_string(getpid()) + ".json";
    setenv("NNEMU_TRACE", path.c_str(), 1);
    if (!nnemu::trace::enabled()) return 1;
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    nnemu::trace::flush();
    std::remove(path.c_str());
    return 0;
}
