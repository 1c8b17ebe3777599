#!/usr/bin/env bash
# Rewrites tests/ctest_costs.txt from the costs ctest measured in a build folder (default
# build/dev, after a full `ctest` there): the tests of a second or more, longest first. A fresh
# build seeds its ctest schedule from this file (CMakeLists.txt), so CI starts the long tests
# first instead of finishing on one core.
#
#   scripts/update_test_costs.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/dev}"
data="$build/Testing/Temporary/CTestCostData.txt"
[[ -f "$data" ]] || { echo "update_test_costs.sh: $data: no measured costs (run ctest there first)" >&2; exit 2; }
{
  awk 'NF == 3 && $3 >= 1.0 { printf "%s 1 %.1f\n", $1, $3 }' "$data" | sort -k3,3 -rn
  echo "---"
} > tests/ctest_costs.txt.partial
mv tests/ctest_costs.txt.partial tests/ctest_costs.txt
echo "update_test_costs.sh: $(($(wc -l < tests/ctest_costs.txt) - 1)) tests of a second or more in tests/ctest_costs.txt" >&2
