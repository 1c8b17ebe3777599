#!/usr/bin/env bash
# Golden outputs of every gpuwhy command and format (tests/golden, docs/testing.md): builds
# gpuwhy, then compares or regenerates them with tests/golden_check.py.
#
#   scripts/golden.sh --check [GROUP...]    the full diff between the goldens and today's output
#                                           (exit 1 when anything differs): review it
#   scripts/golden.sh --update [GROUP...]   rewrite the goldens (the diff is shown as they are
#                                           written), then `git add tests/golden` and commit
#                                           them with a note on each intended change
#   scripts/golden.sh --twice [GROUP...]    run every group twice and compare: a difference is
#                                           a nondeterminism to fix in gpuwhy
#
# GPUWHY=BIN uses that binary instead of building build/dev's (preset dev). DATA overrides the
# shared data folder (default ../shared/data; groups that need it are skipped without it).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  --check|--update|--twice) shift ;;
  -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 --check|--update|--twice [GROUP...] (see --help)" >&2; exit 2 ;;
esac
groups=()
for group in "$@"; do groups+=(--group "${group#golden_}"); done

bin="${GPUWHY:-}"
if [[ -z "$bin" ]]; then
  [[ -f build/dev/build.ninja ]] || cmake --preset dev >/dev/null
  nice cmake --build build/dev --target gpuwhy -j "${JOBS:-$(nproc)}" >/dev/null
  bin=build/dev/src/cli/gpuwhy
fi
data=(--data "${DATA:-../shared/data}")

case "$mode" in
  --check) exec python3 tests/golden_check.py --gpuwhy "$bin" "${data[@]}" --diff-lines 0 "${groups[@]}" ;;
  --twice) exec python3 tests/golden_check.py --gpuwhy "$bin" "${data[@]}" --twice --diff-lines 0 "${groups[@]}" ;;
esac
python3 tests/golden_check.py --gpuwhy "$bin" "${data[@]}" --update --diff-lines 200 "${groups[@]}"
# A new group (a new synth scenario) becomes a ctest test at the next configure.
python3 tests/golden_check.py --gpuwhy "$bin" "${data[@]}" --groups >/dev/null ||
  python3 tests/golden_check.py --gpuwhy "$bin" "${data[@]}" --groups
git status --short -- tests/golden | head -40
echo "golden.sh: review with 'git diff --stat tests/golden' (and scripts/golden.sh --check before the next update)" >&2
