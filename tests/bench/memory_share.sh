#!/bin/sh
# Memory of N processes running the same network from a warm SyNAP cache, against one process
# and against processes running a tiny network (what the binary, libraries and runtime cost
# without weights). Each process is a benchmark_model on synap-npu, sampled from
# /proc/<pid>/smaps_rollup once it runs steadily; prints per process Rss, Pss and private (clean
# + dirty) in kB, the sums, and with DETAIL=1 the largest private mappings of one process. With a
# baseline it also runs N baseline processes and prints the growth from 1 to N processes (PSS and
# RSS) raw and net of the baseline's growth: what N processes cost for being processes at all
# (their libraries' relocated pages, heap, stacks) is not the network's. Usage:
#   [NNAPI_CACHE=1] [NNEMU_NPU_THREADS=N] tests/bench/memory_share.sh MODEL.tflite [N] [BASELINE.tflite]
#   (benchmark_model and setprop from $BIN or build/bin; the core's default thread pool, what a
#   user gets, unless NNEMU_NPU_THREADS says otherwise)
set -eu
model=$1
count=${2:-4}
baseline=${3:-}
bin=${BIN:-$(dirname "$0")/../../build/bin}
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
export NNEMU_ROOT="$work/root"
settle=${SETTLE:-6}
# NNAPI_CACHE=1: the processes hit the NNAPI compilation cache (vendor.npu.cache.model=1, a
# serialization directory, the SyNAP cache off) instead of the SyNAP cache.
if [ "${NNAPI_CACHE:-0}" = 1 ]; then
    mkdir -p "$work/nncache"
    "$bin/setprop" vendor.npu.cache.model 1 && "$bin/setprop" vendor.SYNAP_CACHE_CAPACITY 0
fi
run() {  # MODEL, more flags: becomes the benchmark_model process (callers run it in a subshell)
    graph=$1
    shift
    set -- --graph="$graph" --use_nnapi=true --nnapi_accelerator_name=synap-npu "$@"
    if [ "${NNAPI_CACHE:-0}" = 1 ]; then
        set -- "$@" --delegate_serialize_dir="$work/nncache" \
            --delegate_serialize_token="$(md5sum < "$graph" | cut -c1-32)"
    fi
    exec "$bin/benchmark_model" "$@" >/dev/null 2>&1
}
start() {  # MODEL: a process running it until killed, one inference every 20 ms
    run "$1" --num_runs=1000000 --min_secs=0 --max_secs=600 --run_delay=0.02 &
    pids="$pids $!"
}
once() { (run "$1" --num_runs=1 --min_secs=0 --warmup_runs=0); }
field() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/smaps_rollup"; }
sample() {  # LABEL: one line per running process and the sums
    rss=0 pss=0 priv=0
    for p in $pids; do
        r=$(field Rss "$p") s=$(field Pss "$p")
        v=$(($(field Private_Clean "$p") + $(field Private_Dirty "$p")))
        echo "$1 pid=$p rss_kb=$r pss_kb=$s private_kb=$v anon_kb=$(field Anonymous "$p")"
        rss=$((rss + r)) pss=$((pss + s)) priv=$((priv + v))
    done
    echo "$1 sum rss_kb=$rss pss_kb=$pss private_kb=$priv"
    eval "${2:-sum}_rss=$rss ${2:-sum}_pss=$pss ${2:-sum}_private=$priv"
}
detail() {  # the largest private mappings of process $1
    awk '/^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6 ? $6 : "[anon]") }
         /^Private_(Clean|Dirty):/ { private[name] += $2 }
         END { for (n in private) if (private[n] >= 256) print private[n] " kB " n }' "/proc/$1/smaps" | sort -rn
}
stopAll() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=""
}
startMany() {  # MODEL: N processes running it
    i=0
    while [ "$i" -lt "$count" ]; do start "$1"; i=$((i + 1)); done
}
if [ -n "$baseline" ]; then
    once "$baseline" && once "$baseline"
    start "$baseline"; sleep "$settle"; sample baseline base1
    [ "${DETAIL:-0}" = 1 ] && detail "${pids# }"
    stopAll
    startMany "$baseline"; sleep "$settle"; sample baseline_all baseN
    stopAll
fi
once "$model"   # cold: compiles and stores
once "$model"   # first hit (writes the program file if the store did not)
start "$model"; sleep "$settle"; sample one one
[ "${DETAIL:-0}" = 1 ] && detail "${pids# }"
stopAll
startMany "$model"
sleep "$settle"; sample all all
stopAll
for f in pss rss; do
    eval "raw=\$((all_$f - one_$f))"
    line="growth 1->$count $f raw_kb=$raw"
    if [ -n "$baseline" ]; then
        eval "base=\$((baseN_$f - base1_$f))"
        line="$line baseline_kb=$base net_kb=$((raw - base))"
    fi
    echo "$line"
done
# Private pages are the stable part (PSS of one process moves with whatever else maps the same
# libraries): each added process costs about its private memory, net of a baseline process's.
mean=$((all_private / count))
line="private per process (of $count) network_kb=$mean"
if [ -n "$baseline" ]; then
    base=$((baseN_private / count))
    line="$line baseline_kb=$base net_growth_kb=$(((count - 1) * (mean - base)))"
fi
echo "$line"
