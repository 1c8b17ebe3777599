#!/usr/bin/env bash
# Issue 20's figures in one run: import against a minimal simdjson On-Demand walk, analysis
# time / import time (a synthetic trace, and copies of a real trace whose step numbers
# repeat), peak RSS / input for `info`, `analyze` and the Nsight Systems import, `.json.gz`
# against plain and against inflating then parsing on one thread, `--jobs 2`
# against `--jobs 1` with CPU time per rank, and a merge of 1,024 rank summaries.
#
#   bench/perf_report.sh [BUILD] [MB] [RUNS]      # defaults: build/release 100 5
#
# Every figure is a median of RUNS runs, interleaved where two things are compared (this
# machine is shared: single timings mean little). Files go to a folder under ${TMPDIR:-/tmp}
# (about 3 × MB of disk), removed at the end. Needs GNU time (/usr/bin/time) and gzip.
set -euo pipefail
build=${1:-build/release}
mb=${2:-100}
runs=${3:-5}
gpuwhy=$build/src/cli/gpuwhy
here=$(cd "$(dirname "$0")" && pwd)
real=${REAL_TRACE:-$here/../../shared/data/kineto/hta/trace_diff_control_control.json.gz}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuwhy_perf.XXXXXX")
trap 'rm -rf "$dir"' EXIT

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
# timed CMD...: runs CMD under GNU time; sets T_WALL, T_CPU (user + sys) and T_RSS_KB.
timed() {
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" "$@" > /dev/null 2> "$dir/stderr.txt" || true
  read -r T_WALL user sys T_RSS_KB < "$dir/time.txt"
  T_CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')
}
size_of() { stat -c %s "$1"; }

echo "== inputs (${mb} MB, $runs runs, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
"$gpuwhy" synth --scenario healthy --size-mb "$mb" -o "$dir/synthetic.json" > /dev/null
rm -f "$dir/synthetic.json.truth.json"
"$build/bench/repeat_trace" "$real" "$dir/repeated.json" --size-mb "$mb"
echo "synthetic: $(( $(size_of "$dir/synthetic.json") / 1000000 )) MB; repeated real: $(basename "$real")" \
     "to $(( $(size_of "$dir/repeated.json") / 1000000 )) MB"

echo "== import against the simdjson On-Demand walk (interleaved, in fresh processes)"
"$build/bench/ingest_bench" --trace "$dir/synthetic.json" --runs "$runs" --walk 2> /dev/null

echo "== analysis / import (AnalyzeTrace in process, import interleaved)"
for t in synthetic repeated; do
  echo "-- $t"
  "$build/bench/analyze_bench" --trace "$dir/$t.json" --runs "$runs" | sed -n '1,2p' || true
done

echo "== peak RSS / input and wall, gpuwhy info and analyze (interleaved)"
for t in synthetic repeated; do
  f="$dir/$t.json"
  iw=(); ir=(); aw=(); ar=()
  for _ in $(seq "$runs"); do
    timed "$gpuwhy" info "$f"; iw+=("$T_WALL"); ir+=("$T_RSS_KB")
    timed "$gpuwhy" analyze "$f" --format json -o "$dir/report.json"; aw+=("$T_WALL"); ar+=("$T_RSS_KB")
  done
  bytes=$(size_of "$f")
  echo "$t: info $(median "${iw[@]}") s, RSS $(ratio "$(median "${ir[@]}")000" "$bytes")x;" \
       "analyze $(median "${aw[@]}") s, RSS $(ratio "$(median "${ar[@]}")000" "$bytes")x;" \
       "(analyze - info) / info = $(ratio "$(awk -v a="$(median "${aw[@]}")" -v i="$(median "${iw[@]}")" 'BEGIN {print a - i}')" "$(median "${iw[@]}")")"
done

echo "== Nsight Systems import (nsys_ingest_bench: launch-bound export of 600 steps, fresh processes)"
"$gpuwhy" synth --scenario launch-bound --steps 600 --format nsys-sqlite -o "$dir/nsys.sqlite" > /dev/null
"$build/bench/nsys_ingest_bench" --trace "$dir/nsys.sqlite" --runs "$runs" 2> /dev/null
rm -f "$dir/nsys.sqlite" "$dir/nsys.sqlite.truth.json"

echo "== .json.gz against plain (gpuwhy info, interleaved)"
gzip -6 -c "$dir/synthetic.json" > "$dir/synthetic.json.gz"
# Inflating alone, with zlib (what gpuwhy links) in 1 MiB chunks and nothing parsed: the
# importer before the read-ahead thread inflated and parsed one after the other on one
# thread, so (inflate + plain) / gzip is the speed-up the second thread buys (target >= 1.5).
# Timed inside Python, so its start-up is not counted.
inflate_py='import sys, time, zlib
t = time.perf_counter()
d = zlib.decompressobj(31)
with open(sys.argv[1], "rb") as f:
    while chunk := f.read(1 << 20):
        d.decompress(chunk)
print(f"{time.perf_counter() - t:.3f}")'
pw=(); gw=(); gr=(); pr=(); iw=()
for _ in $(seq "$runs"); do
  timed "$gpuwhy" info "$dir/synthetic.json"; pw+=("$T_WALL"); pr+=("$T_RSS_KB")
  timed "$gpuwhy" info "$dir/synthetic.json.gz"; gw+=("$T_WALL"); gr+=("$T_RSS_KB")
  iw+=("$(python3 -c "$inflate_py" "$dir/synthetic.json.gz")")
done
one_thread=$(awk -v a="$(median "${iw[@]}")" -v b="$(median "${pw[@]}")" 'BEGIN {print a + b}')
echo "plain $(median "${pw[@]}") s ($(( $(median "${pr[@]}") / 1024 )) MiB), gzip $(median "${gw[@]}") s" \
     "($(( $(median "${gr[@]}") / 1024 )) MiB, $(( $(size_of "$dir/synthetic.json.gz") / 1000000 )) MB .gz):" \
     "gzip / plain wall = $(ratio "$(median "${gw[@]}")" "$(median "${pw[@]}")");" \
     "inflate alone $(median "${iw[@]}") s: (inflate + plain) / gzip wall =" \
     "$(ratio "$one_thread" "$(median "${gw[@]}")") (target >= 1.5)"
rm -f "$dir/synthetic.json.gz" "$dir/repeated.json"

echo "== --jobs 2 against --jobs 1 (4 ranks of $((mb / 4)) MB, gpuwhy analyze DIR, interleaved)"
mkdir "$dir/ranks"
"$gpuwhy" synth --scenario comm-exposed --ranks 4 --size-mb $((mb / 4)) -o "$dir/ranks/job.json" > /dev/null
rm -f "$dir/ranks/job.json.truth.json"
w1=(); w2=(); c1=(); c2=()
for _ in $(seq "$runs"); do
  timed "$gpuwhy" analyze "$dir/ranks" --jobs 1 --format json -o "$dir/report.json"; w1+=("$T_WALL"); c1+=("$T_CPU")
  timed "$gpuwhy" analyze "$dir/ranks" --jobs 2 --format json -o "$dir/report.json"; w2+=("$T_WALL"); c2+=("$T_CPU")
done
echo "jobs 1: $(median "${w1[@]}") s wall, $(ratio "$(median "${c1[@]}")" 4) CPU s per rank;" \
     "jobs 2: $(median "${w2[@]}") s wall, $(ratio "$(median "${c2[@]}")" 4) CPU s per rank;" \
     "speed-up jobs 1 / jobs 2 = $(ratio "$(median "${w1[@]}")" "$(median "${w2[@]}")")"
rm -rf "$dir/ranks"

echo "== merge of 1,024 rank summaries (gpuwhy analyze *.summary.json)"
mkdir "$dir/job" "$dir/summaries"
"$gpuwhy" synth --scenario comm-exposed --ranks 8 --steps 20 --slow-rank 3 --slow-by 20 \
  -o "$dir/job/job.json" > /dev/null
for r in $(seq 0 7); do
  "$gpuwhy" analyze --summary "$dir/job/job.rank$r.json" -o "$dir/job/rank$r.summary.json"
done
python3 - "$dir/job" "$dir/summaries" <<'PY'
import json, sys
src, dst = sys.argv[1], sys.argv[2]
base = [json.load(open(f"{src}/rank{r}.summary.json")) for r in range(8)]
for rank in range(1024):  # 128 nodes of 8: each node's ranks are one synthetic job's ranks
    s = dict(base[rank % 8])
    s["rank"], s["world_size"], s["path"] = rank, 1024, f"rank{rank}.pt.trace.json"
    with open(f"{dst}/rank{rank:04d}.summary.json", "w") as f:
        json.dump(s, f)
PY
echo "summaries: $(du -sm "$dir/summaries" | cut -f1) MB"
mw=(); mr=()
for _ in $(seq "$runs"); do
  timed "$gpuwhy" analyze "$dir"/summaries/*.summary.json --format json -o "$dir/report.json"
  mw+=("$T_WALL"); mr+=("$T_RSS_KB")
done
echo "merge: $(median "${mw[@]}") s wall, peak RSS $(( $(median "${mr[@]}") / 1024 )) MiB" \
     "(target < 10 s, < 1 GB)"
