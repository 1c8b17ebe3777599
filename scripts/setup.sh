#!/usr/bin/env bash
# The quick start's first command: installs the Debian packages that building and running
# gpuwhy need (only those missing; apt-get update only when something is missing), then
# builds the gpuwhy binary alone (Release, no tests, benchmarks or fuzzers) into build/release.
# The Python package needs no build: `pip install ./python` (no package index needed).
#
#   scripts/setup.sh                  install what is missing, build the binary
#   scripts/setup.sh --install-only   install what is missing, nothing else
#   scripts/setup.sh --test-packages  also install what only the tests need (PyTorch,
#                                     Chromium, Prometheus, wrk, jsonschema...), nothing else;
#                                     scripts/test.sh and .ci/run call it
#
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# What building and running gpuwhy needs (CMakeLists.txt's find_package and pkg-config).
BUILD_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsimdjson-dev libfmt-dev libcli11-dev zlib1g-dev libsqlite3-dev
  libcpp-httplib-dev libssl-dev libbrotli-dev
)
# What only the tests, benchmarks and their checks need (scripts/test.sh, .ci/run).
TEST_PACKAGES=(
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-yaml python3-jsonschema python3-torch python3-setuptools python3-wheel
  python3-pip python3-venv
  prometheus wrk chromium
)

# What only the MCP tests need (src/mcp/CMakeLists.txt, docs/mcp.md): npm packages, pinned,
# installed with npm outside the source tree; without npm the tests skip and say so. The
# conformance suite stays at 0.1.13: later versions need Node >= 22 (fs.globSync).
NPM_PACKAGES=(@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/conformance@0.1.13)
NPM_DIR="${GPUWHY_NPM_DIR:-$HOME/.cache/gpuwhy-npm}"

mode=build
case "${1:-}" in
  "") ;;
  --install-only) mode=install ;;
  --test-packages) mode=test-packages ;;
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

install_missing() {
  local missing=() package
  for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if ((${#missing[@]} == 0)); then
    echo "setup.sh: all ${#} packages present" >&2
    return
  fi
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then sudo=(sudo); fi
  echo "setup.sh: installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

install_npm_packages() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup.sh: npm not found: the MCP tests (mcp_sdk_client, mcp_conformance) will skip" >&2
    return
  fi
  local package installed=0
  for package in "${NPM_PACKAGES[@]}"; do
    local name="${package%@*}" version="${package##*@}" manifest
    manifest="$NPM_DIR/node_modules/$name/package.json"
    if [[ -f "$manifest" ]] && grep -q "\"version\": *\"$version\"" "$manifest"; then
      installed=$((installed + 1))
    fi
  done
  if ((installed == ${#NPM_PACKAGES[@]})); then
    echo "setup.sh: all ${#NPM_PACKAGES[@]} npm packages present in $NPM_DIR" >&2
    return
  fi
  echo "setup.sh: installing npm packages into $NPM_DIR: ${NPM_PACKAGES[*]}" >&2
  mkdir -p "$NPM_DIR"
  npm install --prefix "$NPM_DIR" --no-audit --no-fund "${NPM_PACKAGES[@]}" >&2 ||
    echo "setup.sh: npm install failed: the MCP tests will skip" >&2
}

if [[ "$mode" == test-packages ]]; then
  install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
  install_npm_packages
  exit 0
fi
install_missing "${BUILD_PACKAGES[@]}"
if [[ "$mode" == install ]]; then exit 0; fi

jobs="${JOBS:-$(nproc)}"
start=$SECONDS
# The usual time is measured (README's quick start says how): 291 build steps, 828 CPU
# seconds of compiling from scratch without ccache, about 7 minutes on 2 idle cores. This
# script times itself too (the line it prints last).
echo "setup.sh: building the gpuwhy binary only (Release, 291 steps, $jobs jobs) into" \
  "build/release; usually about 7 minutes on 2 idle cores from scratch, seconds when only" \
  "a few files changed" >&2
cmake --preset release -DGPUWHY_BUILD_TESTS=OFF -DGPUWHY_BUILD_BENCH=OFF >/dev/null
cmake --build build/release -j "$jobs" --target gpuwhy
echo "setup.sh: built build/release/src/cli/gpuwhy in $((SECONDS - start)) s;" \
  "tests: scripts/test.sh" >&2
