#!/usr/bin/env bash
# The at-scale recipe's costs (docs/at-scale.md), medians of RUNS runs:
# - one rank's reduction, `gpuwhy analyze --summary` of one synthetic comm-exposed trace of
#   about MB megabytes (wall, CPU, peak RSS): what each node pays per rank, --jobs at once;
# - the merge of 1,024 rank summaries through the driver (`python -m gpuwhy.epilogue merge
#   --expect-ranks 1024`, wall and peak RSS of the whole process tree).
#
#   bench/at_scale_bench.sh [BUILD] [MB] [RUNS]      # defaults: build/release 100 5
#
# Needs GNU time (/usr/bin/time). Files go to a folder under ${TMPDIR:-/tmp}, removed at the end.
set -euo pipefail
build=${1:-build/release}
mb=${2:-100}
runs=${3:-5}
gpuwhy=$(realpath "$build/src/cli/gpuwhy")
python_dir=$(cd "$(dirname "$0")/../python" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuwhy_at_scale.XXXXXX")
trap 'rm -rf "$dir"' EXIT
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() {  # timed CMD...: sets T_WALL, T_CPU (user + sys) and T_RSS_KB
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" "$@" > /dev/null 2> "$dir/stderr.txt" || true
  read -r T_WALL user sys T_RSS_KB < "$dir/time.txt"
  T_CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')
}
echo "== $runs runs, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"

mkdir "$dir/job" "$dir/summaries"
"$gpuwhy" synth --scenario comm-exposed --ranks 8 --size-mb "$mb" --slow-rank 3 --slow-by 20 \
  -o "$dir/job/job.json" > /dev/null
w=(); c=(); r=()
for _ in $(seq "$runs"); do
  timed "$gpuwhy" analyze --summary --jobs 1 -o "$dir/job/rank3.summary.json" "$dir/job/job.rank3.json"
  w+=("$T_WALL"); c+=("$T_CPU"); r+=("$T_RSS_KB")
done
size=$(stat -c %s "$dir/job/job.rank3.json")
echo "reduce one rank ($((size / 1000000)) MB trace): $(median "${w[@]}") s wall," \
     "$(median "${c[@]}") CPU s, peak RSS $(( $(median "${r[@]}") / 1024 )) MiB," \
     "summary $(( $(stat -c %s "$dir/job/rank3.summary.json") / 1000 )) kB"

# 1,024 summaries: 128 nodes of 8, each node's ranks one synthetic job's ranks (as perf_report.sh).
for rank in 0 1 2 4 5 6 7; do
  "$gpuwhy" analyze --summary -o "$dir/job/rank$rank.summary.json" "$dir/job/job.rank$rank.json"
done
python3 - "$dir/job" "$dir/summaries" <<'PY'
import json, sys
src, dst = sys.argv[1], sys.argv[2]
base = [json.load(open(f"{src}/rank{r}.summary.json")) for r in range(8)]
for rank in range(1024):
    s = dict(base[rank % 8])
    s["rank"], s["world_size"], s["path"] = rank, 1024, f"rank{rank}.pt.trace.json"
    with open(f"{dst}/rank{rank}.summary.json", "w") as f:
        json.dump(s, f)
PY
w=(); r=()
for _ in $(seq "$runs"); do
  timed env GPUWHY_BIN="$gpuwhy" PYTHONPATH="$python_dir" python3 -m gpuwhy.epilogue merge \
    --out "$dir/summaries" --expect-ranks 1024 --timeout 0
  w+=("$T_WALL"); r+=("$T_RSS_KB")
done
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print('merge.json:', s['summaries'], 'summaries, missing', s['missing'], 'exit', s['exit_code'])" \
  "$dir/summaries/merge.json"
echo "merge of 1,024 summaries ($(du -sm "$dir/summaries" | cut -f1) MB) through the driver:" \
     "$(median "${w[@]}") s wall, peak RSS $(( $(median "${r[@]}") / 1024 )) MiB (target < 10 s, < 1 GB)"
