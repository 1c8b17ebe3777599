#!/usr/bin/env bash
# Builds the Debian package from a configured build (default build/dev) with cpack -G DEB,
# checks its metadata and dependencies, unpacks it into a scratch root (dpkg -x: nothing is
# installed on the machine), runs `gpuwhy demo` and the installed man page from there, and
# removes it all.
#
#   scripts/deb_check.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/dev}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/gpuwhy-deb-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
fail() { echo "deb_check.sh: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$scratch/pkg" >/dev/null 2>"$scratch/cpack.log") || {
  cat "$scratch/cpack.log" >&2
  fail "cpack -G DEB failed in $build"
}
deb="$(ls "$scratch"/pkg/gpuwhy_*.deb)"
depends="$(dpkg-deb -f "$deb" Depends)"
for lib in libfmt libsqlite3 zlib1g libc6; do
  [[ "$depends" == *"$lib"* ]] || fail "$deb: Depends lacks $lib: $depends"
done
contents="$(dpkg-deb -c "$deb")"
[[ "$contents" == *'./usr/share/man/man1/gpuwhy.1'* ]] || fail "$deb: no man page"
dpkg -x "$deb" "$scratch/root"
"$scratch/root/usr/bin/gpuwhy" version
"$scratch/root/usr/bin/gpuwhy" demo >"$scratch/demo.txt" 2>&1 || {
  cat "$scratch/demo.txt" >&2
  fail "gpuwhy demo from the package failed"
}
echo "deb_check.sh: $(basename "$deb") unpacks into a scratch root, runs demo ($(wc -l <"$scratch/demo.txt") lines) and is removed; Depends: $depends" >&2
