#!/usr/bin/env bash
# Reduce and merge a finished job's trace folder with Slurm (docs/at-scale.md):
#
#   deploy/slurm/submit-posthoc.sh TRACE_DIR SUMMARY_DIR [TASKS]
#
# submits reduce-array.sbatch as TASKS array tasks (default 16) and one merge job that starts
# when the array has ended, however its tasks ended (afterany): the merge names the ranks a
# failed task left out. The report lands in SUMMARY_DIR/report.json, the tally in merge.json.
set -euo pipefail
traces=${1:?usage: submit-posthoc.sh TRACE_DIR SUMMARY_DIR [TASKS]}
summaries=${2:?usage: submit-posthoc.sh TRACE_DIR SUMMARY_DIR [TASKS]}
tasks=${3:-16}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=${GPUWHY_PYTHON:-python3}
mkdir -p "$summaries"
array=$(sbatch --parsable --array="0-$((tasks - 1))" "$here/reduce-array.sbatch" "$traces" "$summaries")
# The array has ended when the merge starts: a short timeout only covers a slow file system.
sbatch --parsable --dependency="afterany:${array%%;*}" --job-name=gpuwhy-merge --ntasks=1 \
  --cpus-per-task=1 --mem=4G --time=00:15:00 --export=ALL \
  --wrap="PYTHONPATH=${PYTHONPATH:-/usr/share/gpuwhy/python} $py -m gpuwhy.epilogue merge --out '$summaries' --expect-nodes $tasks --timeout 60"
