"""A small real training loop for the tests: a Dataset that sleeps per item (a slow decoder),
a two-layer model, SGD. Each step also sleeps STEP_MS, the stand-in for the GPU's compute,
so that DataLoader workers have something to hide behind: with --workers 0 the DataLoader
holds most of each step, with 2 it prefetches while the step runs.

    loop.py [--workers N] [--iterations N] [--capture plain|profile|handler] [--dir DIR]
            [--crash-after N] [--ddp] [--epilogue OUT]

plain: no gpuwhy at all (what `gpuwhy run --profile` is given); profile: gpuwhy.profile;
handler: torch.profiler.profile(on_trace_ready=gpuwhy.trace_handler(DIR))."""

import argparse
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

# A batch takes 20 ms to load; two workers deliver one every 10 ms (plus their overhead, large
# on a busy machine), well inside the 40 ms step.
ITEM_MS = 5
STEP_MS = 40
BATCH = 4


class SlowDataset(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        time.sleep(ITEM_MS / 1000)
        return torch.randn(32), torch.randn(8)


def train(loader, iterations, crash_after, on_step=None, ddp=False):
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    if ddp:
        # One process per rank, as torchrun starts them (RANK, WORLD_SIZE, MASTER_ADDR/PORT):
        # gradients all-reduced over gloo, the CPU backend.
        torch.distributed.init_process_group("gloo")
        model = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        time.sleep(STEP_MS / 1000)
        optimizer.step()
        if on_step:
            on_step()
        if crash_after and i + 1 >= crash_after:
            raise RuntimeError(f"crash after {i + 1} steps, as asked")
        if i + 1 >= iterations:
            break


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--iterations", type=int, default=14)
    p.add_argument("--capture", default="plain", choices=["plain", "profile", "handler"])
    p.add_argument("--dir", default="traces")
    p.add_argument("--crash-after", type=int, default=0)
    p.add_argument("--ddp", action="store_true", help="DistributedDataParallel over gloo")
    p.add_argument("--epilogue", metavar="OUT",
                   help="gpuwhy.epilogue.at_exit(DIR, OUT): reduce RANK at exit, rank 0 merges")
    a = p.parse_args()
    if a.epilogue:
        import gpuwhy.epilogue

        gpuwhy.epilogue.at_exit(a.dir, a.epilogue, timeout=120, poll=0.5)
    loader = DataLoader(SlowDataset(), batch_size=BATCH, num_workers=a.workers)
    if a.capture == "plain":
        train(loader, a.iterations, a.crash_after, ddp=a.ddp)
    elif a.capture == "profile":
        import gpuwhy

        # gpuwhy.profile's defaults (wait 5, warm up 2, record 3), as gpuwhy run --profile:
        # the DataLoader workers' prefetch queue is full by the recorded steps.
        with gpuwhy.profile(steps=3, wait=5, warmup=2, dir=a.dir) as prof:
            train(loader, a.iterations, a.crash_after, ddp=a.ddp)
        print("traces:", *prof.traces, "step mode:", prof.step_mode)
    else:
        import gpuwhy

        handler = gpuwhy.trace_handler(a.dir)
        schedule = torch.profiler.schedule(wait=5, warmup=2, active=3, repeat=1)
        with torch.profiler.profile(schedule=schedule, on_trace_ready=handler,
                                    record_shapes=True) as prof:
            train(loader, a.iterations, a.crash_after, on_step=prof.step)
        print("traces:", *handler.traces)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
