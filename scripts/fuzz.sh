#!/usr/bin/env bash
# Long libFuzzer runs of the parsers of untrusted bytes (docs/fuzzing.md).
#
#   scripts/fuzz.sh --list                  the targets
#   scripts/fuzz.sh [-t SECONDS] TARGET...  build build/fuzz (clang, -DGPUWHY_BUILD_FUZZERS=ON)
#                                           and run each TARGET for SECONDS (default 600)
#
# Each run starts from a scratch corpus in build/fuzz/corpus/TARGET seeded with copies of the
# real files of ../shared/data (cut to 64 KiB) or, for gpuwhy's own formats, with files the dev
# build writes; libFuzzer writes new inputs and crash-* files there, never into ../shared/data.
# Prints one line per target: runs, seconds, crashes, sanitizer reports. Exits 1 when any target
# crashed or logged a sanitizer report (UBSan halts on error: a report is a crash).
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GPUWHY_SHARED_DATA:-../shared/data}"
seconds=600
targets=()
while (($#)); do
  case "$1" in
    -t) seconds="$2"; shift 2 ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done

# The seed folders of TARGET under $data (absent folders are skipped); a folder named
# repo:PATH is PATH in this repository (hand-written fixtures for formats the data lacks).
seed_dirs() {
  case "$1" in
    # The whole path (src/e2e_fuzz): a seed of every kind it reads.
    fuzz_e2e) echo kineto/hta kineto/param nsys_stats ncu memory/snapshots logs/memory_summary \
      logs/oom logs/dmesg logs/dmon logs/dcgm logs/nvidia-smi logs/nvidia-smi-q logs/nvidia-smi-q-xml \
      logs/nvidia-smi-captures logs/topo logs/nccl logs/lspci logs/infiniband logs/fabric-manager ;;
    fuzz_kineto) echo kineto/hta kineto/param kineto/kineto_tb_plugin kineto/tracelens ;;
    fuzz_nsys) echo nsys_sqlite ;;
    fuzz_metric_dmon|fuzz_metric_pmon) echo logs/dmon ;;
    fuzz_metric_dcgm_prometheus|fuzz_metric_dcgm_csv) echo logs/dcgm ;;
    fuzz_metric_query_gpu_csv) echo logs/nvidia-smi-captures ;;
    fuzz_metric_sniffed) echo logs/dmon logs/dcgm logs/nvidia-smi-captures ;;
    fuzz_memory_snapshot) echo memory/snapshots repo:tests/data/memory_snapshots ;;
    fuzz_memory_summary) echo logs/memory_summary ;;
    fuzz_memory_timeline) echo memory ;;
    fuzz_ncu) echo ncu ;;
    fuzz_profile_summary) echo nsys_stats ;;
    fuzz_kernel_log) echo logs/dmesg ;;
    fuzz_lspci) echo logs/lspci ;;
    fuzz_topology) echo logs/topo ;;
    fuzz_nccl) echo logs/nccl repo:tests/data/node_logs ;;
    fuzz_nvidia_smi_query) echo logs/nvidia-smi-q ;;
    fuzz_nvidia_smi_xml) echo logs/nvidia-smi-q-xml ;;
    fuzz_nvidia_smi_table|fuzz_nvlink) echo logs/nvidia-smi ;;
    fuzz_infiniband) echo logs/infiniband ;;
    fuzz_command_capture) echo logs/nvidia-smi-captures ;;
    fuzz_fabric_manager) echo logs/fabric-manager logs/dmesg ;;
    *) ;;
  esac
}

configure() {
  CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUWHY_BUILD_FUZZERS=ON -DGPUWHY_BUILD_TESTS=OFF -DGPUWHY_BUILD_BENCH=OFF >/dev/null
}

if [[ -n "${list:-}" ]]; then
  configure
  ninja -C build/fuzz -t targets all | sed -n 's/^\(fuzz_[a-z0-9_]*\): .*/\1/p' | sort -u
  exit 0
fi
((${#targets[@]})) || { echo "fuzz.sh: name a target (--list)" >&2; exit 2; }
configure
cmake --build build/fuzz -j "${JOBS:-$(nproc)}" --target "${targets[@]}" >/dev/null

# gpuwhy's own formats: seeds written by the dev build from synthetic traces.
own_seeds() {
  local target=$1 dir=$2 gpuwhy=build/dev/src/cli/gpuwhy
  [[ -x "$gpuwhy" ]] || return 0
  local tmp
  tmp="$(mktemp -d)"
  "$gpuwhy" synth --scenario input-bound --steps 4 -o "$tmp/t.json" >/dev/null 2>&1 || true
  case "$target" in
    fuzz_json_report) "$gpuwhy" analyze --format json "$tmp/t.json" -o "$dir/report.json" ;;
    fuzz_rank_summary) "$gpuwhy" analyze --summary "$tmp/t.json" -o "$dir/rank.summary.json" ;;
    fuzz_e2e) cp "$tmp/t.json" "$dir/synth.pt.trace.json" &&
      "$gpuwhy" analyze --summary "$tmp/t.json" -o "$dir/rank.summary.json" ;;
  esac >/dev/null 2>&1 || true
  rm -rf "$tmp"
}

# UBSan halts on the first report (the build also compiles -fno-sanitize-recover=undefined),
# so undefined behaviour is a crash with a crash-* file, never a log line in a clean run.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

failed=0
for target in "${targets[@]}"; do
  binary="$(find build/fuzz -type f -name "$target" -perm -u+x | head -1)"
  [[ -n "$binary" ]] || { echo "fuzz.sh: no target $target (--list)" >&2; exit 2; }
  corpus="build/fuzz/corpus/$target"
  mkdir -p "$corpus"
  for dir in $(seed_dirs "$target"); do
    case "$dir" in repo:*) dir="${dir#repo:}" ;; *) dir="$data/$dir" ;; esac
    [[ -d "$dir" ]] || continue
    for file in "$dir"/*; do
      [[ -f "$file" ]] && head -c 65536 "$file" >"$corpus/seed-$(basename "$file")"
    done
  done
  own_seeds "$target" "$corpus"
  log="build/fuzz/$target.log"
  start=$SECONDS
  rc=0
  "$binary" -max_total_time="$seconds" -max_len=65536 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1 || rc=$?
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)"
  [[ -n "$runs" ]] || runs="$(grep -o '#[0-9]*' "$log" | tail -1 | tr -d '#')"
  crashes="$(find "$corpus" -maxdepth 1 -name 'crash-*' | wc -l)"
  # Sanitizer reports in the log, whether or not they ended the run.
  reports="$(grep -c -E 'runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer' "$log" || true)"
  echo "$target: ${runs:-?} runs in $((SECONDS - start)) s, $crashes crash(es)," \
    "${reports:-0} sanitizer report(s), exit $rc (log $log)"
  # Any exit but 0 is a finding: a crash (77 or a signal), a hang past -timeout (70), memory past
  # -rss_limit_mb; slow-unit-* files are only slow and do not change it.
  if ((crashes > 0 || reports > 0 || rc != 0)); then failed=1; fi
done
exit "$failed"
