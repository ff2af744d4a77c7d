#!/usr/bin/env bash
# Whether the SyNAP cache prefetch is done before the first inference, this build against another:
# warm processes of issue 26's models (each build on a device root of its own, warmed first), the
# builds interleaved, one NPU thread. Per model and build, medians over the processes (ms from the
# start of the `compilation` span): Init and First inference as benchmark_model prints them, when
# the `synap cache prefetch` span starts and ends, when the first `execution` starts, its `jit`
# span (the wait for the prefetch), how many processes' JIT took over 50 us, and the first
# execution over the steady `npu run`.
#
#   [MODELS=regex] bash tests/bench/prefetch_vs_base.sh BUILD_DIR BASE_BUILD_DIR [PROCESSES]
set -euo pipefail
build=$1
base=$2
processes=${3:-9}
here=$(cd "$(dirname "$0")" && pwd)
shared=${NNEMU_SHARED_DIR:-$here/../../../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NNEMU_NPU_THREADS=1
source "$here/issue26_models.sh"
sleep 2  # a model file changed in the last two seconds is hashed, not known by its identity

run() {  # build label model [trace]
    NNEMU_ROOT=$work/root.$2 "$1/bin/benchmark_model" --graph="$3" --use_nnapi=true --nnapi_accelerator_name=synap-npu \
        --num_runs=20 --min_secs=0 --warmup_runs=1 --warmup_min_secs=0 ${4:+--nnemu_trace=$4} 2>&1 |
        sed -n 's/.*Init: \([0-9.e+]*\), First inference: \([0-9.e+]*\),.*/\1 \2/p'
}
for model in "${models[@]}"; do
    name=$(basename "$model" .tflite)
    for label in base this; do
        dir=$build; [[ $label == base ]] && dir=$base
        run "$dir" "$label.$name" "$model" > /dev/null  # cold: compiles and stores
        run "$dir" "$label.$name" "$model" > /dev/null
    done
    for ((i = 0; i < processes; ++i)); do
        for label in base this; do
            dir=$build; [[ $label == base ]] && dir=$base
            trace=$work/trace.json
            rm -f "$trace"
            echo "$label $(run "$dir" "$label.$name" "$model" "$trace") $trace" >> "$work/$name.runs"
            python3 - "$trace" >> "$work/$name.spans" <<'PY'
import json, sys
ev = sorted((e for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph') == 'X'), key=lambda e: e['ts'])
first = lambda n: next((e for e in ev if e['name'] == n), None)
t0 = first('compilation')['ts']
pf, ex, jit = first('synap cache prefetch'), first('execution'), first('jit')
runs = sorted(e['dur'] for e in ev if e['name'] == 'npu run')
steady = runs[len(runs) // 2]
ms = lambda us: f"{us / 1000:.3f}"
print(ms(pf['ts'] - t0) if pf else 'nan', ms(pf['ts'] + pf['dur'] - t0) if pf else 'nan', ms(ex['ts'] - t0),
      ms(jit['dur']), f"{ex['dur'] / steady:.2f}")
PY
        done
    done
    echo "$name"
    paste -d' ' "$work/$name.runs" "$work/$name.spans" | python3 -c '
import sys, statistics as st, collections
rows = collections.defaultdict(list)
for line in sys.stdin:
    f = line.split()
    rows[f[0]].append([float(x) for x in f[1:3] + f[4:]])
for label in ("base", "this"):
    r = rows[label]
    med = lambda i: st.median(x[i] for x in r if x[i] == x[i])
    waited = sum(1 for x in r if x[5] > 0.05)
    print(f"  {label}: Init {med(0) / 1000:.2f} ms, First {med(1) / 1000:.2f} ms; prefetch {med(2):.2f}-{med(3):.2f},"
          f" first execution at {med(4):.2f}, jit {med(5):.3f} ms (over 50 us: {waited} of {len(r)}),"
          f" first execution / steady npu run {med(6):.2f}")
'
done
