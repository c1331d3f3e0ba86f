#!/usr/bin/env bash
# Builds the Debian package (CPack) from the default build folder and prints its path on the last
# line: build/deb/fieldflow_<version>_<arch>.deb. Installs the tools CPack needs first.
#   sudo apt-get install ./build/deb/fieldflow_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."

# dpkg-shlibdeps (dpkg-dev) turns the linked libraries into Debian package dependencies; CPack
# uses `file` to find the ELF files.
missing=()
for p in dpkg-dev file; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" >&2
rm -rf build/deb
cpack --config build/CPackConfig.cmake -B build/deb >&2
ls build/deb/fieldflow_*.deb
