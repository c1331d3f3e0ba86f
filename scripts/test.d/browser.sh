#!/usr/bin/env bash
# Browser stage: the report page and the batch index, opened in headless Chromium (Debian's
# package, installed here), must load without a console error, an uncaught exception or a failed
# resource; the report's A/B control is driven once from the keyboard, and its sections that
# tell both sides (codecs at the model's bytes, crops where each wins, the win map, the plot,
# the budget, model and metric notes) must be drawn, the page under 10 MB. Screenshots are kept under
# build/browser/. Then the same check must FAIL on a report with an injected JavaScript error and a
# missing image: the check is shown to be able to fail.
set -uo pipefail
cd "$(dirname "$0")/../.."

out=build/browser
exe=build/bin/fieldflow
data=/usr/share/doc/opencv-doc/examples/data

# Chromium and a font, from Debian's packages; nothing when they are there already.
packages=(chromium fonts-dejavu-core)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "browser: installing ${missing[*]}"
  $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    { echo "browser: cannot install ${missing[*]}"; exit 1; }
fi
if [ ! -x "$exe" ]; then
  cmake --preset default >/dev/null && cmake --build build --target fieldflow ff_core ff_neural -j "$(nproc)" || exit 1
fi

rm -rf "$out" && mkdir -p "$out/photos"
# Small inputs: the sample photo and a second one at 192 pixels wide (seconds per run on lavapipe).
"$exe" run tests/browser/shrink.yaml --no-cache --set "input=$data/leuvenA.jpg" --set "output=$out/photos/leuvenA.png" >/dev/null &&
  "$exe" run tests/browser/shrink.yaml --no-cache --set "input=$data/graf1.png" --set "output=$out/photos/graf1.png" >/dev/null ||
  { echo "browser: cannot make the test photos"; exit 1; }
# The dense grid: the page is checked, not the default model, and its kernels compile fastest.
small_run=(--set steps=60 --set batch=1024 --set encoding=dense_grid)
echo "browser: lake run and a 2-image batch (60 steps each)"
"$exe" run graphs/lake.yaml --no-cache --set "input=$out/photos/leuvenA.png" --set "output=$out/lake" "${small_run[@]}" \
  >"$out/lake.log" 2>&1 || { cat "$out/lake.log"; echo "browser: the lake run failed"; exit 1; }
"$exe" batch graphs/lake.yaml --input "$out/photos" --output "$out/batch" --jobs 1 "${small_run[@]}" \
  >"$out/batch.log" 2>&1 || { cat "$out/batch.log"; echo "browser: the batch failed"; exit 1; }

status=0
python3 tests/browser/check_page.py --out "$out" "$out/lake/report.html@ab" "$out/batch/index.html" || status=1

# The check must be able to fail: copies of the report with a script error, and with a missing
# image, must each fail it, for that reason.
inject() { # inject NAME HTML EXPECTED-TEXT
  local dir=$out/injected-$1
  mkdir -p "$dir"
  sed "s|</body>|$2</body>|" "$out/lake/report.html" >"$dir/report.html"
  python3 tests/browser/check_page.py --out "$dir" "$dir/report.html@ab" >"$dir/check.log" 2>&1
  local rc=$?
  sed 's/^/  | /' "$dir/check.log"
  if [ $rc -eq 1 ] && grep -q "FAIL .*$3" "$dir/check.log"; then
    echo "browser: the injected $1 was caught, as it must be"
  else
    echo "browser: the check did not catch the injected $1 (exit $rc)"
    status=1
  fi
}
inject script-error '<script>undefinedFunctionCall();</script>' "undefinedFunctionCall is not defined"
inject missing-image '<img src="no-such-picture.png" alt="missing">' "failed resource"
inject missing-plot '<script>document.querySelector(".rate-plot").remove();</script>' "missing: the rate-distortion plot"
[ $status -eq 0 ] && echo "browser: pages clean; screenshots in $out"
exit $status
