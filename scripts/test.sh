#!/usr/bin/env bash
# Builds and runs the tests (installing the Debian packages only they need first).
#
#   scripts/test.sh               every test, preset dev (warnings are errors) in build/dev
#   scripts/test.sh --asan        AddressSanitizer + UBSan (preset asan, build/asan) over the
#                                 code that reads untrusted bytes: the tests of src/base,
#                                 src/model and src/ingest and the fuzzers of the JSON report
#                                 and rank summary readers (ctest label untrusted_input)
#   scripts/test.sh --asan --all  every test under the sanitizers (about three times longer)
#
# JOBS overrides the parallelism (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

preset=dev
all=0
for arg in "$@"; do
  case "$arg" in
    --asan) preset=asan ;;
    --all) all=1 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
jobs="${JOBS:-$(nproc)}"
build_dir="build/$preset"
target=()
label=()
if [[ "$preset" == asan && "$all" == 0 ]]; then
  target=(--target untrusted_input_tests)
  label=(-L untrusted_input)
fi

# The packages only the tests need (PyTorch, Chromium, Prometheus, ...): the quick start's
# first command leaves them out so that the binary is built in minutes.
if command -v dpkg-query >/dev/null; then scripts/setup.sh --test-packages; fi
cmake --preset "$preset"
cmake --build "$build_dir" -j "$jobs" "${target[@]}"

if [[ "$preset" == asan ]]; then
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1"
  # LeakSanitizer cannot run under ptrace (debuggers, some containers): probe once with a
  # sanitized test binary and fall back to ASan without leak checks when it cannot.
  probe="$build_dir/src/base/base_test"
  if [[ -x "$probe" ]] && ! "$probe" --gtest_filter='-*' >/dev/null 2>&1; then
    echo "test.sh: LeakSanitizer unsupported here; running with detect_leaks=0" >&2
    export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:strict_string_checks=1"
  fi
fi

ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$jobs" "${label[@]}"
