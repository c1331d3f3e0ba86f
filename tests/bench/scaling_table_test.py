#!/usr/bin/env python3
"""bench/gpu/tables.py's scaling table on the tags run.sh writes ("scaling ENCODING HIDDEN BATCH"):
a row per model, a column per batch, an error cell where a run failed, and the trainer's memory at
the largest batch. (The table read "scaling HIDDEN BATCH" once, and printed only dashes.)"""
import json
import sys

from bench_tool import run_on_results, verdict


def result(samples_per_second, memory):
    return json.dumps({"event": "result", "samples_per_second": samples_per_second, "kernel_path": "coopmat",
                       "tile": 128, "trainer_device_bytes": memory})


def main(tables_py):
    lines = ["# run scaling dense 32 16384", result(1.245e9, 46_073_744),
             "# run scaling dense 32 1048576", result(4.48e9, 46_141_872),
             "# run scaling dense 128 16384", result(4.368e8, 55_074_720),
             "# run scaling dense 128 1048576", json.dumps({"event": "error", "message": "out of memory"}),
             "# run scaling hash 64 16384", result(4.377e8, 56_828_512),
             "# run scaling hash 64 1048576", result(1.06e9, 86_305_648)]
    out = run_on_results(tables_py, lines)
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| dense") or line.startswith("| hash")}
    failures = []
    if "| model | 2^14 | 2^20 | trainer MB |" not in out:
        failures.append("no header with the batches 2^14 and 2^20")
    expected = {"dense 32": "| dense 32 | 1245 (c128) | 4480 (c128) | 46.1 |",
                "dense 128": "| dense 128 | 437 (c128) | error | 55.1 |",
                "hash 64": "| hash 64 | 438 (c128) | 1060 (c128) | 86.3 |"}
    for model, row in expected.items():
        if rows.get(model) != row:
            failures.append(f"{model}: expected {row!r}, got {rows.get(model, '(no row)')!r}")
    if list(rows) != list(expected):
        failures.append(f"rows in the order dense by width, then hash: got {list(rows)}")
    if "scaling dense 128 1048576: out of memory" not in out:
        failures.append("the failed run's message is not listed")
    return verdict(out, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
