#!/usr/bin/env bash
# Packs a built fieldflow (binary, plugins and every shared library they need, except glibc's own and
# the Vulkan loader) into one .tar.xz, so it runs on a machine that has a GPU driver but none of the
# development packages.   scripts/device-bundle.sh BUILD_DIR OUT.tar.xz
set -euo pipefail
build=${1:?build dir}
out=${2:?output .tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/ff/bin/plugins" "$stage/ff/lib"
cp "$build/bin/fieldflow" "$stage/ff/bin/"
cp "$build"/bin/plugins/*.so "$stage/ff/bin/plugins/"
for bench in "$build"/bin/ff-*-bench; do [ -e "$bench" ] && cp "$bench" "$stage/ff/bin/"; done
skip='^(linux-vdso|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|ld-linux|libvulkan\.so)'
for f in "$stage"/ff/bin/fieldflow "$stage"/ff/bin/plugins/*.so; do
  ldd "$f" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    [[ $name =~ $skip ]] && continue
    [ -e "$stage/ff/lib/$name" ] || cp -L "$path" "$stage/ff/lib/$name"
  done
done
# Debug info is most of the size and is not needed to run.
find "$stage/ff" -type f \( -name '*.so*' -o -perm -u+x \) -exec strip --strip-debug {} + 2>/dev/null || true
tar -C "$stage" -cf - ff | xz -9 -T0 > "$out"
echo "device-bundle: $(du -h "$out" | cut -f1) in $out ($(ls "$stage/ff/lib" | wc -l) libraries)"
