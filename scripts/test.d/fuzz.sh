#!/usr/bin/env bash
# libFuzzer on the graph-file and model-file loaders (preset `fuzz`, clang): first every saved crash
# input (tests/fuzz/regressions/) must pass, then each target fuzzes for FUZZ_SECONDS (default 60)
# from its seed corpus. New corpus entries go to a scratch folder, not the source tree; a crash
# leaves its input under build-fuzz/crashes/ to be added to tests/fuzz/regressions/<target>/.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-60}
jobs=$(nproc)
cmake --preset fuzz >/dev/null || exit 1
cmake --build --preset fuzz -j "$jobs" --target ff_fuzz_graph_file ff_fuzz_model_file || exit 1

rc=0
mkdir -p build-fuzz/crashes
for target in graph_file model_file; do
    bin=build-fuzz/bin/ff_fuzz_$target
    regressions=()
    for f in tests/fuzz/regressions/$target/*; do [ -f "$f" ] && regressions+=("$f"); done
    if [ ${#regressions[@]} -gt 0 ]; then
        if ! "$bin" "${regressions[@]}" >build-fuzz/$target-regressions.log 2>&1; then
            echo "fuzz $target: a saved crash input fails again:"; tail -n 40 build-fuzz/$target-regressions.log
            rc=1
            continue
        fi
    fi
    scratch=build-fuzz/corpus-$target
    rm -rf "$scratch" && mkdir -p "$scratch"
    log=build-fuzz/$target.log
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix=build-fuzz/crashes/$target- -print_final_stats=1 \
        "$scratch" tests/fuzz/corpus/$target >"$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    if [ $status -ne 0 ]; then
        echo "fuzz $target: FAILED after ${runs:-?} runs; input saved under build-fuzz/crashes/:"
        grep -m1 -E 'ERROR|runtime error|deadly signal|Test unit written' "$log"
        tail -n 60 "$log"
        rc=1
    else
        echo "fuzz $target: ${seconds} s, ${runs:-?} runs, corpus $(ls "$scratch" | wc -l) new + \
$(ls tests/fuzz/corpus/$target | wc -l) seeds, ${#regressions[@]} regression input(s), no failure"
    fi
done
exit $rc
