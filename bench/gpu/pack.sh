#!/usr/bin/env bash
# Builds what the GPU benchmark needs here and fills the git-ignored folders that travel to the
# GPU machine (which has no Vulkan loader, Vulkan headers, shaderc or OpenCV):
#   .bundle/bin/ff-engine-bench   Release, shaderc linked statically: needs only libvulkan.so.1
#   .bundle/bin/ff_engine_tests   the engine's tests, to check both kernel paths on the GPU
#   .bundle/img/                  the benchmark images (Debian's opencv-doc examples)
#   .gl/                          Debian's Vulkan loader and validation layers (.debs that
#                                 bench/gpu/run.sh unpacks there), downloaded if missing
# The PyTorch peer (bench/peers/pytorch_field.py) and the scripts travel with the working tree.
#
#   bash bench/gpu/pack.sh [build-folder]      (default build-engine-only; configured if missing)
# then, in one device call with carry [".gl", ".bundle"]:  bash bench/gpu/run.sh RECIPE...
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-engine-only}
BUNDLE=.bundle
if [ ! -f "$BUILD/build.ninja" ] && [ ! -f "$BUILD/Makefile" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFIELDFLOW_ENGINE_ONLY=ON -DFIELDFLOW_TESTS=ON
fi
build_type=$(grep -E '^CMAKE_BUILD_TYPE:' "$BUILD/CMakeCache.txt" | cut -d= -f2)
if [ "$build_type" != "Release" ]; then
  echo "pack.sh: $BUILD is a '$build_type' build; the benchmark needs Release" >&2
  exit 1
fi
cmake --build "$BUILD" --target ff-engine-bench ff_engine_tests -j 2
mkdir -p "$BUNDLE/bin" "$BUNDLE/img"
for program in ff-engine-bench ff_engine_tests; do
  cp "$BUILD/bin/$program" "$BUNDLE/bin/$program.tmp"
  strip "$BUNDLE/bin/$program.tmp"
  mv "$BUNDLE/bin/$program.tmp" "$BUNDLE/bin/$program"
done
DATA=/usr/share/doc/opencv-doc/examples/data
for f in leuvenA.jpg graf1.png; do
  [ -f "$BUNDLE/img/$f" ] || cp "$DATA/$f" "$BUNDLE/img/$f"
done
# Everything the binary links besides glibc and the Vulkan loader must travel too: there should be none.
extra=$(ldd "$BUNDLE"/bin/* | grep '=>' | awk '{print $1}' |
        grep -vE '^(linux-vdso|/lib64/ld-linux|libc\.so|libm\.so|libpthread|libdl|librt|libvulkan\.so|libstdc\+\+|libgcc_s)' || true)
if [ -n "$extra" ]; then echo "pack.sh: unexpected shared libraries: $extra" >&2; exit 1; fi
# NVIDIA's Vulkan driver (libGLX_nvidia) needs the whole glvnd set beside the loader; the engine's
# tests there also want the validation layer.
if [ "$(ls .gl/*.deb 2> /dev/null | wc -l)" -lt 8 ]; then
  mkdir -p .gl && (cd .gl && apt-get download libvulkan1 libglvnd0 libegl1 libopengl0 libgl1 libglx0 \
                                libgles2 vulkan-validationlayers)
fi
du -sh "$BUNDLE" .gl
echo "pack.sh: bundle ready in $BUNDLE"
