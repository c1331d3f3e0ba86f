#!/usr/bin/env bash
# The installed fieldflow, as a user and a plugin author get it: builds the .deb, installs it with
# apt, then from a folder outside the tree
#   - `fieldflow --version` and `fieldflow nodes` (every op of the build, from /usr/lib/fieldflow);
#   - runs the installed lake graph by name on a photo (a short training), from the package and
#     from a prefix install (`cmake --install build --prefix`);
#   - builds examples/plugin against the installed SDK (find_package(fieldflow), and pkg-config),
#     and runs a graph using its node through FIELDFLOW_PLUGIN_PATH.
# Leaves the package installed (the slurm stage uses it too).
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD

fail() { echo "package: FAIL: $*" >&2; exit 1; }

deb=$(scripts/install-deb.sh | tail -n 1)
echo "package: built and installed $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb -f "$deb" Depends Recommends
[ "$(command -v fieldflow)" = /usr/bin/fieldflow ] || fail "fieldflow is not /usr/bin/fieldflow"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # nothing below may depend on the source tree being the current folder
export FIELDFLOW_CACHE_DIR=$work/cache
unset FIELDFLOW_PLUGIN_PATH

# Versions: the first line names the version the build was configured with.
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$src/build/CMakeCache.txt")
fieldflow --version | tee versions.txt
[ "$(head -n 1 versions.txt)" = "fieldflow $version" ] || fail "--version does not start with 'fieldflow $version'"
for what in "plugin ABI" "model format" "engine"; do
  grep -q "^$what [0-9]" versions.txt || fail "--version lacks '$what'"
done
cmp -s versions.txt <(fieldflow version) || fail "'fieldflow version' differs from --version"

# Every op of the build, each from the installed plugin folder.
op_names() { awk '/^plugins:/ {exit} /^  [A-Z]/ {print $1}' | sort; }
fieldflow nodes >nodes.txt
op_names <nodes.txt >installed_ops.txt
"$src/build/bin/fieldflow" nodes | op_names >built_ops.txt
[ -s built_ops.txt ] || fail "the build lists no ops"
diff -u built_ops.txt installed_ops.txt || fail "the installed fieldflow lacks ops of the build"
for plugin in ff_core ff_neural; do
  grep -q " /usr/lib/fieldflow/plugins/$plugin.so$" nodes.txt || fail "$plugin not loaded from /usr/lib/fieldflow/plugins"
done
echo "package: fieldflow nodes lists all $(wc -l <installed_ops.txt) ops"

# The installed example by name, on a photo of the user's, from this folder: its results go to
# out/<the photo's name>, and the run says so.
cp /usr/share/fieldflow/images/leuvenA.jpg photo.jpg
fieldflow examples | grep -q "^  lake " || fail "fieldflow examples does not list lake"
fieldflow run lake --set input=photo.jpg --set steps=200 --set batch=2048 >run.log 2>&1 \
  || fail "fieldflow run lake failed: $(tail -n 5 run.log)"
grep -q "^wrote .* files in out/photo/$" run.log || fail "the run does not say where it wrote: $(tail -n 3 run.log)"
for f in prediction.png bilinear.png ground_truth.png model.ffm report.html metrics.json; do
  [ -s "out/photo/$f" ] || fail "lake did not write $f"
done
grep -Eq '"psnr_learned": *[0-9]' out/photo/metrics.json || fail "metrics.json has no psnr_learned"
echo "package: lake ran by name: $(grep -Eo '"psnr_(learned|bilinear)": *[0-9.]+' out/photo/metrics.json | tr '\n' ' ')"

# A prefix install (`cmake --install build --prefix P`): the same, by name, from another folder.
prefix=$work/prefix
cmake --install "$src/build" --prefix "$prefix" >/dev/null
mkdir elsewhere && cd elsewhere
"$prefix/bin/fieldflow" run lake --set input=../photo.jpg --set steps=20 --set batch=1024 --quiet \
  || fail "the prefix install's fieldflow run lake failed"
[ -s out/photo/report.html ] || fail "the prefix install's lake wrote no out/photo/report.html"
"$prefix/bin/fieldflow" check upscale_methods >/dev/null || fail "the prefix install does not find upscale_methods"
[ -s "$prefix/share/bash-completion/completions/fieldflow" ] || fail "no bash completion under the prefix"
[ -s "$prefix/share/zsh/site-functions/_fieldflow" ] || fail "no zsh completion under the prefix"
[ -s /usr/share/zsh/vendor-completions/_fieldflow ] || fail "the package has no zsh completion where Debian's zsh looks"
cd "$work"
echo "package: a prefix install runs lake by name from any folder"

# The example plugin, out of tree, against the installed package (no prefix given: /usr).
cp -r "$src/examples/plugin" example
cmake -S example -B example-build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build example-build >/dev/null
plugin_dir=$work/example-build/bin/plugins
[ -f "$plugin_dir/ff_example.so" ] || fail "the example plugin was not built"
# The same plugin through pkg-config alone.
c++ -std=c++20 -shared -fPIC -fvisibility=hidden -DEXAMPLE_VERSION='"1.0.0"' \
  example/plugin.cpp example/posterize.cpp $(pkg-config --cflags --libs fieldflow) \
  -Wl,--version-script="$(pkg-config --variable=exports_map fieldflow)" -Wl,-z,defs \
  -o pkgconfig_example.so
fieldflow nodes Posterize --plugin "$work/pkgconfig_example.so" | grep -q "^plugin file: $work/pkgconfig_example.so$" \
  || fail "the pkg-config build of the example does not load"

graph=example/posterize.yaml
if fieldflow check "$graph" >check.txt 2>&1; then
  fail "the example graph validates without the example plugin"
fi
grep -q "Posterize" check.txt || fail "without the plugin the error does not name Posterize: $(cat check.txt)"
export FIELDFLOW_PLUGIN_PATH=/nonexistent:$plugin_dir
fieldflow nodes | grep -Eq "^  example 1\.0\.0 +$plugin_dir/ff_example\.so$" \
  || fail "fieldflow nodes does not list the example plugin from FIELDFLOW_PLUGIN_PATH"
fieldflow run "$graph" --set output="$work/posterized" --set levels=3 --quiet
[ -s posterized/posterized.png ] || fail "the example graph wrote no image"
echo "package: example plugin built against the installed SDK (CMake and pkg-config) and run"
echo "package: ok"
