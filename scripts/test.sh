#!/usr/bin/env bash
# Builds and runs every test.
#
#   scripts/test.sh          preset dev (warnings are errors) in build/dev
#   scripts/test.sh --asan   preset asan (AddressSanitizer + UBSan) in build/asan
#
# JOBS overrides the parallelism (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

preset=dev
case "${1:-}" in
  "") ;;
  --asan) preset=asan ;;
  -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
jobs="${JOBS:-$(nproc)}"
build_dir="build/$preset"

cmake --preset "$preset"
cmake --build "$build_dir" -j "$jobs"

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

ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
