#!/usr/bin/env python3
"""End to end: a real Prometheus (Debian's package) scrapes `gpuwhy serve` running on the
fake libnvidia-ml, with the shipped scrape config and rules, until the GPU metrics and a
firing alert (GpuXidError: the fake GPU reports Xid 79) appear in Prometheus' API.

The shipped deploy/prometheus/prometheus.yml is used as is except for two test settings:
the target address (a free loopback port) and 1 s scrape/evaluation intervals so the test
takes seconds. Exit 77 (skip) when prometheus is not installed.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--fake-nvml", required=True)
    parser.add_argument("--deploy", required=True)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    prometheus = shutil.which("prometheus")
    if prometheus is None:
        print("prometheus (Debian package prometheus) is absent: end-to-end test skipped")
        return 77

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
