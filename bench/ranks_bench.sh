#!/usr/bin/env bash
# Multi-rank memory benchmark: N synthetic ranks of M MB each (comm-exposed, rank 1 slow by
# 15%), analysed by one `gpuwhy analyze DIR`; prints wall time and peak RSS of each run and
# their medians; then one `gpuwhy annotate DIR` merging every rank into one aligned trace
# (peak RSS, wall, output size). Usage: bench/ranks_bench.sh [GPUWHY] [RANKS] [MB] [RUNS]
# Needs GNU time (/usr/bin/time, Debian package "time"). Files go to a temporary directory.
set -euo pipefail
gpuwhy=${1:-build/release/src/cli/gpuwhy}
ranks=${2:-32}
mb=${3:-100}
runs=${4:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuwhy_ranks_bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/in"  # traces only: the report and timings go beside it
"$gpuwhy" synth --scenario comm-exposed --ranks "$ranks" --size-mb "$mb" --slow-rank 1 --slow-by 15 \
  -o "$dir/in/job.json" > /dev/null
rm "$dir/in/job.json.truth.json"
du -sh "$dir/in" | sed 's/^/input: /'
rss=()
wall=()
for i in $(seq "$runs"); do
  /usr/bin/time -f '%M %e' -o "$dir/time.txt" "$gpuwhy" analyze "$dir/in" --format json -o "$dir/out.json" || true
  read -r kb secs < "$dir/time.txt"
  echo "run $i: peak RSS $((kb / 1024)) MiB, wall ${secs} s"
  rss+=("$kb")
  wall+=("$secs")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "median of $runs: peak RSS $(( $(median "${rss[@]}") / 1024 )) MiB, wall $(median "${wall[@]}") s" \
     "($ranks ranks x $mb MB, $(nproc) cores)"
python3 - "$dir/out.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cross_rank"]
s = c["stragglers"][0]
print(f"straggler: rank {s['rank']} late at {s['late_count']}/{s['collectives']}, "
      f"{s['mean_late_ns'] / 1e6:.3f} ms, cause {s['cause']}; {len(c['collectives'])} collectives matched")
PY
/usr/bin/time -f '%M %e' -o "$dir/time.txt" "$gpuwhy" annotate "$dir/in" -o "$dir/merged.json.gz" || true
read -r kb secs < "$dir/time.txt"
echo "annotate (merged trace of $ranks ranks): peak RSS $((kb / 1024)) MiB, wall ${secs} s," \
     "output $(du -m "$dir/merged.json.gz" | cut -f1) MiB gzip"
