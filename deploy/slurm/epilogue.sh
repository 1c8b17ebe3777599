#!/usr/bin/env bash
# gpuwhy as a Slurm job's epilogue (docs/at-scale.md): the last line of the batch script,
# after the training step, in the same allocation:
#
#   srun python train.py                        # each rank writes its trace (gpuwhy.profile)
#   GPUWHY_TRACES=/local/traces GPUWHY_SUMMARIES=/shared/gpuwhy/$SLURM_JOB_ID \
#     deploy/slurm/epilogue.sh
#
# Step 1, one task per node (reduce-node.sh): each node reduces the traces its own ranks wrote,
# where they are, to one small summary per rank in the shared folder. Step 2, one task: merges
# every summary into GPUWHY_SUMMARIES/report.json and merge.json (ranks present, missing,
# failed). A node that fails or dies leaves its ranks named as missing; the merge never hangs
# (it waits at most GPUWHY_MERGE_TIMEOUT seconds for the nodes' markers).
set -uo pipefail
: "${SLURM_JOB_NUM_NODES:?run inside a Slurm allocation (sbatch or salloc)}"
: "${GPUWHY_TRACES:?set GPUWHY_TRACES to the folder the ranks of each node wrote their traces to}"
export GPUWHY_SUMMARIES=${GPUWHY_SUMMARIES:-$GPUWHY_TRACES/gpuwhy-summaries}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
py=${GPUWHY_PYTHON:-python3}
# The .deb ships the package in /usr/share/gpuwhy/python; a pip install needs nothing.
"$py" -c 'import gpuwhy.epilogue' 2>/dev/null ||
  export PYTHONPATH=/usr/share/gpuwhy/python${PYTHONPATH:+:$PYTHONPATH}
mkdir -p "$GPUWHY_SUMMARIES"

# Every core of the node for its reductions (one gpuwhy process per trace, --jobs at once).
# --kill-on-bad-exit=0: a node whose trace is bad must not stop the other nodes' reductions.
srun --nodes="$SLURM_JOB_NUM_NODES" --ntasks="$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 \
  --cpus-per-task="${SLURM_CPUS_ON_NODE:-1}" --kill-on-bad-exit=0 --job-name=gpuwhy-reduce \
  bash "$here/reduce-node.sh"
reduced=$?

srun --nodes=1 --ntasks=1 --job-name=gpuwhy-merge \
  "$py" -m gpuwhy.epilogue merge --out "$GPUWHY_SUMMARIES" \
  --expect-nodes "$SLURM_JOB_NUM_NODES" --timeout "${GPUWHY_MERGE_TIMEOUT:-600}"
merged=$?
# 0: every rank is in the report; 2: it is partial (merge.json says which ranks and why).
[ "$reduced" -eq 0 ] && exit "$merged"
exit 2
