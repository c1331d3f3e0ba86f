#!/usr/bin/env python3
"""bench/gpu/late.py on a results file it could be given: the late us/step is the GPU time of the
last two thirds of a run's progress intervals over their steps (the first third left out), a run
without a result says so, and each row carries the run's PSNR, sums, trainer memory and setup time."""
import json
import sys

from bench_tool import run_on_results, verdict


def main(late_py):
    lines = ["# run large 8192x8192",
             json.dumps({"event": "setup", "local_gradient_cells": 0, "deferred_gradient_cells": 730,
                         "setup_seconds": 0.25})]
    # Six intervals of 10 steps: the first two slow (a cold clock), then 2 ms each.
    gpu = 0.0
    for i, ms in enumerate([9, 9, 2, 2, 2, 2, 2], start=0):
        gpu += ms / 1000
        lines.append(json.dumps({"event": "progress", "step": 10 * i, "gpu_seconds": gpu}))
    lines.append(json.dumps({"event": "result", "us_per_step_gpu": 400.0, "psnr_8bit": 31.25,
                             "trainer_device_bytes": 86_300_000}))
    lines += ["# run large 30000x30000", json.dumps({"event": "error", "message": "out of memory"})]
    out = run_on_results(late_py, lines)
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| large")}
    failures = []
    # Progress at steps 0..60; from the third entry (step 20) to the last (step 60): 8 ms over 40 steps.
    expected = "| large 8192x8192 | 200.00 | 400.00 | 31.250 | 0 | 730 | 86.3 | 0.25 |"
    if rows.get("large 8192x8192", "").strip() != expected:
        failures.append("late row: " + rows.get("large 8192x8192", "(no row)"))
    if "error: out of memory" not in rows.get("large 30000x30000", ""):
        failures.append("failed run: " + rows.get("large 30000x30000", "(no row)"))
    return verdict(out, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
