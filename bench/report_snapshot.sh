#!/usr/bin/env bash
# `gpuwhy analyze --format json` of every real Kineto trace, one file each, to compare two
# builds byte for byte (a speed change must not change a report):
#   bench/report_snapshot.sh OLD_GPUWHY /work/tmp-perf/before
#   bench/report_snapshot.sh NEW_GPUWHY /work/tmp-perf/after
#   diff -r /work/tmp-perf/before /work/tmp-perf/after && echo identical
# Traces come from ../shared/data/kineto (read only); exit codes of analyze are kept beside
# each report, since a finding changes them.
set -euo pipefail
gpuwhy=$1
out=$2
data=${3:-$(dirname "$0")/../../shared/data/kineto}
mkdir -p "$out"
find "$data" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort | while read -r trace; do
  name=$(echo "${trace#"$data"/}" | tr '/' '_')
  rc=0
  "$gpuwhy" analyze "$trace" --format json -o "$out/$name.report.json" 2> "$out/$name.stderr" || rc=$?
  echo "$rc" > "$out/$name.rc"
done
echo "$(find "$out" -name '*.report.json' | wc -l) reports in $out"
