#!/usr/bin/env python3
"""Per-execution overhead of synap-npu: what an execution costs besides its NPU run.

Runs build/bin/benchmark_model on one model with each given libneuralnetworks.so (a folder
holding libneuralnetworks.so.1, put first on LD_LIBRARY_PATH), alternately, for several rounds,
each library with a fresh device root of its own and one NPU thread:

- system calls per execution: `strace -f -c` of 300 runs less that of 100 runs, / 200;
- microseconds per execution outside the NPU run: NNEMU_TRACE's `execution` span less the
  `npu run` span inside it, median over 300 executions; and the `statistics` span's median.

  scripts/exec_overhead.py [--rounds N] [--graph MODEL] LIBDIR...
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin")


def run(args, lib, root, extra):
    env = dict(os.environ, LD_LIBRARY_PATH=lib, NNEMU_ROOT=root, NNEMU_NPU_THREADS="1")
    subprocess.run(args + extra, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def syscalls_per_execution(args, lib, root, scratch):
    totals = {}
    for runs in (100, 300):
        out = os.path.join(scratch, "strace.txt")
        run(["strace", "-f", "-c", "-o", out] + args, lib, root, [f"--num_runs={runs}"])
        for line in open(out):
            fields = line.split()
            if fields and fields[-1] == "total":
                totals[runs] = int(fields[3] if len(fields) > 4 else fields[2])
    return (totals[300] - totals[100]) / 200


def microseconds_outside_npu(args, lib, root, scratch):
    trace = os.path.join(scratch, "trace.json")
    if os.path.exists(trace):
        os.remove(trace)  # a trace is added to, never truncated
    run(args, lib, root, ["--num_runs=300", f"--nnemu_trace={trace}"])
    spans = [e for e in json.load(open(trace))["traceEvents"] if e.get("ph") == "X"]
    npu = sorted((e for e in spans if e["name"] == "npu run"), key=lambda e: e["ts"])
    outside = []
    for execution in (e for e in spans if e["name"] == "execution"):
        inside = [n["dur"] for n in npu if execution["ts"] <= n["ts"] <= execution["ts"] + execution["dur"]]
        if len(inside) == 1:
            outside.append(execution["dur"] - inside[0])
    counted = [e["dur"] for e in spans if e["name"] == "statistics"]
    return statistics.median(outside[5:]), statistics.median(counted[5:])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--graph", default="/tmp/m128.tflite")
    parser.add_argument("libs", nargs="+")
    options = parser.parse_args()
    if not os.path.exists(options.graph):
        subprocess.run([os.path.join(BUILD, "nnemu_modelgen"), "mobilenet_v1_0.25_128_quant", options.graph], check=True)
    args = [os.path.join(BUILD, "benchmark_model"), f"--graph={options.graph}", "--use_nnapi=true",
            "--nnapi_accelerator_name=synap-npu", "--min_secs=0", "--warmup_runs=1", "--warmup_min_secs=0"]
    results = {lib: [] for lib in options.libs}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(options.rounds):
            for lib in options.libs:
                root = os.path.join(scratch, "root")
                shutil.rmtree(root, ignore_errors=True)
                run(args, lib, root, ["--num_runs=5"])  # the files in place, the network cached
                calls = syscalls_per_execution(args, lib, root, scratch)
                outside, counted = microseconds_outside_npu(args, lib, root, scratch)
                results[lib].append((calls, outside, counted))
    print("| library | system calls / execution | us / execution outside the NPU run | of which statistics |")
    print("|---|---|---|---|")
    for lib, rows in results.items():
        cells = [" / ".join(f"{row[i]:.1f}" for row in rows) for i in range(3)]
        print(f"| {lib} | {cells[0]} | {cells[1]} | {cells[2]} |")


if __name__ == "__main__":
    main()
