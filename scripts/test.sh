#!/usr/bin/env bash
# Builds fieldflow and runs the whole test suite, stage by stage, with one summary line per stage.
# On a fresh Debian 12 machine this is all it takes: it installs what it needs first.
set -uo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
failed=0
summary=()

stage() { # stage NAME COMMAND...
  local name=$1; shift
  local start=$SECONDS
  echo "==> $name"
  if "$@"; then
    summary+=("PASS  $name ($((SECONDS - start)) s)")
  else
    summary+=("FAIL  $name ($((SECONDS - start)) s)")
    failed=1
  fi
}

build_default() { cmake --preset default >/dev/null && cmake --build --preset default -j "$jobs"; }
unit_and_integration() { ctest --preset default -j "$jobs" --timeout 900; }
check_graphs() {
  local g rc=0
  for g in graphs/*.yaml; do
    ./build/bin/fieldflow check "$g" || rc=1
  done
  return $rc
}

stage "install dependencies" scripts/install-deps.sh
stage "build (RelWithDebInfo)" build_default
stage "tests (ctest, validation layer on)" env FIELDFLOW_VALIDATION=1 bash -c "$(declare -f unit_and_integration); unit_and_integration"
stage "fieldflow check graphs/*.yaml" check_graphs
for extra in scripts/test.d/*.sh; do
  [ -e "$extra" ] || continue
  stage "$(basename "$extra" .sh)" bash "$extra"
done

echo
echo "==> summary"
printf '  %s\n' "${summary[@]}"
exit $failed
