"""Starts SCRIPT ARGS... as two ranks with the environment torchrun gives each (RANK,
LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and exits with the worst exit code.

Kept so that this test does not depend on torchrun's own start-up: Debian 12's python3-torch
1.13 under Python 3.11 fails before starting any worker with torchrun's defaults
(AttributeError: 'NoneType' object has no attribute 'get' in ...multiprocessing.api.to_map).
test_torchrun.py runs the real torchrun, with the work-around it documents."""

import os
import subprocess
import sys


def main():
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2",
                   LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT="29517")
        procs.append(subprocess.Popen([sys.executable, *sys.argv[1:]], env=env))
    return max(p.wait() for p in procs)


if __name__ == "__main__":
    sys.exit(main())
