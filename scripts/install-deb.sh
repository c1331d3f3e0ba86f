#!/usr/bin/env bash
# Builds the Debian package (scripts/build-deb.sh) and installs it with apt, replacing an installed
# fieldflow of the same version. Prints the package's path on the last line.
set -euo pipefail
cd "$(dirname "$0")/.."

deb=$(scripts/build-deb.sh | tail -n 1)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --reinstall "$PWD/$deb" >/dev/null
echo "$deb"
