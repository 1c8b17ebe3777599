#!/usr/bin/env python3
"""End to end: a real Prometheus (Debian's package) scrapes `gpuwhy serve` running on the
fake libnvidia-ml, with the shipped scrape config and rules, until the GPU metrics and a
firing alert (GpuXidError: the fake GPU reports Xid 79) appear in Prometheus' API.

The shipped deploy/prometheus/prometheus.yml is used as is except for two test settings:
the target address (a free loopback port) and 1 s scrape/evaluation intervals so the test
takes seconds. Exit 77 (skip) when prometheus is not installed.

Then, under load (issue 38): 2,000 idle connections from 20 loopback addresses (127.0.0.2 to
127.0.0.21, 100 each; they send nothing, and one the server drops connects again) are held
open against serve while Prometheus goes on scraping it from 127.0.0.1: every scrape in the
loaded window must succeed (Prometheus' own up == 1 and fresh gpuwhy samples, its target's
last scrape error-free and under the 1 s scrape timeout). About 12 s in all.
"""
import argparse
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def wait_for(what, probe, deadline):
    last = None
    while time.time() < deadline:
        try:
            last = probe()
            if last:
                return last
        except OSError as e:
            last = e
        time.sleep(0.5)
    raise SystemExit(f"timed out waiting for {what} (last: {last})")


class IdleClients:
    """|per_source| connections from each of |sources| (any 127.x.y.z is this machine) that
    send nothing; a thread checks them every 200 ms and connects again any the server let go
    (its queue of waiting connections is bounded, so some are refused and come back)."""

    def __init__(self, port, sources, per_source):
        self.port = port
        self.sources = [s for s in sources for _ in range(per_source)]
        self.socks = [None] * len(self.sources)
        self.open = 0
        self.reconnects = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def connect(self, source):
        s = socket.socket()
        s.settimeout(0.2)
        try:
            s.bind((source, 0))
            s.connect(("127.0.0.1", self.port))
            s.setblocking(False)
            return s
        except OSError:
            s.close()
            return None

    @staticmethod
    def alive(s):
        try:
            return not s.recv(1, socket.MSG_PEEK)  # a 503 or a close: let go
        except BlockingIOError:
            return True  # nothing to read: still held
        except OSError:
            return False

    def run(self):
        while not self.stop.is_set():
            held = 0
            for i, source in enumerate(self.sources):
                if self.stop.is_set():
                    break
                s = self.socks[i]
                if s is not None and self.alive(s):
                    held += 1
                    continue
                if s is not None:
                    s.close()
                    self.reconnects += 1
                self.socks[i] = self.connect(source)
                held += self.socks[i] is not None
            self.open = held
            self.stop.wait(0.2)

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            if s is not None:
                s.close()


def raise_open_files(needed):
    """Raises this process's open-file limit (serve inherits it); False when the hard limit
    is below |needed|."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        return False
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return True


def scrapes_under_idle_load(api, query, serve_port, connections):
    """Holds |connections| idle connections from 20 addresses while Prometheus scrapes serve;
    returns a line saying what held, or exits with what failed."""
    idle = IdleClients(serve_port, [f"127.0.0.{2 + i}" for i in range(20)], connections // 20)
    try:
        wait_for(f"{connections * 95 // 100} idle connections open",
                 lambda: idle.open >= connections * 95 // 100, time.time() + 8)
        time.sleep(3.5)  # three scrapes at the 1 s interval, all under the load
        window = "[3s]"
        ups = query(f'count_over_time(up{{job="gpuwhy"}}{window})')
        worst = query(f'min_over_time(up{{job="gpuwhy"}}{window})')
        fresh = query(f'count_over_time(gpuwhy_gpu_utilization_ratio{{uuid="GPU-e2e"}}{window})')
        held = idle.open
        targets = get_json(api + "/targets")["data"]["activeTargets"]
    finally:
        idle.close()
    scraped = int(ups[0]["value"][1]) if ups else 0
    assert scraped >= 2, f"{scraped} scrapes in the 3 s under load, expected 2 or more"
    assert worst and worst[0]["value"][1] == "1", f"a scrape under load failed: up min {worst}"
    assert fresh and int(fresh[0]["value"][1]) >= 2, f"gpuwhy samples under load: {fresh}"
    assert held >= connections * 95 // 100, f"only {held} idle connections held at the end"
    target = [t for t in targets if t["labels"].get("job") == "gpuwhy"]
    assert target, targets
    t = target[0]
    assert t["health"] == "up" and t["lastError"] == "", t
    assert t["lastScrapeDuration"] < 1.0, t
    return (f"{scraped} scrapes in 3 s all up while {held} idle connections from 20 addresses "
            f"were held ({idle.reconnects} connected again after the server let them go); the "
            f"last scrape took {t['lastScrapeDuration'] * 1000:.0f} ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--fake-nvml", required=True)
    parser.add_argument("--deploy", required=True)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--idle-connections", type=int, default=2000,
                        help="idle connections held while Prometheus scrapes (0: none)")
    args = parser.parse_args()
    prometheus = shutil.which("prometheus")
    if prometheus is None:
        print("prometheus (Debian package prometheus) is absent: end-to-end test skipped")
        return 77

    # Serve holds the idle connections too: its limit (inherited) must fit them.
    loaded = args.idle_connections > 0 and raise_open_files(2 * args.idle_connections + 500)
    work = tempfile.mkdtemp(prefix="gpuwhy_e2e_")
    procs = []
    try:
        # The fake GPU: busy, then Xid 79 on its fifth sample.
        lib = os.path.join(work, "libnvidia-ml.so.1")
        shutil.copy(args.fake_nvml, lib)
        script = os.path.join(work, "nvml.txt")
        with open(script, "w") as f:
            f.write("devices 1\nstatic 0 name=FakeH100 uuid=GPU-e2e bus=00000000:17:00.0 "
                    "smmax=1980 genmax=5 widthmax=16 total=81559 plimit=700\n")
            for i in range(8):
                f.write("tick 0 util=97 used=40000 gen=5 width=16 power=600 temp=70"
                        + (" xid=79" if i == 4 else "") + "\n")
        env = dict(os.environ, GPUWHY_NVML_LIBRARY=lib, FAKE_NVML_SCRIPT=script)
        serve_port = free_port()
        serve = subprocess.Popen(
            [args.gpuwhy, "serve", f"--listen=127.0.0.1:{serve_port}", "--interval=100",
             "--refresh=200", "--window=10"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(serve)

        with open(os.path.join(args.deploy, "prometheus.yml")) as f:
            config = f.read()
        config = re.sub(r"127\.0\.0\.1:\d+", f"127.0.0.1:{serve_port}", config)
        config = re.sub(r"(scrape_interval|evaluation_interval): 15s", r"\1: 1s", config)
        config = config.replace("scrape_timeout: 5s", "scrape_timeout: 1s")
        with open(os.path.join(work, "prometheus.yml"), "w") as f:
            f.write(config)
        shutil.copy(os.path.join(args.deploy, "gpuwhy-rules.yml"), work)
        prom_port = free_port()
        prom = subprocess.Popen(
            [prometheus, f"--config.file={work}/prometheus.yml",
             f"--storage.tsdb.path={work}/data", f"--web.listen-address=127.0.0.1:{prom_port}"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "prometheus.log"), "w"))
        procs.append(prom)

        deadline = time.time() + args.timeout
        api = f"http://127.0.0.1:{prom_port}/api/v1"

        def query(expr):
            data = get_json(f"{api}/query?" + urllib.parse.urlencode({"query": expr}))
            return data["data"]["result"]

        util = wait_for("gpuwhy_gpu_utilization_ratio in Prometheus",
                        lambda: query('gpuwhy_gpu_utilization_ratio{uuid="GPU-e2e"}'), deadline)
        value = float(util[0]["value"][1])
        assert abs(value - 0.97) < 1e-9, f"utilization {value}, expected 0.97"
        up = wait_for("up == 1", lambda: [r for r in query('up{job="gpuwhy"}')
                                          if r["value"][1] == "1"], deadline)
        assert up

        def firing():
            alerts = get_json(f"{api}/alerts")["data"]["alerts"]
            return [a for a in alerts
                    if a["labels"]["alertname"] == "GpuXidError" and a["state"] == "firing"]

        alert = wait_for("GpuXidError firing", firing, deadline)[0]
        assert alert["labels"]["code"] == "79", alert
        assert alert["labels"]["uuid"] == "GPU-e2e", alert
        print(f"Prometheus scraped gpuwhy serve (utilization {value}) and GpuXidError "
              f"fires for Xid {alert['labels']['code']}")
        if loaded:
            print(scrapes_under_idle_load(api, query, serve_port, args.idle_connections))
        elif args.idle_connections > 0:
            print(f"idle-connection phase skipped: the open-file hard limit is below "
                  f"{2 * args.idle_connections + 500} (ulimit -Hn)")
        return 0
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
