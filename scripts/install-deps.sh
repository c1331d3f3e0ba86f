#!/usr/bin/env bash
# Installs fieldflow's build and run dependencies from Debian 12 packages. Idempotent.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libopencv-dev libvulkan-dev libshaderc-dev glslc spirv-tools
  libboost-program-options-dev libyaml-cpp-dev nlohmann-json3-dev libxxhash-dev
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  googletest libgtest-dev clang libclang-rt-14-dev
  opencv-doc
  zsh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
