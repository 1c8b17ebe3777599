#!/usr/bin/env bash
# Runs every read-only command of a gpuwhy binary on every file of ../shared/data (and on the
# multi-rank folders as a whole) and keeps stdout, stderr, the exit code and any written file,
# one folder per run. Two snapshots compare with `diff -r`, so a refactoring can show that the
# output of every command on every real input is byte-identical before and after.
#
#   scripts/output_snapshot.sh BIN OUT_DIR            one snapshot
#   scripts/output_snapshot.sh --compare OLD NEW      snapshots of two binaries, then diff -r;
#                                                     exit 0 when identical, 1 otherwise
#
# DATA overrides the data folder (default ../shared/data). JOBS: runs at once (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

data="$(realpath -m "${DATA:-../shared/data}")"
jobs="${JOBS:-$(nproc)}"

if [[ "${1:-}" == --compare ]]; then
  [[ $# == 3 ]] || { echo "usage: $0 --compare OLD_BIN NEW_BIN" >&2; exit 2; }
  root="$(mktemp -d)"
  trap 'rm -rf "$root"' EXIT
  "$0" "$2" "$root/old"
  "$0" "$3" "$root/new"
  runs=$(find "$root/old" -mindepth 1 -maxdepth 1 -type d | wc -l)
  if diff -r "$root/old" "$root/new" >"$root/diff.txt"; then
    echo "output_snapshot: $runs runs, all byte-identical"
    exit 0
  fi
  changed=$(grep -c '^diff -r\|^Only in' "$root/diff.txt" || true)
  echo "output_snapshot: $runs runs, $changed differing files:"
  head -200 "$root/diff.txt"
  exit 1
fi

[[ $# == 2 ]] || { echo "usage: $0 BIN OUT_DIR (or --compare OLD NEW)" >&2; exit 2; }
bin="$(realpath "$1")"
out="$2"
[[ -d "$data" ]] || { echo "output_snapshot: $data is absent: nothing to run" >&2; exit 2; }
mkdir -p "$out"
out="$(realpath "$out")"
# One scratch folder, the same for every snapshot, so paths printed into reports match.
# Snapshots run one at a time: the lock serialises two worktrees sharing the folder.
scratch="${TMPDIR:-/tmp}/gpuwhy-output-snapshot"
exec 9>"$scratch.lock"
flock 9
rm -rf "$scratch"
mkdir -p "$scratch"

# One line per run: NAME<TAB>ARGS... (ARGS tab-separated; @OUT@ is the run's output file).
runs="$scratch/runs.tsv"
: >"$runs"
add() { local name="$1"; shift; (IFS=$'\t'; echo "$name"$'\t'"$*") >>"$runs"; }
while IFS= read -r file; do
  key="${file#"$data"/}"
  key="${key//\//__}"
  add "$key.info" info "$file"
  add "$key.info-json" info --format json "$file"
  for format in text json md html; do add "$key.analyze-$format" analyze --format "$format" -o @OUT@ "$file"; done
  add "$key.analyze-summary" analyze --summary "$file"
  add "$key.doctor" doctor --from "$file"
  add "$key.doctor-json" doctor --format json --from "$file"
  add "$key.annotate" annotate "$file" -o @OUT@.json
  add "$key.diff-self" diff --format json "$file" "$file"
done < <(find "$data" -type f ! -path '*/verdicts/*' ! -name MANIFEST.tsv ! -name README.md | sort)
while IFS= read -r dir; do
  key="${dir#"$data"/}"
  key="dir__${key//\//__}"
  add "$key.analyze-text" analyze "$dir"
  add "$key.analyze-json" analyze --format json "$dir"
  add "$key.annotate" annotate "$dir" -o @OUT@.json
  add "$key.doctor" doctor --from "$dir"
done < <(find "$data" -mindepth 1 -type d ! -path '*/verdicts*' | sort)

run_one() {
  local line="$1" bin="$2" out="$3" scratch="$4"
  IFS=$'\t' read -r -a parts <<<"$line"
  local name="${parts[0]}"
  local dir="$out/$name" work="$scratch/$name"
  mkdir -p "$dir" "$work"
  local args=()
  for arg in "${parts[@]:1}"; do args+=("${arg//@OUT@/$work/out}"); done
  local rc=0
  (cd "$work" && timeout 300 "$bin" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr" </dev/null) || rc=$?
  echo "$rc" >"$dir/rc"
  for written in "$work"/out*; do [[ -e "$written" ]] && mv "$written" "$dir/"; done
  rm -rf "$work"
}
export -f run_one
tr '\n' '\0' <"$runs" | xargs -0 -P "$jobs" -I{} bash -c 'run_one "$1" "$2" "$3" "$4"' _ {} "$bin" "$out" "$scratch"
echo "output_snapshot: $(wc -l <"$runs") runs of $bin in $out" >&2
rm -rf "$scratch"
