#!/usr/bin/env bash
# Installs the Debian packages gpuwhy needs (only those missing; apt-get update only when
# something is missing), then configures and builds the Release preset into build/release.
#
#   scripts/setup.sh                  install what is missing, build Release
#   scripts/setup.sh --install-only   install what is missing, nothing else (CI)
#
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsimdjson-dev libfmt-dev libcli11-dev zlib1g-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-yaml libcpp-httplib-dev libssl-dev libbrotli-dev prometheus wrk
  python3 python3-jsonschema python3-torch python3-setuptools python3-wheel python3-pip
  chromium
)

install_only=0
case "${1:-}" in
  "") ;;
  --install-only) install_only=1 ;;
  -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} > 0)); then
  sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then sudo=(sudo); fi
  echo "setup.sh: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup.sh: all packages present" >&2
fi

if ((install_only)); then exit 0; fi

cmake --preset release
cmake --build build/release -j "${JOBS:-$(nproc)}"
echo "setup.sh: built build/release/src/cli/gpuwhy" >&2
