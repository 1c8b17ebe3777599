#!/usr/bin/env bash
# One node's part of deploy/slurm/epilogue.sh (a task of its first srun step): reduces the
# traces this node's ranks wrote into GPUWHY_SUMMARIES, one rankR.summary.json per rank, and
# leaves nodeI-of-N.done.json. Traces in a node-local folder are all this node's; in a shared
# folder (GPUWHY_TRACES_SHARED=1) only those gpuwhy.profile named with this host are.
set -uo pipefail
py=${GPUWHY_PYTHON:-python3}
"$py" -c 'import gpuwhy.epilogue' 2>/dev/null ||
  export PYTHONPATH=/usr/share/gpuwhy/python${PYTHONPATH:+:$PYTHONPATH}
host=()
if [ "${GPUWHY_TRACES_SHARED:-0}" = 1 ]; then
  host=(--host "$(hostname -s)")
fi
# The node's index and count come from SLURM_NODEID and SLURM_JOB_NUM_NODES.
exec "$py" -m gpuwhy.epilogue reduce --traces "${GPUWHY_TRACES:?}" --out "${GPUWHY_SUMMARIES:?}" \
  "${host[@]}" ${GPUWHY_REDUCE_TIMEOUT:+--timeout "$GPUWHY_REDUCE_TIMEOUT"}
