#!/usr/bin/env bash
# Packs the whole program (fieldflow, its plugins and every shared library they load besides glibc
# and the Vulkan loader) into the git-ignored .appbundle/app.tar.xz, for timing whole graphs on the
# GPU machine, which has no OpenCV, shaderc or boost (about 50 MiB compressed, most of it the
# GDAL and ICU libraries Debian's OpenCV image codecs load; the device tool carries at most 64 MiB
# with the working tree, so carry it with .gl-app, the Vulkan loader without the validation layers,
# downloaded here if missing, not with .gl or .bundle).
#   bash bench/gpu/pack_app.sh [build-folder]     (default build; built first)
# On the GPU machine bench/gpu/run.sh unpacks it and runs every program from it
# (bench/gpu/run_app.sh: the recipes that need it).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
cmake --build "$BUILD" --target fieldflow ff_core ff_neural -j 2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin/plugins" "$stage/lib"
cp "$BUILD/bin/fieldflow" "$stage/bin/"
cp "$BUILD"/bin/plugins/*.so "$stage/bin/plugins/"
cp "$BUILD"/lib/*.so "$stage/lib/"
# The engine's tests and step benchmark (Release, engine-only: they need nothing more).
# PROGRAMS: which of them (default the benchmark only: the tests would take the carry past 64 MiB).
for program in ${PROGRAMS:-ff-engine-bench}; do
  [ -f "build-engine-only/bin/$program" ] && cp "build-engine-only/bin/$program" "$stage/bin/"
done
# The photos: leuvenA and graf1, and those of bench/model_choice.py (2 MB in all).
mkdir -p "$stage/img"
cp $(python3 bench/model_choice.py --list-photos) "$stage/img/"
# The mosaic maker (recipe gigapixel), and with MOSAIC_SAMPLES=1 all its sample photos
# (5 MB more: with them the bundle and the working tree pass the 64 MiB the device tool carries;
# without, the mosaic is painted from leuvenA and graf1).
cmake --build "$BUILD" --target ff-make-mosaic -j 2
cp "$BUILD/bin/ff-make-mosaic" "$stage/bin/"
if [ "${MOSAIC_SAMPLES:-0}" = 1 ]; then
  mkdir -p "$stage/img/samples"
  "$BUILD/bin/ff-make-mosaic" --list-samples | while read -r photo; do
    if [ -f "$photo" ]; then cp "$photo" "$stage/img/samples/"; fi
  done
fi
# The ldd closure, minus what the GPU machine has (glibc, the Vulkan loader carried in .gl).
ldd $(find "$stage/bin" "$stage/lib" -type f) 2>/dev/null | awk '/=> \// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libvulkan)\.so' | grep -v "$stage" |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
find "$stage/bin" "$stage/lib" -type f | xargs strip --strip-unneeded 2>/dev/null || true
mkdir -p .appbundle
tar -cf - -C "$stage" bin lib img | xz -9 -T2 > .appbundle/app.tar.xz.tmp
mv .appbundle/app.tar.xz.tmp .appbundle/app.tar.xz
grep -qxF '/.appbundle/' .gitignore 2>/dev/null || echo '/.appbundle/' >> .gitignore
# NVIDIA's Vulkan driver lives in libGLX_nvidia, which finds no vkCreateInstance unless the whole
# glvnd set is there (the loader alone reports "Found no drivers").
gl_debs="libvulkan1 libglvnd0 libegl1 libopengl0 libgl1 libglx0 libgles2"
if [ "$(ls .gl-app/*.deb 2> /dev/null | wc -l)" -lt 7 ]; then
  mkdir -p .gl-app && (cd .gl-app && apt-get download $gl_debs)
fi
du -h .appbundle/app.tar.xz
