#!/usr/bin/env bash
# Load test of `gpuwhy serve` on loopback (issue: 200 connections for 30 s): starts the
# exporter on the fake libnvidia-ml (8 GPUs), measures its resident memory, runs wrk
# (Debian package wrk) against /metrics, measures memory again, and prints requests/s,
# latency percentiles, errors and the RSS ratio. Also times single-client scrapes (the
# Prometheus case) to give their p99.
#
#   bench/serve_load.sh BUILD_DIR [CONNECTIONS] [SECONDS]
set -euo pipefail
build=${1:?usage: bench/serve_load.sh BUILD_DIR [CONNECTIONS] [SECONDS]}
connections=${2:-200}
seconds=${3:-30}
gpuwhy="$build/src/cli/gpuwhy"
fake="$build/src/collect/libfake_nvml.so"
command -v wrk >/dev/null || { echo "serve_load.sh: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
[[ -x "$gpuwhy" && -f "$fake" ]] || { echo "serve_load.sh: build $build first (gpuwhy, fake_nvml)" >&2; exit 2; }

work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
cp "$fake" "$work/libnvidia-ml.so.1"
{
  echo "devices 8"
  for d in 0 1 2 3 4 5 6 7; do
    echo "static $d name=FakeH100 uuid=GPU-$d bus=00000000:1$d:00.0 smmax=1980 genmax=5 widthmax=16 total=81559 plimit=700"
    echo "tick $d util=90 sm=1755 used=60000 gen=5 width=16 power=600 temp=65 throttle=0x0 pids=4242:60000"
  done
} > "$work/nvml.txt"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
GPUWHY_NVML_LIBRARY="$work/libnvidia-ml.so.1" FAKE_NVML_SCRIPT="$work/nvml.txt" \
  "$gpuwhy" serve --listen "127.0.0.1:$port" --threads "${THREADS:-32}" \
  --connections-per-client "$connections" 2>"$work/serve.log" &  # wrk: all from one address
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 3  # a few refreshes: the window and the bodies reach their steady size
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
# Warm-up: every serving thread and its malloc arena exist before the baseline is taken, so
# the before/after comparison shows growth under load (a leak), not first use.
wrk -t"$(( connections < 4 ? connections : 4 ))" -c"$connections" -d3s "http://127.0.0.1:$port/metrics" >/dev/null
sleep 1
rss_before=$(rss)
body=$(curl -s "http://127.0.0.1:$port/metrics" | wc -c)

# Single client, sequential: what one Prometheus scrape costs.
python3 - "$port" <<'PY'
import http.client, statistics, sys, time
port = int(sys.argv[1])
c = http.client.HTTPConnection("127.0.0.1", port)
lat = []
for i in range(2000):
    t = time.perf_counter()
    c.request("GET", "/metrics")
    r = c.getresponse(); r.read()
    if r.status != 200: raise SystemExit(f"status {r.status}")
    lat.append((time.perf_counter() - t) * 1e3)
    if r.getheader("Connection", "").lower() == "close":
        c.close(); c = http.client.HTTPConnection("127.0.0.1", port)
lat.sort()
print(f"single client, 2000 scrapes: median {statistics.median(lat):.3f} ms, "
      f"p99 {lat[int(len(lat)*0.99)]:.3f} ms, max {lat[-1]:.3f} ms")
PY

wrk -t"$(( connections < 4 ? connections : 4 ))" -c"$connections" -d"${seconds}s" --latency "http://127.0.0.1:$port/metrics" | tee "$work/wrk.txt"
rss_after=$(rss)
kill -0 "$pid" || { echo "serve_load.sh: the exporter died" >&2; exit 1; }
errors=$(grep -E "Socket errors|Non-2xx" "$work/wrk.txt" || true)
echo "body $body bytes; RSS before $rss_before KiB, after $rss_after KiB, ratio $(python3 -c "print(round($rss_after/$rss_before, 3))")"
echo "errors: ${errors:-none}"
